# expect: E0208
print("before")
let a = zeros([5])
a[0:2] = zeros([3])
