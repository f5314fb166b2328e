# expect: E0201
print("before")
let e = expand_dims(ones([2, 3]), 5)
