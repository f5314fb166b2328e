# expect: E0204
let e = zeros(0)
print(e[0])
