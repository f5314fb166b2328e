#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/compound_ops.arr: the same statements in
Python and NumPy, printing the values its `# out:` lines hold (the check
compares the numbers, not the layout).

    python3 tests/cases/compound_ops.py     # prints OK or the first mismatch
"""

import numpy as np

from case_values import Printed, compare


def oracle():
    out = Printed()
    k = 17
    k //= 3
    k %= 4
    j = 3
    j **= 3
    m = -7
    m //= 2
    r = -7
    r %= 3
    out += [k, j, m, r]
    a = np.arange(6.0)
    a //= 2
    alias = a
    a %= 1.5
    out.append(alias)
    b = np.arange(5)
    b **= 2
    b[1:4] //= 2
    b[::2] %= 5
    out.append(b)
    f = 2.0
    f **= 0.5
    out.append(f)
    g = np.arange(12, dtype=np.float32).reshape(3, 4)
    col = g[:, 1]
    col **= 2
    g[1:, :] //= [1.0, 2.0, 3.0, 4.0]
    g %= 7.0
    out.append(g)
    return np.concatenate([np.ravel(np.asarray(o, dtype=np.float64)) for o in out])


if __name__ == "__main__":
    compare("compound_ops", oracle())
