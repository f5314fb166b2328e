# expect: E0200
print("before")
let b = broadcast_to(ones([3]), [2, 4])
