# NumPy's bitwise and shift operators (`& | ^ ~ << >>`) and their functions,
# on bool, i32 and i64 (Arr's integer dtypes), through broadcasting, views and
# fused chains. Expected values from NumPy (tests/cases/bitwise.py prints OK
# when NumPy computes the same numbers).
let a = [-7, -1, 0, 1, 5, 12, 100, 2147483647] as i32
let b = [3, -2, 7, 1, 4, 10, 6, -8] as i32
print(a & b, a | b, a ^ b, ~a)
# out: [         1,         -2,          0,          1,          4,          8,
# out:           4, 2147483640] [ -5,  -1,   7,   1,   5,  14, 102,  -1] [         -6,           1,           7,           0,           1,
# out:            6,          98, -2147483641] [          6,           0,          -1,          -2,          -6,
# out:          -13,        -101, -2147483648]
let w = a as i64 * 1000000007
print(w & 255, w | (1 << 40), w ^ -1, ~w)
# out: [207, 249,   0,   7,  35,  84, 188, 249] [        -7000000049,         -1000000007,       1099511627776,
# out:        1100511627783,       1104511627811,       1111511627860,
# out:        1199511628476, 2147483662032385529] [          7000000048,           1000000006,                   -1,
# out:           -1000000008,          -5000000036,         -12000000085,
# out:         -100000000701, -2147483662032385530] [          7000000048,           1000000006,                   -1,
# out:           -1000000008,          -5000000036,         -12000000085,
# out:         -100000000701, -2147483662032385530]
# shifts by 0, by the width - 1, at and beyond the width, and by a negative
# count: NumPy shifts every bit out (0, or -1 for `>>` of a negative value)
let k = [0, 1, 31, 32, 33, 40, -1, 3] as i32
print(a << k, a >> k)
# out: [-7, -2,  0,  0,  0,  0,  0, -8] [       -7,        -1,         0,         0,         0,         0,
# out:          0, 268435455]
let k64 = [0, 1, 63, 64, 65, 100, -1, 3]
print(w << k64, w >> k64)
# out: [         -7000000049,          -2000000014,                    0,
# out:                     0,                    0,                    0,
# out:                     0, -1266874777450467384] [       -7000000049,         -500000004,                  0,
# out:                   0,                  0,                  0,
# out:                   0, 268435457754048191]
print(a >> 31, w >> 63, (a as i64) << 62, a << 31)
# out: [-1, -1,  0,  0,  0,  0,  0,  0] [-1, -1,  0,  0,  0,  0,  0,  0] [ 4611686018427387904, -4611686018427387904,                    0,
# out:   4611686018427387904,  4611686018427387904,                    0,
# out:                     0, -4611686018427387904] [-2147483648, -2147483648,           0, -2147483648, -2147483648,
# out:            0,           0, -2147483648]
# on bools: logical, bool out; `~` is `not`
let p = a > 0
let q = b > 0
print(p & q, p | q, p ^ q, ~p)
# out: [false, false, false,  true,  true,  true,  true, false] [ true, false,  true,  true,  true,  true,  true,  true] [ true, false,  true, false, false, false, false,  true] [ true,  true,  true, false, false, false, false, false]
# a bool with an integer promotes as NumPy 2 (a literal is weak); shifts count bools as integers
print(p & 6, p | b, dtype(p & 6) == i64, dtype(p & b) == i32, p << 1, p << q, p >> q)
# out: [0, 0, 0, 0, 0, 0, 0, 0] [ 3, -2,  7,  1,  5, 11,  7, -7] true true [0, 0, 0, 2, 2, 2, 2, 2] [0, 0, 0, 2, 2, 2, 2, 1] [0, 0, 0, 0, 0, 0, 0, 1]
print(dtype(a & 4) == i32, dtype(a << 1) == i32, dtype(w ^ 4) == i64, a & 4, 4 | a, 1 << a[3:5])
# out: true true true [0, 4, 0, 0, 4, 4, 4, 4] [        -3,         -1,          4,          5,          5,         12,
# out:         100, 2147483647] [ 2, 32]
# broadcasting and views: strided, reversed, transposed
let m = reshape(arange(12), [3, 4])
print(m & [1, 2, 4, 8])
# out: [[0, 0, 0, 0],
# out:  [0, 0, 4, 0],
# out:  [0, 0, 0, 8]]
print(m[:, ::2] ^ m[::-1, 1::2])
# out: [[9, 9],
# out:  [1, 1],
# out:  [9, 9]]
print(transpose(m) | m[::-1, 0])
# out: [[ 8,  4,  8],
# out:  [ 9,  5,  9],
# out:  [10,  6, 10],
# out:  [11,  7, 11]]
print(m[::-1, ::-1] >> [0, 1, 2, 3], ~m[1, ::-1], ~transpose(m)[::2])
# out: [[11,  5,  2,  1],
# out:  [ 7,  3,  1,  0],
# out:  [ 3,  1,  0,  0]] [-8, -7, -6, -5] [[ -1,  -5,  -9],
# out:  [ -3,  -7, -11]]
print(sum(m & 5, axis=0), (m as i32)[::2, 1:] << (m[1:, :3] as i32))
# out: [4, 7, 4, 7] [[   16,    64,   192],
# out:  [ 2304,  5120, 11264]]
# host scalars fold, on either side of an array too
print(5 & 3, 5 | 3, 5 ^ 3, ~0, ~-5, 1 << 4, -17 >> 2, 1 << 62, 7 >> 70, 3 << 0)
# out: 1 7 6 -1 4 16 -5 4611686018427387904 0 3
print(true & false, true | false, true ^ true, ~true, ~false)
# out: false true false false true
print(3 & m[1], m[1] << 2, 255 ^ m[2], (m[0] | 8) & 12)
# out: [0, 1, 2, 3] [16, 20, 24, 28] [247, 246, 245, 244] [8, 8, 8, 8]
# precedence as Python's: | below ^ below & below shifts below + -, and
# comparisons below |
print(1 | 2 ^ 3 & 4 << 1, (1 | 2) ^ 3, 1 + 2 << 3, 3 & 1 == 1, 16 >> 1 + 1, 2 * 3 & 5, -1 & 255, ~1 + 1, ~2 * 3)
# out: 3 0 24 true 4 4 255 -1 -9
print(a > 0 & b, (a > 0) & (b > 0), a & b == 1)
# out: [false, false, false,  true,  true,  true,  true,  true] [false, false, false,  true,  true,  true,  true, false] [ true, false, false,  true, false, false, false, false]
# NumPy's functions of the operators
print(bitwise_and(12, [10, 6]), bitwise_or(12, [10, 6]), bitwise_xor(12, [10, 6]))
# out: [8, 4] [14, 14] [ 6, 10]
print(invert([0, 5, -1]), bitwise_not(p), bitwise_invert(a), left_shift(1, arange(4)), right_shift(-16, [1, 2, 70]))
# out: [-1, -6,  0] [ true,  true,  true, false, false, false, false, false] [          6,           0,          -1,          -2,          -6,
# out:          -13,        -101, -2147483648] [1, 2, 4, 8] [-8, -4, -1]
print(logical_and(a, b), logical_or(a, 0), logical_xor(a, b))
# out: [ true,  true, false,  true,  true,  true,  true,  true] [ true,  true, false,  true,  true,  true,  true,  true] [false, false,  true, false, false, false, false, false]
# in place: `x op= e` writes into x's memory, which every alias sees
let c = arange(10)
let alias = c
c &= 6
c |= 1
c ^= [1, 0, 1, 0, 1, 0, 1, 0, 1, 0]
c <<= 3
c >>= 1
print(alias)
# out: [ 0,  4,  8, 12, 16, 20, 24, 28,  0,  4]
let f = a > 1
let g = f
f &= q
f |= [true, false, false, false, false, false, false, false]
f ^= ~q
print(g)
# out: [ true,  true, false, false,  true,  true,  true,  true]
let n = 12
n &= 10
n <<= 2
n |= 1
n >>= 1
n ^= 3
print(n)
# out: 19
# fused chains, inside reductions too
let big = arange(1000)
print(sum((big & 3) + (big >> 1)), sum(big ^ (big >> 2)), max((big << 3) & 1023), sum((big & 1) == 0))
# out: 251000 505068 1016 500
let bi = arange(1000) as i32
print(sum((bi | 7) - (bi & 7)), sum(where((bi & 4) > 0, bi >> 2, ~bi)), sum(~(bi & 1) ^ bi, axis=0))
# out: 499500 -186750 -500000
let grid = reshape(arange(24), [4, 6])
print(sum((grid & 3) << (grid >> 3), axis=1), sum(transpose(grid)[::-1] ^ 21, axis=0))
# out: [ 7, 17, 16, 44] [119, 155, 111,  19]
# bool @ bool is bool, whether any of the ands holds, as NumPy's
let mm = [[true, false, true], [false, false, true]]
let nn = [[true, false], [false, false], [false, true]]
print(mm @ nn, dtype(mm @ nn) == bool, [true, false, true] @ [false, false, true])
# out: [[ true,  true],
# out:  [false,  true]] true true
# `~` of a mask selects the rest, as NumPy's `x[~m]`
let x = [1.5, -2.0, 3.0, -0.5]
print(x[~(x > 0)], x[(x > 0) & (x < 2)], x[(x < 0) | (x > 2)])
# out: [-2.0, -0.5] [1.5] [-2.0,  3.0, -0.5]
# the most negative i64 as a literal, as in Python and NumPy (2^63 negated)
let lowest = -9223372036854775808
print(lowest, lowest + 1, lowest == -9_223_372_036_854_775_807 - 1, [4, -9223372036854775808], (-9223372036854775808) >> 62)
# out: -9223372036854775808 -9223372036854775807 true [                   4, -9223372036854775808] -2
