# expect: E0208
let a = zeros([3, 4])
a[[0, 1]] = ones([3, 4])
