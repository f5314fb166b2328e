# expect: E0210
print("before")
let t = tile(ones([2]), -1)
