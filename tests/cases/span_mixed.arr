# Maps over shifted views of one grid (rows with short gaps between them),
# beside operands of other strides, row and column broadcasts, and extra
# outputs of a multi-output map: the fused CPU executor reads the grid's rows
# in place as one span and copies the others into it. Values from NumPy
# (the statements of tests/cases/span_mixed.py).
let g = reshape(arange(66 * 40) as f64, [66, 40]) * 0.01
let t = copy(g[1:-1, 1:-1]) * 2.0
let col = arange(64) as f64 * 0.5
let row = arange(38) as f64 - 3.0
let a = zeros([64, 38], dtype=f64)
let b = a
let c = a
for k in 0..2 {
    a = g[1:-1, 2:] + g[1:-1, :-2] - t * col[:, newaxis] + row[newaxis, :]
    b = a * g[2:, 1:-1] - g[:-2, 1:-1] / (1.0 + t)
    c = sqrt(abs(a)) + b
    g[1:-1, 1:-1] = 0.5 * g[1:-1, 1:-1] + 0.001 * (g[1:-1, 2:] - g[1:-1, :-2])
}
print(round(sum(a), 6), round(sum(b), 6), round(sum(c), 6), round(max(b), 6))
# out: -1272179.74528 -13648515.976129 -13600535.001432 38.82516
let v = reshape(arange(64 * 101) as f64, [64, 101]) * 0.001
for i in 0..30 {
    v = 0.5 * (v[:, 1:] + v[:, :-1]) + col[:, newaxis] * 0.01
    v = maximum(v, row[newaxis, :1] + 0.1)
}
print(round(sum(v), 6), shape(v)[1])
# out: 36154.336 71
