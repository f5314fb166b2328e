# expect: E0302
fn half(x: f16) = x / 2
print(half(1.0))
