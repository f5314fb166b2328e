# expect: E0307
let c = arange(3) as i32
c[0] = 3000000000000
