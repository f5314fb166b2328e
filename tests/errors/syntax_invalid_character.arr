# expect: E0003
let x = 3 $ 4
