# Concatenations and rolls of expressions (on the CPU each part is a map
# writing its box of the result; a roll of a roll writes straight into the
# outer one; a map reading rolls is computed in boxes, each reading one part
# of every roll). Outputs from NumPy: tests/cases/concat_parts.py.
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
# roll stencils: the map reads each roll's parts in place, box by box
let u = reshape(arange(30), [6, 5]) as f64
print(u + 0.1 * (roll(u, 1, axis=0) + roll(u, -1, axis=0) + roll(u, 1, axis=1) + roll(u, -1, axis=1) - 4.0 * u))
# out: [[ 3.5,  4.0,  5.0,  6.0,  6.5],
# out:  [ 5.5,  6.0,  7.0,  8.0,  8.5],
# out:  [10.5, 11.0, 12.0, 13.0, 13.5],
# out:  [15.5, 16.0, 17.0, 18.0, 18.5],
# out:  [20.5, 21.0, 22.0, 23.0, 23.5],
# out:  [22.5, 23.0, 24.0, 25.0, 25.5]]
print(sum(roll(u, 1, axis=0) * 2.0), transpose(roll(u, 2, axis=0)) + transpose(u) * 0.5)
# out: 870.0 [[20.0, 27.5,  5.0, 12.5, 20.0, 27.5],
# out:  [21.5, 29.0,  6.5, 14.0, 21.5, 29.0],
# out:  [23.0, 30.5,  8.0, 15.5, 23.0, 30.5],
# out:  [24.5, 32.0,  9.5, 17.0, 24.5, 32.0],
# out:  [26.0, 33.5, 11.0, 18.5, 26.0, 33.5]]
print(roll(u, 1, axis=0)[::2, ::-2] + 1.0, roll(u, -2, axis=1)[::-1, :][1] * 2.0)
# out: [[30.0, 28.0, 26.0],
# out:  [10.0,  8.0,  6.0],
# out:  [20.0, 18.0, 16.0]] [44.0, 46.0, 48.0, 40.0, 42.0]
let ru = roll(u, 1, axis=1)
print(ru + u, ru[0])
# out: [[ 4.0,  1.0,  3.0,  5.0,  7.0],
# out:  [14.0, 11.0, 13.0, 15.0, 17.0],
# out:  [24.0, 21.0, 23.0, 25.0, 27.0],
# out:  [34.0, 31.0, 33.0, 35.0, 37.0],
# out:  [44.0, 41.0, 43.0, 45.0, 47.0],
# out:  [54.0, 51.0, 53.0, 55.0, 57.0]] [4.0, 0.0, 1.0, 2.0, 3.0]
# the game of life on a torus: a glider, four generations
let g = zeros([6, 6]) as i32
g[0, 1] = 1
g[1, 2] = 1
g[2, 0:3] = 1
for step in 0..4 {
    let nb = roll(g, 1, axis=0) + roll(g, -1, axis=0) + roll(g, 1, axis=1) + roll(g, -1, axis=1) + roll(g, (1, 1), axis=(0, 1)) + roll(g, (1, -1), axis=(0, 1)) + roll(g, (-1, 1), axis=(0, 1)) + roll(g, (-1, -1), axis=(0, 1))
    g = where((nb == 3) or ((g == 1) and (nb == 2)), 1, 0)
}
print(g)
# out: [[0, 0, 0, 0, 0, 0],
# out:  [0, 0, 1, 0, 0, 0],
# out:  [0, 0, 0, 1, 0, 0],
# out:  [0, 1, 1, 1, 0, 0],
# out:  [0, 0, 0, 0, 0, 0],
# out:  [0, 0, 0, 0, 0, 0]]
# large enough to run in parallel
let h = reshape(arange(300 * 400), [300, 400]) as f64
let lap = roll(h, 3, axis=0) + roll(h, -5, axis=1) - 2.0 * h
print(sum(lap), lap[0, 0], lap[299, 399], lap[2, 396])
# out: 0.0 118805.0 -1595.0 118405.0
# slice assignments whose source is a map of rolls of the destination: computed whole, then copied
let sa = reshape(arange(12), [3, 4]) as f64
sa[:, :] = sa + roll(sa, 1, axis=0) * 10.0
print(sa)
# out: [[ 80.0,  91.0, 102.0, 113.0],
# out:  [  4.0,  15.0,  26.0,  37.0],
# out:  [ 48.0,  59.0,  70.0,  81.0]]
let sb = reshape(arange(12), [3, 4]) as f64
sb[1:, 1:] = sb[1:, 1:] - roll(sb[1:, 1:], 1, axis=1)
print(sb)
# out: [[ 0.0,  1.0,  2.0,  3.0],
# out:  [ 4.0, -2.0,  1.0,  1.0],
# out:  [ 8.0, -2.0,  1.0,  1.0]]
