# Concatenations and rolls of expressions (on the CPU each part is a map
# writing its box of the result; a roll of a roll writes straight into the
# outer one). Outputs from NumPy: tests/cases/concat_parts.py.
let a = arange(6) as f64
let b = arange(4) as f64
print(concat([a * 2.0, b + 1.0]))
# out: [ 0.0,  2.0,  4.0,  6.0,  8.0, 10.0,  1.0,  2.0,  3.0,  4.0]
let m = reshape(arange(9), [3, 3])
print(roll(m * 10, (1, 1), axis=(0, 1)))
# out: [[80, 60, 70],
# out:  [20,  0, 10],
# out:  [50, 30, 40]]
print(roll(roll(arange(5) + 1, 2), 2), roll(m - 1, -1))
# out: [2, 3, 4, 5, 1] [[ 0,  1,  2],
# out:  [ 3,  4,  5],
# out:  [ 6,  7, -1]]
# a strided slice of a concatenation: not a box, so the inner one is stored
let c = concat([a * 2.0, b + 1.0])
print(concat([c[::3] + 0.5, -b]))
# out: [ 0.5,  6.5,  1.5,  4.5, -0.0, -1.0, -2.0, -3.0]
# a concatenation read twice: stored once, and rolled
print(sum(roll(c, 1)), roll(c, 1)[0], c[9])
# out: 40.0 4.0 4.0
print(concat([m > 4, m < 1], axis=1))
# out: [[false, false, false,  true, false, false],
# out:  [false, false,  true, false, false, false],
# out:  [ true,  true,  true, false, false, false]]
print(concat([m * 2, zeros([0, 3]) as i64, transpose(m) + 100]))
# out: [[  0,   2,   4],
# out:  [  6,   8,  10],
# out:  [ 12,  14,  16],
# out:  [100, 103, 106],
# out:  [101, 104, 107],
# out:  [102, 105, 108]]
print(sum(concat([sqrt(a * a), b * 0.5])), concat([ones([2, 1]) as f16, zeros([2, 1]) as f16], axis=1))
# out: 18.0 [[1.0, 0.0],
# out:  [1.0, 0.0]]
let v = arange(3) as f32
print(concat([broadcast_to(v * 2.0, [2, 3]), broadcast_to((v + 1.0)[:, newaxis], [3, 3])]))
# out: [[0.0, 2.0, 4.0],
# out:  [0.0, 2.0, 4.0],
# out:  [1.0, 1.0, 1.0],
# out:  [2.0, 2.0, 2.0],
# out:  [3.0, 3.0, 3.0]]
let t = reshape(arange(24), [2, 3, 4])
print(roll(t + 0, (1, -1, 1), axis=(0, 1, 2))[0])
# out: [[19, 16, 17, 18],
# out:  [23, 20, 21, 22],
# out:  [15, 12, 13, 14]]
# a slice assignment whose source is a roll of the destination
let s = reshape(arange(12), [3, 4])
s[:, :] = roll(s * 1, 1, axis=1)
s[1:, :] = roll(s[1:, :] + 0, (1, 2), axis=(0, 1))
print(s)
# out: [[ 3,  0,  1,  2],
# out:  [ 9, 10, 11,  8],
# out:  [ 5,  6,  7,  4]]
# large enough to run in parallel: a 2-D roll of an expression, a sum of a concatenation
let g = reshape(arange(300 * 400), [300, 400]) as f64
let r = roll(g * 2.0 + 1.0, (7, -3), axis=(0, 1))
print(sum(r), r[0, 0], r[299, 399], r[7, 3])
# out: 14400000000.0 234407.0 233605.0 13.0
print(sum(concat([g * 0.5, g[:, :100] - 1.0], axis=1)), sum(concat([g[::2], g[1::2]])))
# out: 5395425000.0 7199940000.0
