# expect: E0208
let a = zeros([5])
a[0:2] = ones([3])
