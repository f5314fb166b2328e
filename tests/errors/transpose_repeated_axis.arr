# expect: E0201
print("before")
let t = transpose(ones([2, 3]), [0, 0])
