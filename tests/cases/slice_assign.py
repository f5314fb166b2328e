#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/slice_assign.arr: the same statements in
NumPy, printing the values its `# out:` lines hold (NumPy's own print
format; the check below compares the numbers, not the layout).

    python3 tests/cases/slice_assign.py     # prints OK or the first mismatch
"""

import numpy as np

from case_values import Printed, compare


def oracle():
    out = Printed()
    a = np.arange(6); b = a; c = a * 2; v = a[1:4]
    a[0] = 10; v[1] = 20
    out += [a, b, c, v]
    s = a.copy(); a[5] = -1
    out += [s[5], a[5]]
    x = np.arange(6); x[1:] = x[:-1]; out.append(x)
    y = np.arange(6); y[:-1] = y[1:]; out.append(y)
    r = np.arange(6); r[:] = r[::-1]; out.append(r)
    u = np.array([0.0, 4, 8, 0, 8, 4]); u[1:-1] = (u[:-2] + u[2:]) / 2; out.append(u)
    m = np.arange(12.0).reshape(3, 4) + 1
    m[1:, 0] = m[1:, 0] / m[0, 0]
    m[1:, 1:] = m[1:, 1:] - m[1:, 0:1] * m[0:1, 1:]
    out.append(m)
    g = np.zeros((3, 3), dtype=np.int64); g[1:, :] = [7, 8, 9]; g[:, 0:1] = g[:, 2:3]; g[0] += g[2]
    out.append(g)
    h = np.arange(9).reshape(3, 3); h[1:] -= h[:-1]; out.append(h)
    t = np.arange(6).reshape(2, 3); tt = t.T; tt[1] = [-1, -2]; t[:, ::2] *= 10; out.append(t)
    k = np.arange(8); kb = k; k[k > 4] = k[k > 4] * 10; k[k < 2] += 100
    out += [k, kb]
    w = np.arange(5) * 1.5; w[[0, 4]] = w[[4, 0]]; w[[1, 1]] = [7.0, 8.0]; out.append(w)
    q = np.ones(4, dtype=np.float32)
    for i in range(4):
        t2 = q * 2.0
        q[i] = t2[i] + q.sum()
    out.append(q)
    glob = np.zeros(3, dtype=np.int64); alias = glob; glob[1] = 5; glob[-1] = 9; out.append(alias)
    z2 = np.arange(5)
    for j in range(1, 3):
        z2[-j] = z2[j - 1] * 10 + z2[2 * j]
    out.append(z2)
    x3 = np.arange(24).reshape(2, 3, 4)
    out += [x3[1, :, [0, 3]], x3[:, 1, [0, 3]], x3[1, ..., [0, 3]]]
    z3 = np.arange(30).reshape(2, 3, 5)
    out += [z3[0, :, [[0], [1]]], z3[1, :, z3[0, 0] > 2]]
    z3[1, :, [0, 3]] = np.arange(6).reshape(2, 3) * 100
    z3[0, :, [1, 2]] += 1000
    out.append(z3)
    e5 = np.arange(5)
    m23 = np.arange(6).reshape(2, 3)
    e5[[]] = 7
    out += [e5[[]].shape, m23[[]].shape, m23[:, []].shape, e5]
    d = np.arange(12.0).reshape(3, 4)
    out += [d[np.arange(3), [1, 3, 0]], d[[-1, 0], [-1, -2]]]
    x4 = np.arange(24).reshape(2, 3, 4)
    out += [x4[[0, 1], [2, 0]], x4[[0, 1], :, [1, 3]], x4[:, [0, 2], [1, 3]], x4[[[0], [1]], [0, 2]]]
    out += [x4[1, [0, 2], [3, 1]], x4[[1, 0], 2, [3, 1]], x4[1][[True, False, True], [0, 3]]]
    d[np.arange(3), [1, 3, 0]] = -1.0
    out.append(d)
    x4[[0, 1], :, [1, 3]] = np.arange(6).reshape(2, 3) * 100
    x4[:, [0, 0], [2, 2]] += 1000
    out.append(x4)
    a6 = np.arange(6).reshape(2, 3)
    out += [a6[np.nonzero(a6 > 2)], a6[np.where(a6 < 2)]]
    b6 = np.arange(16).reshape(4, 4)
    out += [b6[np.triu_indices(4, 1)], b6[np.tril_indices(4)], b6[np.diag_indices(4)]]
    b6[np.triu_indices(4, 1)] = 0
    out.append(b6)
    c6 = np.arange(24).reshape(2, 3, 4)
    out.append(c6[np.nonzero(c6[:, :, 0] > 4)])
    with np.errstate(over="ignore"):
        out += [np.array([2147483647], dtype=np.int32) + 1, np.array([16777216.0], dtype=np.float32) + 1.0,
                np.asarray([3], dtype=np.int32) * 2147483647]
    grid = np.zeros((4, 4)); center = grid[1:-1, 1:-1]; center += 1.0; out.append(grid.sum())
    p7 = np.arange(6); q7 = p7; q7 += 10
    for row in p7.reshape(2, 3):
        row *= 2
    out.append(p7)

    def bump(x):
        x -= 1
        return x
    r7 = np.ones(3); s7 = bump(r7); out += [r7, s7]
    f7 = np.zeros(3, dtype=np.float32); g7 = f7; f7 += np.arange(3) * 1.5; f7 /= 2; out += [g7, f7.dtype == np.float32]
    w7 = np.ones(3); u7 = w7; w7 += w7[::-1] * np.arange(3); out.append(u7)
    n7 = 1; n7 += 0.5; o7 = np.arange(3).sum(); v7 = o7; o7 += 1; out += [n7, v7, o7]
    return np.concatenate([np.ravel(np.asarray(o, dtype=np.float64)) for o in out])


if __name__ == "__main__":
    compare("slice_assign", oracle())
