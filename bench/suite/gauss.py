import numpy as np


def run(n, iters):
    i = np.arange(n, dtype=np.float64)
    a = 1.0 / (np.abs(i[:, None] - i[None, :]) + 1.0) + np.sin(i[:, None] * 0.1 + i[None, :] * 0.03) + n * np.eye(n)
    for c in range(1, n):
        a[c:, c - 1:] = a[c:, c - 1:] - (a[c:, c - 1] / a[c - 1, c - 1:c])[:, None] * a[c - 1, c - 1:]
    a /= np.diagonal(a)[:, None]
    return [a.sum(), np.abs(a).sum(), a[n - 1, n - 1], a[0, :].sum()]
