# expect: E0003 E0003 E0003
let a = ones([2, 3])
let b = a.item(0, 1)
print(a.tolist())
a.fill(0.0)
