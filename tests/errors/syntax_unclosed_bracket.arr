# expect: E0001
# Newlines are ignored inside `[ ]`, so the next `let` is read as part of the
# array literal.
let a = [1, 2, 3
let b = 4
