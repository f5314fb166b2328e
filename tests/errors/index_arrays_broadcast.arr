# expect: E0200
let d = reshape(arange(12.0), [3, 4])
print(d[[0, 1, 2], [1, 3]])
