# expect: E0205
let x = zeros([2, 3])
print(x[..., ...])
