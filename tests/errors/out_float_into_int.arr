# expect: E0300
print("before")
let counts = zeros([4], dtype=i64)
multiply(arange(4), 0.5, out=counts)
