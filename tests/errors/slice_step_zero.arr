# expect: E0209
let a = arange(10)
let b = a[::0]
