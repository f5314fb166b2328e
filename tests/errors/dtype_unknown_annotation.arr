# expect: E0302
fn eighth(x: f8) = x / 8
print(eighth(1.0))
