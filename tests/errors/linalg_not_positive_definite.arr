# expect: E0421
let m = [[1.0, 2.0], [2.0, 1.0]]
print(cholesky(m))
