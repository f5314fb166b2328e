import numpy as np


def run(n, iters):
    i = np.arange(n, dtype=np.float64)
    grid = np.sin(i[:, None, None] * 0.1) + np.cos(i[None, :, None] * 0.07) + np.sin(i[None, None, :] * 0.05) * 0.5
    m = n - 2
    for _ in range(iters):
        work = np.zeros((m, m, m))
        for dz in range(3):
            for dy in range(3):
                for dx in range(3):
                    work += grid[dz:dz + m, dy:dy + m, dx:dx + m]
        grid[1:-1, 1:-1, 1:-1] = work / 27.0
    return [grid.sum(), grid[n // 2, n // 3, n // 4],
            np.abs(grid[1:-1, 1:-1, 1:-1] - grid[:-2, 1:-1, 1:-1]).max()]
