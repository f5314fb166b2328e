import numpy as np


def run(n, iters):
    epsilon = 0.005
    grid = np.zeros((n + 2, n + 2))
    grid[:, 0] = -273.15
    grid[:, -1] = -273.15
    grid[-1, :] = -273.15
    grid[0, :] = 40.0
    center = grid[1:-1, 1:-1]
    north = grid[0:-2, 1:-1]
    east = grid[1:-1, 2:]
    west = grid[1:-1, 0:-2]
    south = grid[2:, 1:-1]
    work = np.zeros_like(center)
    delta = epsilon + 1.0
    iteration = 0
    while delta > epsilon:
        iteration += 1
        work[:] = center
        work += north
        work += east
        work += west
        work += south
        work *= 0.2
        delta = np.sum(np.abs(work - center))
        center[:] = work
        if iteration >= iters:
            break
    return [iteration, delta, grid.sum(), grid[n // 2, 1]]
