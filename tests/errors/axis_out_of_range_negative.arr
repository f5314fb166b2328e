# expect: E0201
let x = ones([2, 3])
let c = cumsum(x, axis=-3)
