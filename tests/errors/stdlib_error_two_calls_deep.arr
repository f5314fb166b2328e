# expect: E0201
# `std` calls `var`, which calls `mean`: the error is shown at the user's call of `std`
let x = ones([3, 4])
print(std(x, axis=(0, 0)))
