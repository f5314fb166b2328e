# expect: E0405
fn f(x) = f(x)
print(f(1))
