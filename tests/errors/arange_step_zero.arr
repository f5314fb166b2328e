# expect: E0210
print("before")
let x = arange(0, 10, 0)
