import numpy as np


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)


def run(n, iters):
    dataset = np.arange(n, dtype=np.float64) / n
    res = 0.0
    for k in range(iters):
        res += rosen(dataset + k * 0.01)
    res /= n
    return [res, rosen(dataset)]
