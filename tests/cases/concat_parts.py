#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/concat_parts.arr: the same statements in
NumPy, compared number by number with the case's `# out:` lines (booleans
as 1 and 0).

    python3 tests/cases/concat_parts.py     # prints OK or the first mismatch
    python3 tests/cases/concat_parts.py -v  # also prints NumPy's values
"""
import sys

import numpy as np

from case_values import expected


def oracle():
    out = []

    def show(*xs):
        out.append([np.array(x, dtype=np.float64).ravel() for x in xs])

    a = np.arange(6, dtype=np.float64)
    b = np.arange(4, dtype=np.float64)
    show(np.concatenate([a * 2.0, b + 1.0]))
    m = np.arange(9).reshape(3, 3)
    show(np.roll(m * 10, (1, 1), axis=(0, 1)))
    show(np.roll(np.roll(np.arange(5) + 1, 2), 2), np.roll(m - 1, -1))
    c = np.concatenate([a * 2.0, b + 1.0])
    show(np.concatenate([c[::3] + 0.5, -b]))
    show(np.roll(c, 1).sum(), np.roll(c, 1)[0], c[9])
    show(np.concatenate([m > 4, m < 1], axis=1))
    show(np.concatenate([m * 2, np.zeros((0, 3), dtype=np.int64), m.T + 100]))
    show(np.concatenate([np.sqrt(a * a), b * 0.5]).sum(),
         np.concatenate([np.ones((2, 1), np.float16), np.zeros((2, 1), np.float16)], axis=1))
    v = np.arange(3, dtype=np.float32)
    show(np.concatenate([np.broadcast_to(v * 2.0, (2, 3)), np.broadcast_to((v + 1.0)[:, None], (3, 3))]))
    t = np.arange(24).reshape(2, 3, 4)
    show(np.roll(t + 0, (1, -1, 1), axis=(0, 1, 2))[0])
    s = np.arange(12).reshape(3, 4)
    s[:, :] = np.roll(s * 1, 1, axis=1)
    s[1:, :] = np.roll(s[1:, :] + 0, (1, 2), axis=(0, 1))
    show(s)
    g = np.arange(300 * 400).reshape(300, 400).astype(np.float64)
    r = np.roll(g * 2.0 + 1.0, (7, -3), axis=(0, 1))
    show(r.sum(), r[0, 0], r[299, 399], r[7, 3])
    show(np.concatenate([g * 0.5, g[:, :100] - 1.0], axis=1).sum(), np.concatenate([g[::2], g[1::2]]).sum())
    u = np.arange(30).reshape(6, 5).astype(np.float64)
    show(u + 0.1 * (np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) + np.roll(u, 1, axis=1) + np.roll(u, -1, axis=1) - 4.0 * u))
    show((np.roll(u, 1, axis=0) * 2.0).sum(), np.roll(u, 2, axis=0).T + u.T * 0.5)
    show(np.roll(u, 1, axis=0)[::2, ::-2] + 1.0, np.roll(u, -2, axis=1)[::-1, :][1] * 2.0)
    ru = np.roll(u, 1, axis=1)
    show(ru + u, ru[0])
    g = np.zeros((6, 6), dtype=np.int32)
    g[0, 1] = 1
    g[1, 2] = 1
    g[2, 0:3] = 1
    for _ in range(4):
        nb = sum(np.roll(g, s, axis=(0, 1)) for s in [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)])
        g = np.where((nb == 3) | ((g == 1) & (nb == 2)), 1, 0)
    show(g)
    h = np.arange(300 * 400).reshape(300, 400).astype(np.float64)
    lap = np.roll(h, 3, axis=0) + np.roll(h, -5, axis=1) - 2.0 * h
    show(lap.sum(), lap[0, 0], lap[299, 399], lap[2, 396])
    sa = np.arange(12).reshape(3, 4).astype(np.float64)
    sa[:, :] = sa + np.roll(sa, 1, axis=0) * 10.0
    show(sa)
    sb = np.arange(12).reshape(3, 4).astype(np.float64)
    sb[1:, 1:] = sb[1:, 1:] - np.roll(sb[1:, 1:], 1, axis=1)
    show(sb)
    return out




if __name__ == "__main__":
    printed = oracle()
    if "-v" in sys.argv:
        for line in printed:
            print(" | ".join(" ".join(repr(float(v)) for v in x) for x in line))
    want = np.concatenate([x for line in printed for x in line])
    got = expected("concat_parts")
    assert want.shape == got.shape, (want.shape, got.shape)
    bad = np.nonzero(want != got)[0]
    print("OK" if bad.size == 0 else f"mismatch at value {bad[0]}: NumPy {want[bad[0]]}, case {got[bad[0]]}")
