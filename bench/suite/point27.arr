# 27-point stencil (Benchpress `point27`): each interior point of a cube becomes
# the mean of its 3x3x3 neighbourhood, the 27 shifted views summed, iterated.
let n = 96  # scale
let iters = 5  # iters
let i = arange(n) as f64
let grid = sin(i[:, newaxis, newaxis] * 0.1) + cos(i[newaxis, :, newaxis] * 0.07) + sin(i[newaxis, newaxis, :] * 0.05) * 0.5
let m = n - 2
for k in 0..iters {
    let work = zeros([m, m, m], dtype=f64)
    for dz in 0..3 {
        for dy in 0..3 {
            for dx in 0..3 {
                work += grid[dz:dz + m, dy:dy + m, dx:dx + m]
            }
        }
    }
    grid[1:-1, 1:-1, 1:-1] = work / 27.0
}
print(sum(grid))
print(grid[n // 2, n // 3, n // 4])
print(max(abs(grid[1:-1, 1:-1, 1:-1] - grid[:-2, 1:-1, 1:-1])))
