# expect: E0205
let m = zeros([2, 3])
let v = m[0, 1, 2]
