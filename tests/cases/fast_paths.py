#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/fast_paths.arr: integer division and
modulo by one divisor (small and beyond 2^52), scalar arithmetic as Python
computes it, products of a tall matrix's transpose with a vector, and
bincount, printing the values the case's `# out:` lines hold.

    python3 tests/cases/fast_paths.py     # prints OK or the first mismatch
"""

import numpy as np

from case_values import Printed, compare


def ck(v):
    return np.asarray(v).astype(np.int64).sum()


def oracle():
    out = Printed()
    n = 50000
    i = np.arange(n, dtype=np.int64)
    x = (i * 7919) % 20001 - 10000
    x32 = x.astype(np.int32)
    out += [ck(x // 3), ck(x % 3), ck(x // -7), ck(x % -7), ck(x // 1), ck(x % 1), ck(x // -1)]
    out += [ck(x32 // 5), ck(x32 % 5), ck(x32 // -2), ck(x32 % -2), ck(x32 // 10000), ck(x32 % 9999)]
    big = x * 1000000000000000 + 12345
    out += [ck(big // 3 % 1000003), ck(big % 1000003), ck(big // 4503599627370497 % 97)]
    m = np.array([-2147483648, -7, 0, 7, 2147483647], dtype=np.int32)
    out += [m // 2, m % 2, m // -3, m % -3, m // 2147483647]
    u = (i % 256).astype(np.uint8)
    out += [ck(u // 3), ck(u % 7), ck((u * np.uint8(3)) // 5), ck(((i % 256) - 128).astype(np.int8) // -3)]
    s, t = 0, 0.0
    for k in range(200):
        s = s + k % 7 - k // 3 + (k % 5) ** 2 + (-k) // 4 + (-k) % 6
        t = t + (k * 0.5) % 3.0 + (k * 0.75) // 2.0 + (k * 0.1) ** 2 + k**0.5
    out += [s, t]
    X = ((i * 31) % 17 - 8).reshape(n // 10, 10).astype(np.float64)
    g = ((i[: n // 10] * 13) % 11 - 5).astype(np.float64)
    out += [ck(X.T @ g), (g @ X)[:5], X[:, :3].T @ g]
    idx = (i * 2654435761) % 1021
    out += [ck(np.bincount(idx) * np.arange(1021)), ck(np.bincount(idx, minlength=1500)), np.bincount(idx)[:5],
            ck(np.bincount(u))]
    a = 5
    b = a
    a = a + 1
    c = 2.5
    c = c * c - c
    c = c + c
    z = 1
    z = z + 0.5
    k, total = 0, 0
    while k < 10:
        total = total + k * k - k % 3
        k = k + 1
    out += [a, b, c, z, k, total, sum(j // 2 for j in range(10))]
    return out


if __name__ == "__main__":
    compare("fast_paths", np.concatenate([np.ravel(x) for x in oracle()]))
