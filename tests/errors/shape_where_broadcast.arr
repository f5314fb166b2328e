# expect: E0200
let cond = arange(2) > 0
let y = where(cond, ones([3]), zeros([2]))
