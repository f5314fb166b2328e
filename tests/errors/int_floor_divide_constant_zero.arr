# expect: E0400
let a = arange(5)
print(a // 0)
