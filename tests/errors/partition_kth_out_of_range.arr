# expect: E0204
let x = reshape(arange(12), [3, 4])
let p = argpartition(x, [1, 4])
