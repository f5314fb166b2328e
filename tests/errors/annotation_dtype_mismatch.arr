# expect: E0304
fn norm3(v: f32[3]) = sqrt(sum(v * v))
print(norm3(arange(3)))
