# expect: E0302
let x = arange(4)
let y = x as uint64
