# expect: E0306
# The names besides the starred one need a value each.
let (a, b, *rest) = (1,)
