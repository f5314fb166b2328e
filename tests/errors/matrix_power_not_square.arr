# expect: E0221
let a = ones([2, 3])
print(matrix_power(a, 2))
