# expect: E0204
let a = zeros([3])
let b = a[3]
