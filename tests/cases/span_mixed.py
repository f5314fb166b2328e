#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/span_mixed.arr.

    python3 tests/cases/span_mixed.py     # prints OK or the first mismatch
"""

import numpy as np

from case_values import Printed, compare


def oracle():
    out = Printed()
    g = np.arange(66 * 40, dtype=np.float64).reshape(66, 40) * 0.01
    t = g[1:-1, 1:-1].copy() * 2.0
    col = np.arange(64) * 0.5
    row = np.arange(38) - 3.0
    for _ in range(2):
        a = g[1:-1, 2:] + g[1:-1, :-2] - t * col[:, None] + row[None, :]
        b = a * g[2:, 1:-1] - g[:-2, 1:-1] / (1.0 + t)
        c = np.sqrt(np.abs(a)) + b
        g[1:-1, 1:-1] = 0.5 * g[1:-1, 1:-1] + 0.001 * (g[1:-1, 2:] - g[1:-1, :-2])
    out += [round(a.sum(), 6), round(b.sum(), 6), round(c.sum(), 6), round(b.max(), 6)]
    v = np.arange(64 * 101, dtype=np.float64).reshape(64, 101) * 0.001
    for _ in range(30):
        v = 0.5 * (v[:, 1:] + v[:, :-1]) + col[:, None] * 0.01
        v = np.maximum(v, row[None, :1] + 0.1)
    out += [round(v.sum(), 6), v.shape[1]]
    return np.concatenate([np.ravel(np.asarray(o, dtype=np.float64)) for o in out])


if __name__ == "__main__":
    compare("span_mixed", oracle())
