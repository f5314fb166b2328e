# expect: E0300
let w = ones([4]) as bf16
save("w.npy", w)
