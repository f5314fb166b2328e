# 2-D 5-point Jacobi stencil (Benchpress `jacobi_stencil`): fixed boundary
# temperatures, the interior updated through views of the grid and a separate
# `work` array, with the convergence delta sum(abs(new - old)) every sweep.
let n = 1000  # scale
let iters = 16  # iters
let epsilon = 0.005
let grid = zeros([n + 2, n + 2], dtype=f64)
grid[:, 0] = -273.15
grid[:, -1] = -273.15
grid[-1, :] = -273.15
grid[0, :] = 40.0
let center = grid[1:-1, 1:-1]
let north = grid[0:-2, 1:-1]
let east = grid[1:-1, 2:]
let west = grid[1:-1, 0:-2]
let south = grid[2:, 1:-1]
let work = zeros_like(center)
let delta = epsilon + 1.0
let iteration = 0
while delta > epsilon {
    iteration += 1
    work[:] = center
    work += north
    work += east
    work += west
    work += south
    work *= 0.2
    delta = sum(abs(work - center))
    center[:] = work
    if iteration >= iters {
        break
    }
}
print(iteration)
print(delta)
print(sum(grid))
print(grid[n // 2, 1])
