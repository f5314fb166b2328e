# expect: E0200 E0200
let a = zeros([2, 3])
let b = zeros([3, 2])
let c = a * b
let d = a - zeros([5])
