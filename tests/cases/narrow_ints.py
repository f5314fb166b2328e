#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/narrow_ints.arr: the same statements in
NumPy, printing the values its `# out:` lines hold. A printed dtype counts
as its width in bits, the digits of Arr's name for it (`u8`, `i16`); a
`sum` or `prod` of unsigned integers is uint64 in NumPy and i64 in Arr,
64 bits either way.

    python3 tests/cases/narrow_ints.py     # prints OK or the first mismatch
"""

import numpy as np

from case_values import Printed, compare


def bits(x):
    return np.dtype(x.dtype).itemsize * 8


def oracle():
    out = Printed()
    a = np.array([200, 100, 5, 17], dtype=np.uint8)
    out += [a + a, a * 3, a - 6, -a]
    out += [~a, a << 1, a >> 2, a & 15, a | 1, a ^ 255]
    out += [a // 7, a % 7, a**2, a > 100, np.maximum(a, 150)]
    out += [a.sum(), a.prod(), a.max(), a.argmin(), np.cumsum(a)]
    out += [bits(a + a), bits(a.sum()), bits(a.max())]
    b = np.array([-128, -1, 3, 127], dtype=np.int8)
    with np.errstate(over="ignore"):
        out += [b + b, b * b, np.abs(b), b // 2, b % 5, b // -1]
    out += [a + b, bits(a + b)]
    s = np.array([-30000, 30000], dtype=np.int16)
    w = np.array([60000, 7], dtype=np.uint16)
    out += [s * 2, w + w, s + w, bits(s + w), bits(w + a[:2].astype(np.int8))]
    u = np.array([4000000000, 5], dtype=np.uint32)
    out += [u + u, u // 3, u > 4000000, u * u, bits(u + b[:2]), bits(u + s)]
    out += [a.astype(np.float32) / np.float32(4.0), np.array([1.5, 255.9, 7.0]).astype(np.uint8), u.astype(np.float64)]
    m = a.reshape(2, 2)
    out += [m @ m, np.sort(a), np.argsort(a, kind="stable"), np.where(a > 50, a, 1)]
    out += [np.concatenate([a, np.array([1, 2], dtype=np.uint8)]), a[a > 50], m.min(axis=1)]
    c = a.copy()
    c[c > 50] = 0
    c[1:3] += 250
    out.append(c)
    return out


if __name__ == "__main__":
    compare("narrow_ints", np.concatenate([np.ravel(x) for x in oracle()]))
