# Literals, operators, precedence and promotion (expected values worked out by hand).
print(1 + 2 * 3)
# out: 7
print(-2 ** 2)
# out: -4
print(2.0 ** -1, 2 ** 10)
# out: 0.5 1024
print(7 % 3, -7 % 3, 7 % -3)
# out: 1 2 -2
print(7 / 2)
# out: 3.5
print(dtype(7 / 2))
# out: f64
print(1e3 + 0.5)
# out: 1000.5
print(3 > 2 and not (1 == 2))
# out: true
let x = ones([2]) * 2
print(dtype(x), x)
# out: f32 [2.0, 2.0]
let i = arange(3) as i32
print(dtype(i + 1), dtype(i * 0.5), dtype(i + i as i64))
# out: i32 f32 i64
print(true + true)
# out: 2
print(1_000 * 3)
# out: 3000
