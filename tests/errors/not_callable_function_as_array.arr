# expect: E0106
fn double(x) = 2 * x
let y = double[0]
