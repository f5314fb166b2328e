# expect: E0204
let t = shape(ones([2, 3]))
print(t[2])
