# expect: E0105
fn lerp(a, b, t) = a + (b - a) * t
print(lerp(0.0, t=0.5))
