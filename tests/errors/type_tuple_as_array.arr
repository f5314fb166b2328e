# expect: E0303
let t = (1, 2)
let s = t + 1
