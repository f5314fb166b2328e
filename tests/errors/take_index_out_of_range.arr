# expect: E0204
print("before")
let t = take(arange(5), [1, -6])
