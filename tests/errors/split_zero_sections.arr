# expect: E0210
print("before")
let parts = split(arange(10), 0)
