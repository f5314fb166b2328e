# expect: E0413
let g = gradient(ones([3, 1]), axis=1)
