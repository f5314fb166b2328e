# expect: E0300 E0300
let a = zeros([3]) or true
let b = not 2
