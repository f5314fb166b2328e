# expect: E0001
# Comparisons do not associate: `1 < x < 3` must be written with `and`.
let x = 2
let inside = 1 < x < 3
