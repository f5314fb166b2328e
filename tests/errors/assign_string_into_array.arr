# expect: E0303
let x = zeros(3)
x[0] = "a"
