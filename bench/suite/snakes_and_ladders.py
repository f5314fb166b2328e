import numpy as np


def run(n, iters):
    size = n
    p = np.zeros((size + 1, size + 1))
    for i in range(size + 1):
        p[i, i + 1:i + 7] = 1.0 / 6.0
    p[size, size] = 1.0
    for j in range(1, 7):
        p[size - j, size] = (7 - j) / 6.0
    nspecial = (size - 10) // 37
    for s in range(nspecial):
        start = 5 + 37 * s
        stop = min(start + 23, size - 1) if s % 2 == 0 else start - 4
        p[:, stop] += p[:, start]
        p[:, start] = 0.0
    v = np.zeros(size + 1)
    v[0] = 1.0
    a = np.zeros(size + 1)
    pr_end = np.zeros(iters)
    expect = 0.0
    for k in range(iters):
        pr_end[k] = v[size]
        a = a + v
        expect = expect + (1.0 - v[size])
        v = v @ p
    return [a.sum(), pr_end[iters - 1], expect, (pr_end * np.arange(iters)).sum(), p.sum()]
