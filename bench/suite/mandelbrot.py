import numpy as np


def run(n, iters):
    x = np.linspace(-2.0, 1.0, n)
    y = np.linspace(-1.5, 1.5, n)
    cr = x[None, :] + np.zeros((n, 1))
    ci = y[:, None] + np.zeros((1, n))
    zr = np.zeros((n, n))
    zi = np.zeros((n, n))
    divtime = np.full((n, n), iters, dtype=np.int64)
    for k in range(iters):
        zr2 = zr * zr - zi * zi + cr
        zi = 2.0 * zr * zi + ci
        zr = zr2
        diverged = zr * zr + zi * zi > 4.0
        div_now = diverged & (divtime == iters)
        divtime = np.where(div_now, k, divtime)
        zr = np.where(diverged, 2.0, zr)
        zi = np.where(diverged, 0.0, zi)
    return [divtime.sum(), (divtime == iters).sum(), zr.sum(), (zi * zi).sum()]
