# expect: E0001
# Two binary operators in a row: the `*` has no left operand.
let x = 1 + * 2
