# expect: E0103
let x = zeros([2, 3])
let s = sum(x, axsi=1)
