# expect: E0306
let (a, b) = (1, 2, 3)
