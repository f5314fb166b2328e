# expect: E0202
print("before")
let m = linspace(0, 1, 5, dtype=f64) @ ones([3])
