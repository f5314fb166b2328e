import numpy as np


def run(n, iters):
    i = np.arange(n, dtype=np.float64)
    a = np.sin(i[:, None] * 0.7 + i[None, :] * 0.3)
    b = np.cos(i[:, None] * 0.2 - i[None, :] * 0.5) / n
    c = a
    d = a
    e = np.zeros_like(a)
    for k in range(iters):
        c = np.sum(c[:, :, None] * b[None, :, :], axis=1) + a
        e += np.add.reduce(a[:, np.newaxis] * np.transpose(b), -1)
        d = d @ b + a
    return [c.sum(), d.sum(), np.abs(c - d).max(), (c * c).sum(), e.sum(), np.abs(e - iters * (a @ b)).max()]
