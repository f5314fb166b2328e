# The sum of n-body's [204, 204] force table, 3000 times: a reduction over two
# axes whose last is short (BENCHMARKS.md, CPU session 17). NumPy twin:
# bench/proto/force_sum.py. Run: arr run --backend cpu --time bench/proto/force_sum.arr
let n = 204
let x = rand([n])
let y = rand([n])
let z = rand([n])
let m = rand([n])
let s = 0.0
for i in 0..3000 {
    let dx = x[newaxis, :] - x[:, newaxis]
    let dy = y[newaxis, :] - y[:, newaxis]
    let dz = z[newaxis, :] - z[:, newaxis]
    let r2 = dx * dx + dy * dy + dz * dz + 0.01
    let w = m[newaxis, :] / (r2 * sqrt(r2))
    s = s + sum(w)
}
print(s)
