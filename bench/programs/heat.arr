# Whole program `heat` (bench/programs/programs.py has the same in PyTorch,
# CuPy and NumPy): Jacobi sweeps of the heat equation on an n x n f32 plate
# with fixed edges, a fixed number of sweeps. `# scale` / `# iters` lines may
# be changed by the harness (bench/common.py).
let n = 10000  # scale
let iters = 100  # iters
let g = rand([n, n])
for i in 0..iters {
    g[1:-1, 1:-1] = 0.2 * (g[1:-1, 1:-1] + g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:])
}
print("mean temperature:", mean(g))
