#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/signed_zero.arr: the same ties between
zeros of opposite sign, seen through 1 / x.

    python3 tests/cases/signed_zero.py     # prints OK or the first mismatch
"""

import numpy as np

from case_values import Printed, compare


def oracle():
    out = Printed()
    with np.errstate(divide="ignore"):
        a = np.array([0.0, -0.0])
        b = np.array([-0.0, 0.0])
        out += [1 / np.minimum(a, b), 1 / np.maximum(a, b)]
        out += [1 / np.fmin(a, b), 1 / np.fmax(a, b)]
        out += [1 / a.min(), 1 / b.min(), 1 / a.max(), 1 / b.max()]
        out += [1 / np.clip(b, 0.0, 1.0), 1 / np.clip(a, -1.0, -0.0)]
    return out


if __name__ == "__main__":
    compare("signed_zero", np.concatenate([np.ravel(x) for x in oracle()]))
