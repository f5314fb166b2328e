#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/numpy_habits.arr: the same statements in
NumPy 2, printing OK when the values match the case's `# out:` lines.

    python3 tests/cases/numpy_habits.py
"""

import numpy as np

from case_values import Printed, compare


def oracle():
    out = Printed()
    a = np.array([1, 5, 2], dtype=np.uint8)
    out += [a.max() - a, np.ptp(a), a == a.max(), a.min() + a]
    b = np.array([-128, -1, 3, 127], dtype=np.int8)
    out += [b.min() + b, b.max() - b]
    s = np.array([-30000, 30000], dtype=np.int16)
    out.append((s - s.min()) // 2)
    img = np.array([10, 128, 250], dtype=np.uint8)
    out += [np.clip(img, -20, 300), np.clip(img, 100, 300), np.clip(np.array([5, -3], dtype=np.int32), 0, 4294967296)]
    m = np.arange(4).reshape(2, 2)
    out.append(np.concatenate([m, m[:1]], axis=None))
    inf, nan = np.inf, np.nan
    out += [np.median([1.0, inf, inf]), np.median([inf, inf]), np.median([1.0, 2.0, 4.0, 8.0]), np.median([3, 1, 2])]
    out += [np.nanmedian([inf, inf, nan]), np.nanmedian([1.0, nan, 4.0, 2.0]), np.nanquantile([1.0, 2.0, nan, 4.0], 0.75)]
    c = np.arange(12).reshape(3, 4)
    w = c[:, 1].reshape(3)
    w[0] = 55
    t = c[:, 1:3].reshape(3, 2)
    t[1, 1] = 42
    u = c[:, ::2].reshape(3, 1, 2)
    u[2, 0, 1] = -1
    out.append(c)
    A = np.array([[1.0, -2.0], [3.0, 4.0]])
    n = np.linalg.norm
    out += [n(A, 1, axis=(0, 1)), n(A, inf, axis=(0, 1)), n(A, -1, axis=(1, 0)), n(A, "fro", axis=(0, 1))]
    B = np.stack([A, 2.0 * A, A.T])
    out += [n(B, 1, axis=(1, 2)), n(B, -inf, axis=(2, 1))]
    out += [n(B, inf, axis=(1, 2), keepdims=True).shape, n(B, "fro", axis=(0, 2), keepdims=True).shape]
    out += [(3,), True, (2,), (4,), (2, 3)]
    f = np.array([[1.0, 2.0, 4.0, 7.0, 11.0], [2.0, 4.0, 8.0, 14.0, 22.0]])
    gy, gx = np.gradient(f)
    hy, hx = np.gradient(f, 0.5, 2.0)
    out += [gy[1], gx[1], hy[0, 2], hx[0, :2], np.gradient(f, axis=(1,))[0, 4], np.gradient(f, axis=-1)[1, 0]]
    out += [np.linspace(-1, 1, 5, dtype=np.int64), np.linspace(0, 10, 4, dtype=np.int32), np.take(np.arange(3), [])]
    out.append(np.linalg.cond(np.zeros((2, 2))))
    run = np.array([1.0, 2.0, 3.0, 4.0])
    for k, v in enumerate(run):
        if k + 1 < 4:
            run[k + 1] = run[k + 1] + v
    out.append(run)
    out += [np.asin(0.5), np.atan(1.0), np.asinh(1.0), np.pow(2, 10), np.pow([2.0, 3.0], 2)]
    x3 = np.arange(24).reshape(2, 3, 4)
    out += [np.permute_dims(x3, [2, 0, 1]).shape, np.matrix_transpose(x3).shape, np.vecdot([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0])]
    out += [np.cumulative_sum([1, 2, 3], include_initial=True), np.cumulative_sum(np.arange(6).reshape(2, 3), axis=1),
            np.cumulative_prod([1, 2, 3], include_initial=True)]
    out += [np.fabs([-1, 2]), np.positive([1.5, -2.0]), np.isposinf([inf, -inf, 1.0]), np.isneginf([inf, -inf, nan]),
            np.logaddexp2(1.0, 1.0), np.logaddexp2(3.0, 1.0)]
    out += [np.gcd([12, -20, 0, 7], [18, 8, 0, 0]), np.lcm([4, -6, 0], [6, 4, 5]), np.gcd(12, 18)]
    return out


if __name__ == "__main__":
    compare("numpy_habits", np.concatenate([np.ravel(x) for x in oracle()]))
