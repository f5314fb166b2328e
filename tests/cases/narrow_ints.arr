# The narrow integers u8, i8, i16, u16 and u32: stored at their width,
# computed in i64 and wrapped once where a result is stored, so arithmetic
# wraps as NumPy's does; promotion follows NumPy 2's table. A dtype prints
# as its name, whose digits the oracle compares (tests/cases/narrow_ints.py
# prints OK when NumPy computes the same numbers).
let a = [200, 100, 5, 17] as u8
print(a + a, a * 3, a - 6, -a)
# out: [144, 200,  10,  34] [88, 44, 15, 51] [194,  94, 255,  11] [ 56, 156, 251, 239]
print(~a, a << 1, a >> 2, a & 15, a | 1, a ^ 255)
# out: [ 55, 155, 250, 238] [144, 200,  10,  34] [50, 25,  1,  4] [8, 4, 5, 1] [201, 101,   5,  17] [ 55, 155, 250, 238]
print(a // 7, a % 7, a ** 2, a > 100, maximum(a, 150))
# out: [28, 14,  0,  2] [4, 2, 5, 3] [64, 16, 25, 33] [ true, false, false, false] [200, 150, 150, 150]
print(sum(a), prod(a), max(a), argmin(a), cumsum(a))
# out: 322 1700000 200 2 [200, 300, 305, 322]
print(dtype(a + a), dtype(sum(a)), dtype(max(a)))
# out: u8 i64 u8
let b = [-128, -1, 3, 127] as i8
print(b + b, b * b, abs(b), b // 2, b % 5, b // -1)
# out: [ 0, -2,  6, -2] [0, 1, 9, 1] [-128,    1,    3,  127] [-64,  -1,   1,  63] [2, 4, 3, 2] [-128,    1,   -3, -127]
print(a + b, dtype(a + b))
# out: [ 72,  99,   8, 144] i16
let s = [-30000, 30000] as i16
let w = [60000, 7] as u16
print(s * 2, w + w, s + w, dtype(s + w), dtype(w + (a[:2] as i8)))
# out: [ 5536, -5536] [54464,    14] [30000, 30007] i32 i32
let u = [4000000000, 5] as u32
print(u + u, u // 3, u > 4000000, u * u, dtype(u + b[:2]), dtype(u + s))
# out: [3705032704,         10] [1333333333,          1] [ true, false] [1983905792,         25] i64 i64
print(a as f32 / 4.0, [1.5, 255.9, 7.0] as u8, u as f64)
# out: [50.0, 25.0, 1.25, 4.25] [  1, 255,   7] [4000000000.0,          5.0]
let m = reshape(a, [2, 2])
print(m @ m, sort(a), argsort(a), where(a > 50, a, 1))
# out: [[ 52, 196],
# out:  [ 61,  21]] [  5,  17, 100, 200] [2, 3, 1, 0] [200, 100,   1,   1]
print(concat([a, [1, 2] as u8]), a[a > 50], min(m, axis=1))
# out: [200, 100,   5,  17,   1,   2] [200, 100] [100,   5]
let c = copy(a)
c[c > 50] = 0
c[1:3] += 250
print(c)
# out: [  0, 250, 255,  17]
