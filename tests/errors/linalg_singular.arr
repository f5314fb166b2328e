# expect: E0420
let m = [[1.0, 2.0], [2.0, 4.0]]
print(solve(m, [1.0, 1.0]))
