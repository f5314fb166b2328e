# expect: E0208
# `x += e` writes into x: the result cannot broadcast to a larger shape
let total = zeros([3])
total += ones([2, 3])
