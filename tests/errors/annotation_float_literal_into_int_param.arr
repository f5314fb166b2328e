# expect: E0304
print("before")
fn p(x: i32) = x + 1
print(p(2.7))
