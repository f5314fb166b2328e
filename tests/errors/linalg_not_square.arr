# expect: E0221
let m = ones([2, 3])
let i = inv(m)
