# expect: E0207
fn det2(m: f32[2, 2]) = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
print(det2(eye(3)))
