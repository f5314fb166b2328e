# expect: E0100
let values = [1, 2, 3]
print(valuse)
