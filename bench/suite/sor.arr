# Red-black successive over-relaxation (Benchpress `sor`-style): the grid's
# interior split into four strided quarters, red then black, each relaxed from
# its four neighbours (strided views) with factor omega; delta per sweep.
let n = 1000  # scale
let iters = 12  # iters
let omega = 1.5
let i = arange(n + 2) as f64
let g = zeros([n + 2, n + 2], dtype=f64)
g[0, :] = sin(i * 0.01) * 50.0
g[-1, :] = -25.0
g[:, 0] = 10.0
g[:, -1] = cos(i * 0.02) * 30.0
let delta = 0.0
for k in 0..iters {
    let old = copy(g[1:-1, 1:-1])
    # red: (odd, odd) and (even, even) interior points
    g[1:-1:2, 1:-1:2] = (1.0 - omega) * g[1:-1:2, 1:-1:2] +
        omega * 0.25 * (g[0:-2:2, 1:-1:2] + g[2::2, 1:-1:2] + g[1:-1:2, 0:-2:2] + g[1:-1:2, 2::2])
    g[2:-1:2, 2:-1:2] = (1.0 - omega) * g[2:-1:2, 2:-1:2] +
        omega * 0.25 * (g[1:-2:2, 2:-1:2] + g[3::2, 2:-1:2] + g[2:-1:2, 1:-2:2] + g[2:-1:2, 3::2])
    # black: (odd, even) and (even, odd)
    g[1:-1:2, 2:-1:2] = (1.0 - omega) * g[1:-1:2, 2:-1:2] +
        omega * 0.25 * (g[0:-2:2, 2:-1:2] + g[2::2, 2:-1:2] + g[1:-1:2, 1:-2:2] + g[1:-1:2, 3::2])
    g[2:-1:2, 1:-1:2] = (1.0 - omega) * g[2:-1:2, 1:-1:2] +
        omega * 0.25 * (g[1:-2:2, 1:-1:2] + g[3::2, 1:-1:2] + g[2:-1:2, 0:-2:2] + g[2:-1:2, 2::2])
    delta = sum(abs(g[1:-1, 1:-1] - old))
}
print(delta)
print(sum(g))
print(g[n // 2, n // 3])
print(max(g[1:-1, 1:-1]))
