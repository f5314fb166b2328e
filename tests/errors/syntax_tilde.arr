# expect: E0003
let m = [1.0, -2.0] > 0
print(m[~m])
