#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/quantile_methods.arr: every `method=` of
`percentile` and `quantile`, computed by NumPy.

    python3 tests/cases/quantile_methods.py     # prints OK or the first mismatch
"""

import numpy as np

from case_values import Printed, compare

METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
           "weibull", "linear", "median_unbiased", "normal_unbiased", "lower", "higher", "midpoint", "nearest"]


def oracle():
    out = Printed()
    d = np.array([7, -3, 12, 5, 0])
    f = np.array([0.5, -1.25, 3.0, 2.0, 7.5, 1.0])
    m = (np.arange(12) * 7 % 11).reshape(3, 4)
    for method in METHODS:
        out += [np.percentile(d, [0, 10, 25, 40, 50, 75, 90, 100], method=method)]
        out += [np.quantile(f, [0.0, 0.1, 0.3, 0.5, 0.9, 1.0], method=method),
                np.percentile(m, 30, axis=1, method=method)]
    return out


if __name__ == "__main__":
    compare("quantile_methods", np.concatenate([np.ravel(x) for x in oracle()]))
