# expect: E0201
let x = zeros([2, 3])
print(1)
let y = squeeze(x, axis=0)
