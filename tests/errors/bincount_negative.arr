# expect: E0413
let c = bincount([3, 1, -2])
