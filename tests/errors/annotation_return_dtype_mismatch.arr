# expect: E0304
fn scaled(x: f32) -> i32 {
    x * 1.5
}
print(scaled(2.0))
