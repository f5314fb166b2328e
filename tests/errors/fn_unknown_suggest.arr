# expect: E0101
let x = ones([3])
let s = summ(x)
