# expect: E0413
let t = tensordot(ones([4, 6, 6]), ones([4, 6, 3]), 2)
