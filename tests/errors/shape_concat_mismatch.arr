# expect: E0206
let a = zeros([2, 3])
let b = zeros([2, 4])
let c = concat([a, b], axis=0)
