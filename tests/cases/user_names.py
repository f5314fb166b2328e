#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/user_names.arr: the library's functions
computed with NumPy's own names, whatever the script binds (a dtype such as
`f32` is not printed).

    python3 tests/cases/user_names.py     # prints OK or the first mismatch
"""

import numpy as np

from case_values import Printed, compare


def oracle():
    out = Printed()
    out += [3, 2, 42, 4]
    out += [np.deg2rad(180.0), np.sinc(np.array([0.5]))]
    out += [np.std([1.0, 3.0]), np.cov([1.0, 2.0, 3.0])]
    out += [np.nanargmax([np.nan, -2000.0, -3000.0]), np.isnan(np.nanmedian([np.nan]))]
    out += [np.nanmedian([1.0, np.nan, 3.0, 4.0]), np.logaddexp(-np.inf, 0.0)]
    out.append(np.gradient((np.arange(6.0) ** 2).reshape(2, 3), axis=1))
    out += [2 * 3, 42]
    out += [np.round(np.linalg.norm(np.array([100000, 100000], np.int32))), np.linalg.norm([4000000000, 1])]
    z = np.array(5.0)
    out += [z[()], z[()] + 1, np.arange(3)[()]]
    return out


if __name__ == "__main__":
    compare("user_names", np.concatenate([np.ravel(x) for x in oracle()]))
