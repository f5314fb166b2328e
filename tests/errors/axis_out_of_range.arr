# expect: E0201
let x = zeros([2, 3])
let s = sum(x, axis=2)
