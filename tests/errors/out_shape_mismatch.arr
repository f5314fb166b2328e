# expect: E0208
print("before")
let o = zeros([2, 3])
let y = add(ones([3]), ones([4, 1]), out=o)
