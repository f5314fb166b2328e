# expect: E0002
let x = (1 + 2
