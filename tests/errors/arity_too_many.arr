# expect: E0102
fn add(a, b) = a + b
let y = add(1, 2, 3)
