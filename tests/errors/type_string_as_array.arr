# expect: E0303
let p = "x.npy"
let s = sum(p)
