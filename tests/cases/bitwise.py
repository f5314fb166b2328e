#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/bitwise.arr: the same statements in NumPy,
printing the values its `# out:` lines hold (the check below compares the
numbers, not the layout).

    python3 tests/cases/bitwise.py     # prints OK or the first mismatch

Arr has bool, i32 and i64 (no 8/16-bit or unsigned integers); where NumPy
gives int8 (a shift of two bools) Arr gives i64, with the same values.
"""

import numpy as np

from case_values import Printed, compare


def oracle():
    out = Printed()
    i32, i64 = np.int32, np.int64
    a = np.array([-7, -1, 0, 1, 5, 12, 100, 2147483647], dtype=i32)
    b = np.array([3, -2, 7, 1, 4, 10, 6, -8], dtype=i32)
    out += [a & b, a | b, a ^ b, ~a]
    w = a.astype(i64) * 1000000007
    out += [w & 255, w | (1 << 40), w ^ -1, ~w]
    k = np.array([0, 1, 31, 32, 33, 40, -1, 3], dtype=i32)
    out += [a << k, a >> k]
    k64 = np.array([0, 1, 63, 64, 65, 100, -1, 3], dtype=i64)
    out += [w << k64, w >> k64]
    out += [a >> 31, w >> 63, a.astype(i64) << 62, a << 31]
    p = a > 0
    q = b > 0
    out += [p & q, p | q, p ^ q, ~p]
    out += [p & 6, p | b, (p & 6).dtype == i64, (p & b).dtype == i32, p << 1, p.astype(i64) << q, p.astype(i64) >> q]
    out += [(a & 4).dtype == i32, (a << 1).dtype == i32, (w ^ 4).dtype == i64, a & 4, 4 | a, 1 << a[3:5]]
    m = np.arange(12).reshape(3, 4)
    out.append(m & [1, 2, 4, 8])
    out.append(m[:, ::2] ^ m[::-1, 1::2])
    out.append(m.T | m[::-1, 0])
    out += [m[::-1, ::-1] >> [0, 1, 2, 3], ~m[1, ::-1], ~m.T[::2]]
    out += [(m & 5).sum(axis=0), m.astype(i32)[::2, 1:] << m[1:, :3].astype(i32)]
    s = np.int64
    out += [s(5) & 3, s(5) | 3, s(5) ^ 3, ~s(0), ~s(-5), s(1) << 4, s(-17) >> 2, s(1) << 62, s(7) >> s(70), s(3) << 0]
    t, f = np.True_, np.False_
    out += [t & f, t | f, t ^ t, ~t, ~f]
    out += [3 & m[1], m[1] << 2, 255 ^ m[2], (m[0] | 8) & 12]
    out += [1 | 2 ^ 3 & 4 << 1, (1 | 2) ^ 3, 1 + 2 << 3, 3 & 1 == 1, 16 >> 1 + 1, 2 * 3 & 5, -1 & 255, ~1 + 1, ~2 * 3]
    out += [a > (0 & b), (a > 0) & (b > 0), (a & b) == 1]
    out += [np.bitwise_and(12, [10, 6]), np.bitwise_or(12, [10, 6]), np.bitwise_xor(12, [10, 6])]
    out += [np.invert([0, 5, -1]), np.bitwise_not(p), np.bitwise_invert(a), np.left_shift(1, np.arange(4)),
            np.right_shift(-16, [1, 2, 70])]
    out += [np.logical_and(a, b), np.logical_or(a, 0), np.logical_xor(a, b)]
    c = np.arange(10)
    alias = c
    c &= 6
    c |= 1
    c ^= [1, 0, 1, 0, 1, 0, 1, 0, 1, 0]
    c <<= 3
    c >>= 1
    out.append(alias)
    fm = a > 1
    g = fm
    fm &= q
    fm |= [True, False, False, False, False, False, False, False]
    fm ^= ~q
    out.append(g)
    n = 12
    n &= 10
    n <<= 2
    n |= 1
    n >>= 1
    n ^= 3
    out.append(n)
    big = np.arange(1000)
    out += [((big & 3) + (big >> 1)).sum(), (big ^ (big >> 2)).sum(), ((big << 3) & 1023).max(), ((big & 1) == 0).sum()]
    bi = np.arange(1000, dtype=i32)
    out += [((bi | 7) - (bi & 7)).sum(), np.where((bi & 4) > 0, bi >> 2, ~bi).sum(), (~(bi & 1) ^ bi).sum(axis=0)]
    grid = np.arange(24).reshape(4, 6)
    out += [((grid & 3) << (grid >> 3)).sum(axis=1), (grid.T[::-1] ^ 21).sum(axis=0)]
    mm = np.array([[True, False, True], [False, False, True]])
    nn = np.array([[True, False], [False, False], [False, True]])
    out += [mm @ nn, (mm @ nn).dtype == np.bool_, np.array([True, False, True]) @ np.array([False, False, True])]
    x = np.array([1.5, -2.0, 3.0, -0.5])
    out += [x[~(x > 0)], x[(x > 0) & (x < 2)], x[(x < 0) | (x > 2)]]
    return np.concatenate([np.ravel(np.asarray(o, dtype=np.float64)) for o in out])


if __name__ == "__main__":
    compare("bitwise", oracle())
