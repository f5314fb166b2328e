#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/numpy_stdlib_more.arr: the same calls in NumPy,
compared number by number with the case's `# out:` lines.

    python3 tests/cases/numpy_stdlib_more.py     # prints OK or the first mismatch
"""
import numpy as np

from case_values import Printed, compare


def oracle():
    out = Printed()
    out.append(np.kron(np.arange(3), np.arange(4).reshape(2, 2)))
    out.append(np.kron(np.array([1, 2]), np.array([[1, 1]])))
    out.append(np.kron(np.arange(4).reshape(2, 2), [1, 10]))
    out += [np.kron([1, 2], [1, 10]), np.kron([[1, 2], [3, 4]], [[1, 10], [100, 1000]])]
    k3 = np.kron(np.arange(6).reshape(1, 2, 3), np.arange(4).reshape(2, 2))
    out += [k3.shape, np.kron(np.ones((2, 1, 3)), np.ones((4, 2))).shape, np.sum(k3)]
    out += [k3[0, 1], k3[0, :, 5]]
    out += [np.kron(3, [1, 2]), np.kron([1.5, 2.0], 2), np.kron(2, 3)]
    out += [np.isin([1, 2, 3, 4], [2, 4], invert=True), np.isin([[1, 5], [3, 2]], [2, 3], invert=True)]
    out += [*np.divmod(7, 2), *np.divmod([7, -7, 7], [2, 2, -2])]
    out += [*np.divmod(7.5, 2.0), *np.divmod([-7.5, 1.0], 2)]
    out += [np.swapaxes(np.zeros((2, 3, 4)), -3, -1).shape, np.moveaxis(np.zeros((2, 3, 4)), -3, 2).shape]
    out += [2, 2, 0]  # normalize_axis_index(-1, 3), (2, 3), (-3, 3)
    out.append(np.rot90(np.arange(6).reshape(2, 3), axes=(1, 0)))
    out.append(np.rot90(np.arange(6).reshape(2, 3), k=2, axes=(-1, -2)))
    out.append(np.average(np.arange(6).reshape(2, 3), axis=-1, weights=[1, 2, 3]))
    out.append(np.gradient((np.arange(6) * 1.0).reshape(2, 3) ** 2, axis=-1))
    a6 = np.arange(6).reshape(2, 3)
    out += [np.take_along_axis(a6, np.array([[2], [0]]), axis=-1), np.delete(a6, 1, axis=-1)]
    g = np.zeros((3, 4))
    g[[0, 2]] = np.ones((1, 2, 4))
    g[1:2] = [[5, 6, 7, 8]]
    out.append(g)
    return np.concatenate([np.ravel(o) for o in out])


if __name__ == "__main__":
    compare("numpy_stdlib_more", oracle())
