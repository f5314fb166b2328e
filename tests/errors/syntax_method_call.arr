# expect: E0003 E0003
let a = ones([2, 3])
print(a.sum(axis=0), a.T)
