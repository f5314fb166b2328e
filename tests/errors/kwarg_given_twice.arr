# expect: E0104
# `0` already fills `axis` positionally.
let x = zeros([2, 3])
let s = sum(x, 0, axis=1)
