# expect: E0103
fn scale(x, factor = 2.0) = x * factor
print(scale(1.0, facter=3.0))
