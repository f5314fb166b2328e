# expect: E0206
print("before")
let r = [[1, 2], [3]]
