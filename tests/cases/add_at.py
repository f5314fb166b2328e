#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/add_at.arr: the same calls through `np.add.at`,
printing the values its `# out:` lines hold (a dtype such as `i64` counts as its
bit width).

    python3 tests/cases/add_at.py     # prints OK or the first mismatch
"""

import numpy as np

from case_values import Printed, compare


def bits(x):
    return x.dtype.itemsize * 8


def oracle():
    out = Printed()
    a = np.zeros(5)
    np.add.at(a, [0, 1, 1, 4, 1], 1.0)
    out.append(a)
    buffered = np.zeros(5)
    buffered[[0, 1, 1, 4, 1]] += 1.0
    out.append(buffered)
    c = np.full(3, 9007199254740000)
    np.add.at(c, [2, 2, -1, 0], [1, 2, 3, 4])
    out += [c - 9007199254740000, bits(c)]
    g = np.zeros((3, 2), dtype=np.float32)
    np.add.at(g, [0, 2, 0], np.arange(6.0).reshape(3, 2))
    np.add.at(g, [1, 1], [10.0, 20.0])
    out += [g, bits(g)]
    img = np.zeros((2, 3))
    np.add.at(img, ([0, 1, 0], [2, 2, 2]), [1.0, 2.0, 3.0])
    out.append(img)
    s = np.arange(4.0)
    np.add.at(s, 2, 5.0)
    np.add.at(s, s > 2.5, 100.0)
    out.append(s)
    v = np.zeros((4, 4))
    col = v[:, 1]
    np.add.at(col, [3, 3, 0], 0.5)
    out += [v[:, 1], np.sum(v)]
    b = np.zeros(3, dtype=bool)
    np.add.at(b, [1, 1], True)
    out.append(b)
    counts = np.zeros(3, dtype=np.int32)
    np.add.at(counts, np.arange(3000) % 3, 1)
    out += [counts, bits(counts)]
    return np.concatenate([np.ravel(np.asarray(o, dtype=np.float64)) for o in out])


if __name__ == "__main__":
    compare("add_at", oracle())
