#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/tuples.arr: the same statements in Python
and NumPy, printing the values its `# out:` lines hold (the check compares
the numbers, not the layout).

    python3 tests/cases/tuples.py     # prints OK or the first mismatch
"""

import numpy as np

from case_values import Printed, compare


def oracle():
    out = Printed()
    x = np.arange(24.0).reshape(2, 3, 4)
    s = x.shape
    for t in (s[1:], s[:-1], s[::-1], s[::2], s[5:]):
        out += list(t)
    out += list(s[:1] + s[1:]) + [s == (2, 3, 4), s != (2, 3, 4), s[1:] == (3,), () == s[3:]]
    out += [np.prod(s[1:]), np.sum(s), np.prod(s[:0]), np.sum((1, 2, 3))]
    out.append(x.reshape(s[0], np.prod(s[1:]))[1, 10])
    out.append(np.concatenate([s[:1], (1,), s[1:]]))
    rows, cols = x.shape[1:]
    out.append(rows * cols)
    pts = np.arange(8.0).reshape(4, 2)
    px, py = pts.T
    out += [px, py]
    first, second, third, fourth = pts
    out += [third, np.sum(fourth)]
    first[0] = 100.0
    out.append(pts[0, 0])
    out.append(np.tensordot(np.ones((2, 3, 4)), np.arange(24.0).reshape(3, 4, 2), axes=2))
    out.append(np.tensordot(np.arange(2.0), np.arange(3.0), axes=0))
    head, *tail = (1, 2, 3, 4)
    out += [head, tail]
    *init, last = (1, 2, 3)
    out += [init, last]
    p, *mid, q = (5, 6)
    out += [p, len(mid), q]
    row0, *later = np.arange(6.0).reshape(3, 2)
    out += [row0, np.sum(later)]
    for i, *rest in np.arange(6).reshape(2, 3):
        out += [i, rest]
    names = ["heat", "wave"]
    for i, name in enumerate(names):
        out.append(i)
    out.append([("x", 1), ("y", 2)][1][1])
    return np.concatenate([np.ravel(np.asarray(o, dtype=np.float64)) for o in out])


if __name__ == "__main__":
    compare("tuples", oracle())
