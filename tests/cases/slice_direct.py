#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/slice_direct.arr: the same statements in
NumPy (which buffers a source that overlaps its destination), compared
number by number with the case's `# out:` lines.

    python3 tests/cases/slice_direct.py     # prints OK or the first mismatch
    python3 tests/cases/slice_direct.py -v  # also prints NumPy's values
"""
import sys

import numpy as np

from case_values import expected


def oracle():
    out = []

    def show(*xs):
        # a print shows the values at that moment: keep copies
        out.append([np.array(x, dtype=np.float64).ravel() for x in xs])

    a = np.arange(300 * 500).reshape(300, 500)
    a[1:-1, 1:-1] = a[1:-1, 1:-1] * 3 - 7
    show(a.sum(), a[1, 1], a[0, 5], a[298, 498], a[299, 499])
    a[1:-1, 1:-1] += a[0, 1:-1]
    a[1:-1, 0] -= a[1:-1, 499] // 2
    show(a.sum(), a[5, 7], a[7, 0], a[298, 0])
    w = np.arange(3000 * 24).reshape(3000, 24)
    w[1:, 2:22] = w[1:, 2:22] * 2 + w[:-1, 0:1]
    show(w.sum(), w[1, 2], w[2999, 21])
    b = (np.arange(20) * 1.5).reshape(4, 5)
    b[:, 0] = -b[:, 1]
    b[:, 4] = b[:, 3] * 2.0
    b[0, :] = b[3, :] + 1.0
    b[3, :] = b[0, :]
    show(b)
    u = np.arange(36.0).reshape(6, 6)
    u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    show(u[1:-1, 1:-1])
    big = np.arange(400.0 * 400).reshape(400, 400)
    big[1:-1, 1:-1] = big[:-2, 1:-1] + big[2:, 1:-1] - big[1:-1, :-2]
    show(big.sum(), big[1, 1], big[398, 398])
    t = np.zeros((3, 4), dtype=np.float32)
    tt = t.T
    tt[:, :] = np.arange(12).reshape(4, 3) * 2.0
    tt[1:, :] = tt[1:, :] + 1.0
    show(t)
    sq = np.arange(16.0).reshape(4, 4)
    sq[:, :] = sq.T + 0.5
    show(sq)
    bt = np.arange(200 * 300).reshape(200, 300)
    btt = bt.T
    btt[1:, :] = btt[1:, :] * 2 + btt[0, :]
    show(bt.sum(), bt[0, 0], bt[199, 299])
    r = np.arange(10.0)
    r[::-1] = r[::-1] * 2.0
    r[::-2] = r[::2] + 100.0
    show(r)
    r[:] = r[::-1] + 1.0
    show(r)
    s = np.arange(12).reshape(3, 4)
    s[1, :] = 7
    s[1:, 0] = s[0, :].max()
    s[:, 1] = s[:, 1].sum()
    s[2, 1:3] = s[0:1, 3] * 2 + np.zeros(2, dtype=np.int64)
    show(s)
    ai = np.zeros((3, 4), dtype=np.int32)
    ai[1:, :] = np.arange(8).reshape(2, 4) * 1.75
    ai[0, :] = ai[2, :] + 2.5
    af = np.zeros(4, dtype=np.float32)
    af[:] = np.arange(4) + 0.5
    af[1:] *= 2
    show(ai, af)
    ii = np.arange(8)
    ii[1:] = ii[1:] % 3 + ii[:1]
    show(ii)
    c = np.arange(6) * 1.0
    d = c[1:4] * 10.0
    c[1:4] = d
    pair = (c * 2.0, 1)
    c[:] = pair[0] + c
    show(c, d, pair[0])
    p = np.arange(12.0).reshape(3, 4)
    q = p
    pv = p[1:, :]
    pv[:, 1:] = q[:-1, :-1] + 1.0
    pv[0, :] = q[0, :] * 2.0
    q[2, :] = pv[1, :] * 3.0
    show(p)
    e = np.arange(16).reshape(4, 4)
    e[3, 3] = e[3, 3] * 2 + e[0, 0]
    e[2, 2] *= e[3, 3]
    show(e[2:, 2:])
    return out




if __name__ == "__main__":
    printed = oracle()
    if "-v" in sys.argv:
        for line in printed:
            print(" | ".join(" ".join(repr(float(v)) for v in x) for x in line))
    want = np.concatenate([x for line in printed for x in line])
    got = expected("slice_direct")
    assert want.shape == got.shape, (want.shape, got.shape)
    bad = np.nonzero(want != got)[0]
    print("OK" if bad.size == 0 else f"mismatch at value {bad[0]}: NumPy {want[bad[0]]}, case {got[bad[0]]}")
