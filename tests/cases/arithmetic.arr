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
# host scalars of i64 and f64 meet in f64, as arrays of them do
let k = 3
print(k * 0.5, k < 2.5, 7 / 2.0, k - 0.25, dtype(k * 0.5), 2 ** 0.5 == sqrt(2.0))
# out: 1.5 false 3.5 2.75 f64 true
let big = 9007199254740993
print(big + 0.0 == 9007199254740992.0)
# out: true
# f32 cubes (a fused loop in f64 lanes, not powf): the exact cubes of the f32
# values, rounded once (worked out with Python's fractions)
print(((arange(6) as f32) * 1.1 - 2.3) ** 3, ((arange(4) as f32) * 0.7) ** 3 == ((arange(4) as f32) * 0.7) ** 3.0)
# out: [   -12.166999,    -1.7279997, -0.0009999971,     1.0000007,      9.261002,
# out:         32.768] [true, true, true, true]
