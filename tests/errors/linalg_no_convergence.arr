# expect: E0421
let m = [[1.0, 0.0 / 0.0], [0.0, 1.0]]
print(svd(m))
