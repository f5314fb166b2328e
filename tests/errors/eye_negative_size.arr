# expect: E0210
print("before")
let n = -2
let i = eye(n)
