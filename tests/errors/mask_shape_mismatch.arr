# expect: E0212
let m = zeros([3, 4])
let r = m[[true, false]]
