# expect: E0207
fn f(a: f32[n], b: f32[n]) = a + b
let y = f(zeros([3]), zeros([4]))
