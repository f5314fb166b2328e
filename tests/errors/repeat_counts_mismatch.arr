# expect: E0210
print("before")
let r = repeat(arange(3), [1, 2])
