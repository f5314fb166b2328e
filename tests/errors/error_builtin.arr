# expect: E0413
fn half(n) {
    if n % 2 != 0 {
        error(f"half needs an even number, got {n}")
    }
    n // 2
}
print(half(4))
print(half(7))
