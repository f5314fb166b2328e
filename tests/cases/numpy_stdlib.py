#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/numpy_stdlib.arr: the same calls in NumPy,
compared number by number with the case's `# out:` lines (booleans as 1 and
0, nan equal to nan).

    python3 tests/cases/numpy_stdlib.py     # prints OK or the first mismatch
"""
import sys

import numpy as np

from case_values import expected


def oracle():
    out = []

    def show(*xs):
        out.append([np.array(x, dtype=np.float64).ravel() for x in xs])

    x = np.arange(12).reshape(3, 4).astype(np.float64)
    n = np.nan
    show(np.ptp(x), np.ptp(x, axis=0), np.deg2rad(180.0), np.degrees(np.pi), np.radians(90.0), np.rad2deg(1.0))
    show(np.fmax([1.0, n, n, 3.0], [n, 2.0, n, 4.0]), np.fmin([1.0, 5.0], [0.5, n]))
    show(np.logaddexp(1.0, 2.0), np.logaddexp(-np.inf, -np.inf), np.logaddexp(np.inf, 1.0),
         np.logaddexp([0.0, 800.0], [0.0, 1.0]))
    show(np.heaviside([-1.0, 0.0, 2.0, n], 0.5))
    show(np.nanvar([1.0, n, 3.0]), np.nanstd([[1.0, 2.0], [n, 4.0]], axis=0), np.nanvar([1.0, 2.0, n], ddof=1))
    show(np.fliplr(x)[0], np.flipud(x)[0], np.ediff1d([[1, 4], [9, 16]]))
    show(np.swapaxes(np.zeros((2, 3, 4)), 0, -1).shape, np.moveaxis(np.zeros((2, 3, 4)), 0, -1).shape,
         np.moveaxis(np.zeros((2, 3, 4)), -1, 0).shape)
    show(np.swapaxes(x, 0, 1)[1], np.moveaxis(np.arange(6).reshape(1, 2, 3), 2, 0)[2])
    show(np.polyval([3.0, 0.0, 1.0], [1.0, 2.0]), np.vdot(x, x), np.polyval([2.0], 5.0))
    show(np.logspace(0.0, 2.0, 3), np.logspace(0.0, 3.0, 3, endpoint=False, base=2.0))
    show(np.trapezoid([1.0, 2.0, 3.0]), np.trapezoid(x, axis=0), np.trapezoid(x, dx=0.5))
    obs = np.array([[1.0, 2.0, 4.0, 7.0], [2.0, 1.0, 0.0, 5.0], [0.5, 0.5, 3.0, 1.0]])
    show(np.cov(obs))
    show(np.cov([1.0, 2.0, 4.0]), np.cov(obs.T, rowvar=False)[0], np.cov(obs, ddof=0)[1])
    show(np.corrcoef(obs))
    show(np.isin([1, 2, 3, 4], [2, 4]), np.isin([[1.0, n], [3.0, 2.0]], [2.0, n]))
    show(np.digitize([0.5, 1.0, 2.5, 9.0], [1.0, 2.0, 3.0]), np.digitize([1.0, 2.0], [1.0, 2.0], right=True))
    show(np.kron([[1, 2], [3, 4]], [[1, 10], [100, 1000]]), np.kron([1, 2], [1, 10]))
    return out




if __name__ == "__main__":
    want = np.concatenate([x for line in oracle() for x in line])
    got = expected("numpy_stdlib")
    assert want.shape == got.shape, (want.shape, got.shape)
    same = np.isclose(want, got, rtol=1e-12, atol=0, equal_nan=True)
    bad = np.nonzero(~same)[0]
    print("OK" if bad.size == 0 else f"mismatch at value {bad[0]}: NumPy {want[bad[0]]}, case {got[bad[0]]}")
    sys.exit(0 if bad.size == 0 else 1)
