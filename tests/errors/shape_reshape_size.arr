# expect: E0203
let x = arange(6)
let y = reshape(x, [4, 2])
