# expect: E0208
let a = arange(6)
a[2:4] = [1, 2, 3]
