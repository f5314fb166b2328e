# expect: E0210
let z = zeros([3, -2])
