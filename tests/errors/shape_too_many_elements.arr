# expect: E0403
# No machine holds 10^20 elements: refused before anything is allocated.
let grid = eye(10000000000)
