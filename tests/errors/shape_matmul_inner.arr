# expect: E0202
let a = ones([2, 3])
let b = ones([4, 5])
let c = a @ b
