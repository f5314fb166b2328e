# expect: E0006
let data = load("data/x.npy)
