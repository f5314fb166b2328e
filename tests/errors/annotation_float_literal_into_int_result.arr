# expect: E0304
print("before")
fn half(x) -> i32 { x * 1.5 }
print(half(2.5))
