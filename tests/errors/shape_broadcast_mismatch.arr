# expect: E0200
let a = zeros([2, 3])
let b = ones([4])
let c = a + b
