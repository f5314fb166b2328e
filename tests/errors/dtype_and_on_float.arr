# expect: E0300
let a = 1.5 and 2.5
