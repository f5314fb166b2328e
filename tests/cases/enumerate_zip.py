#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/enumerate_zip.arr: the same statements in
Python and NumPy, printing the values its `# out:` lines hold (the check
compares the numbers, not the layout).

    python3 tests/cases/enumerate_zip.py     # prints OK or the first mismatch
"""

import numpy as np

from case_values import Printed, compare


def oracle():
    out = Printed()
    x = np.array([10.0, 20.0, 30.0])
    acc = 0.0
    for i, v in enumerate(x):
        acc += i * v
    out.append(acc)
    for i, v in enumerate(x, start=1):
        out.append(i * v)
    m = np.arange(6).reshape(3, 2)
    for w, (p, q) in zip((2, 3), m):
        out.append(w * (p + q))
    for p, q in m:
        out.append(p * q)
    for pair in list(enumerate((7, 8))) + list(zip([1, 2, 3], (4, 5))):
        out += list(pair)
    rows = np.zeros((3, 2))
    for k, row in enumerate(rows):
        row[:] = k
    out.append(rows.sum(axis=1))
    return np.concatenate([np.ravel(np.asarray(o, dtype=np.float64)) for o in out])


if __name__ == "__main__":
    compare("enumerate_zip", oracle())
