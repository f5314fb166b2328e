# expect: E0300
let x = rand([3])
print(x & 1)
