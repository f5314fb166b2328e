# expect: E0306
# An array unpacks along its first axis, as in Python: three rows, two names.
let (x, y) = zeros([3, 2])
