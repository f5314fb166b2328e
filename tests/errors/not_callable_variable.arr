# expect: E0106
let a = 3
let b = a(1)
