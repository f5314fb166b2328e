#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/numpy_stdlib.arr: the same calls in NumPy,
compared number by number with the case's `# out:` lines (booleans as 1 and
0, nan equal to nan).

    python3 tests/cases/numpy_stdlib.py     # prints OK or the first mismatch
"""
import sys
import warnings

import numpy as np

from case_values import expected


def oracle():
    out = []

    def show(*xs):
        out.append([np.array(x, dtype=np.float64).ravel() for x in xs])

    x = np.arange(12).reshape(3, 4).astype(np.float64)
    n = np.nan
    show(np.ptp(x), np.ptp(x, axis=0), np.deg2rad(180.0), np.degrees(np.pi), np.radians(90.0), np.rad2deg(1.0))
    show(np.fmax([1.0, n, n, 3.0], [n, 2.0, n, 4.0]), np.fmin([1.0, 5.0], [0.5, n]))
    show(np.logaddexp(1.0, 2.0), np.logaddexp(-np.inf, -np.inf), np.logaddexp(np.inf, 1.0),
         np.logaddexp([0.0, 800.0], [0.0, 1.0]))
    show(np.heaviside([-1.0, 0.0, 2.0, n], 0.5))
    show(np.nanvar([1.0, n, 3.0]), np.nanstd([[1.0, 2.0], [n, 4.0]], axis=0), np.nanvar([1.0, 2.0, n], ddof=1))
    show(np.fliplr(x)[0], np.flipud(x)[0], np.ediff1d([[1, 4], [9, 16]]))
    show(np.swapaxes(np.zeros((2, 3, 4)), 0, -1).shape, np.moveaxis(np.zeros((2, 3, 4)), 0, -1).shape,
         np.moveaxis(np.zeros((2, 3, 4)), -1, 0).shape)
    show(np.swapaxes(x, 0, 1)[1], np.moveaxis(np.arange(6).reshape(1, 2, 3), 2, 0)[2])
    show(np.polyval([3.0, 0.0, 1.0], [1.0, 2.0]), np.vdot(x, x), np.polyval([2.0], 5.0))
    show(np.logspace(0.0, 2.0, 3), np.logspace(0.0, 3.0, 3, endpoint=False, base=2.0))
    show(np.trapezoid([1.0, 2.0, 3.0]), np.trapezoid(x, axis=0), np.trapezoid(x, dx=0.5))
    obs = np.array([[1.0, 2.0, 4.0, 7.0], [2.0, 1.0, 0.0, 5.0], [0.5, 0.5, 3.0, 1.0]])
    show(np.cov(obs))
    show(np.cov([1.0, 2.0, 4.0]), np.cov(obs.T, rowvar=False)[0], np.cov(obs, ddof=0)[1])
    show(np.corrcoef(obs))
    show(np.isin([1, 2, 3, 4], [2, 4]), np.isin([[1.0, n], [3.0, 2.0]], [2.0, n]))
    show(np.digitize([0.5, 1.0, 2.5, 9.0], [1.0, 2.0, 3.0]), np.digitize([1.0, 2.0], [1.0, 2.0], right=True))
    show(np.kron([[1, 2], [3, 4]], [[1, 10], [100, 1000]]), np.kron([1, 2], [1, 10]))
    # more of NumPy's names; `==` with none and between strings
    w = np.arange(12).reshape(3, 4).astype(np.float64)
    nan = np.nan
    show(np.average(w), np.average(w, axis=1), np.average(w, axis=0, weights=[1.0, 2.0, 3.0]),
         np.average([1.0, 2.0], weights=[3.0, 1.0]))
    show(np.rot90(w)[0], np.rot90(w, 2)[0], np.rot90(w, 3)[0], np.rot90(w, -1)[1],
         np.rot90(np.zeros((2, 3, 4)), axes=(1, 2)).shape, np.rot90(np.arange(8).reshape(2, 2, 2), axes=(1, 2))[1])
    show(np.geomspace(1.0, 1000.0, 4), np.geomspace(-1.0, -16.0, 3), np.geomspace(2.0, 32.0, 4, endpoint=False))
    show(np.atleast_1d(3.0).shape, np.atleast_2d([1, 2]).shape, np.atleast_3d([1, 2]).shape, np.atleast_3d(w).shape)
    show(np.append([1, 2], [[3], [4]]), np.append(w, w, axis=1)[0])
    show(np.gradient([1.0, 2.0, 4.0, 7.0, 11.0]), np.gradient(w * w, axis=1)[1], np.gradient([1.0, 4.0, 9.0], 0.5))
    show(np.convolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5]), np.convolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5], mode="same"),
         np.convolve([1.0, 2.0, 3.0, 4.0], [1.0, -1.0], mode="valid"))
    show(np.convolve([1.0, 2.0], [1.0, 2.0, 3.0, 4.0], mode="same"), np.convolve([1, 2, 3], [1, 1]),
         np.convolve([2.0], [1.0, 2.0, 3.0], mode="same"))
    show(np.correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5]), np.correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5], mode="full"),
         np.correlate([1.0, 2.0, 3.0, 4.0], [1.0, 2.0], mode="same"))
    show(np.correlate([1.0, 2.0], [1.0, 2.0, 3.0], mode="full"), np.correlate([1.0, 2.0], [1.0, 2.0, 3.0], mode="same"),
         np.correlate([1.0, 2.0], [1.0, 2.0, 3.0]))
    show(np.tensordot(w, w, axes=2), np.tensordot(w, w.T, axes=1)[2], np.tensordot(np.ones((2, 3, 4)), np.ones((3, 4, 5))).shape,
         np.inner([1.0, 2.0], [3.0, 4.0]), np.inner(w, w)[1])
    show(np.nancumsum([1.0, nan, 2.0]), np.nancumprod([2.0, nan, 3.0]), np.nanprod([[1.0, nan], [3.0, 4.0]], axis=0),
         np.nanargmax([1.0, nan, 3.0, 2.0]), np.nanargmin([[nan, 1.0], [0.0, 5.0]], axis=1))
    show(np.sinc([0.0, 0.5, -1.5]), np.fix([-2.5, 2.5]), np.rint([0.5, 1.5, -2.5]), np.around([1.234, 5.678], 1),
         np.reciprocal([2.0, 4.0]), np.absolute([-1, 2]))
    show(np.signbit([-0.0, 0.0, -2.0, 3.0]), np.copysign([1.0, -2.0, 3.0], [-1.0, 1.0, -0.0]))
    show(np.vander([1.0, 2.0, 3.0])[2], np.vander([1.0, 2.0], 3, increasing=True)[1],
         np.abs(np.polyfit([0.0, 1.0, 2.0, 3.0], [1.0, 3.0, 7.0, 13.0], 2) - 1.0) < 1e-12)
    show(*np.tril_indices(3), *np.triu_indices(3, 1), *np.tril_indices(2, m=3), *np.diag_indices(2))
    show(np.dstack(([1, 2], [3, 4])), np.dstack((np.ones((2, 3)), np.ones((2, 3)))).shape,
         np.dstack((np.ones((2, 2, 1)), np.zeros((2, 2, 2)))).shape)
    show(True, True, "full" == "full", "a" != "b", np.array(w.shape))  # none == none, 1 != none
    show(np.array([1.5, -2.5]).astype(np.int32), np.array([1, 2]).astype(np.float64))
    s6 = np.arange(6) * 1.0
    show(np.select([s6 < 2, s6 > 3], [s6, s6 * s6], 42.0), np.select([s6 < 2.0], [s6], default=-1.0))
    show(np.extract(s6 > 2, s6), np.compress([True, False, True], np.ones((3, 2)) * [1.0, 2.0], axis=0)[1],
         np.compress([0, 1], [[1, 2], [3, 4]], axis=1)[1], np.diagflat([[1, 2], [3, 4]])[3], np.diagflat([1, 2], k=1)[0])
    # partition's other elements are in an unspecified order; position kth is what NumPy fixes
    show(np.lexsort([[1, 5, 1, 4, 3, 4, 4], [9, 4, 0, 4, 0, 2, 1]]), np.lexsort(([3.0, 1.0, 2.0], [1.0, 1.0, 0.0])),
         np.partition([3, 4, 2, 1], 2)[2], np.argpartition([3.0, 4.0, 2.0, 1.0], 1)[1])
    m3 = np.array([[10.0, nan, 4.0], [3.0, 2.0, 1.0], [nan, nan, nan]])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        show(np.nanmedian(m3, axis=1), np.nanmedian(m3), np.nanmedian(m3, axis=0), np.nanpercentile(m3, 25.0, axis=1),
             np.nanquantile([1.0, nan, 2.0, 4.0], 0.4))
        show(np.nanmedian(m3, axis=0, keepdims=True).shape, np.nanmedian(m3, keepdims=True).shape,
             np.nanmedian([[1.0, 2.0], [3.0, nan]], axis=1, keepdims=True)[1])
    t3 = np.array([[10.0, 30.0, 20.0], [60.0, 40.0, 50.0]])
    show(np.take_along_axis(t3, np.argsort(t3, axis=1), axis=1)[1],
         np.take_along_axis(t3, np.argmax(t3, axis=0, keepdims=True), axis=0),
         np.take_along_axis(t3, np.array([[0], [-1]]), axis=1)[1],
         np.take_along_axis(np.ones((2, 3, 4)), np.zeros((2, 3, 1), dtype=np.int64), axis=2).shape)
    a5 = np.arange(5)
    show(np.clip(a5, None, 2), np.clip(a5, 2, None), np.clip(a5.astype(np.float32), [0, 1, 2, 3, 4], None),
         np.clip(a5, None, 3))
    show(np.pad(np.arange(4), 5, mode="wrap"), np.pad([1, 2], (5, 3), mode="reflect"), np.pad([7], 2, mode="reflect"),
         np.pad(np.arange(6).reshape(2, 3), ((3, 1), (4, 0)), mode="symmetric")[0])
    cv = np.cov([1.0, 2.0, 4.0], [1.0, 0.0, 2.0])
    cb = np.cov([[1.0, 2.0], [2.0, 0.0], [4.0, 2.0]], rowvar=False, bias=True)
    cc = np.corrcoef([1.0, 2.0, 4.0], [1.0, 0.0, 2.0])
    show(np.trapezoid([1.0, 2.0, 3.0], [0.0, 1.0, 3.0]), np.trapezoid([[1.0, 2.0, 3.0], [2.0, 2.0, 5.0]], [0.0, 1.0, 3.0]),
         np.trapezoid([[1.0, 2.0, 3.0], [2.0, 2.0, 5.0]], [[0.0, 1.0, 3.0], [1.0, 2.0, 4.0]], axis=0),
         np.trapezoid([1, 2, 4], dx=0.5))
    show(cv.shape, cv[0, 0], cv[0, 1], cv[1, 1], np.cov([1.0, 2.0, 4.0], ddof=0), cb[0, 0], cb[0, 1], cb[1, 1],
         cc[0, 1], cc[1, 1])
    nm = np.array([[1.0, -2.0], [3.0, 4.0]])
    L = np.linalg.norm
    show(L(nm, 1), L(nm, -1), L(nm, np.inf), L(nm, -np.inf), L(nm, "fro"), L([3.0, -4.0, 0.0], 0), L(nm, 1, axis=1),
         L(nm, -np.inf, axis=0))
    show(L([3.0, -4.0], 3))
    gu = np.gradient([1.0, 2.0, 4.0, 7.0], [0.0, 1.0, 3.0, 4.0])
    g2 = np.gradient(np.array([[1.0, 2.0], [2.0, 5.0], [4.0, 4.0]]), [0.0, 0.5, 3.0], axis=0)
    show(np.digitize([0.5, 1.5, 3.0], [3.0, 2.0, 1.0]), np.digitize([0.5, 1.0, 3.0], [3.0, 2.0, 1.0], right=True),
         gu[0], gu[1], gu[2], gu[3], g2[1, 0], g2[1, 1])
    kx = np.arange(10).astype(np.float32) / np.float32(3.0)
    ki = np.arange(5).astype(np.int32)
    show(np.sum(kx, dtype=np.float64), np.mean(kx, dtype="float64"), np.sum(ki, dtype=np.int32),
         np.prod(ki + 1, dtype=np.float64))
    show(np.sum(kx.reshape(2, 5), axis=1, dtype=np.float64), np.cumsum(ki, dtype=np.int32),
         np.cumprod(ki + 1, dtype="int64"))
    show(np.cumsum(kx[:3], dtype=np.float64), np.eye(3, k=1).ravel(), np.eye(2, 3, -1, dtype=np.int64).ravel())
    show(np.where(np.array([[1, 0, 3], [0, 5, 0]]) > 0), np.zeros(2, dtype="float64"), kx[1:3].astype(np.int32),
         kx[4:6].astype(np.float64))
    show(np.fmod([-7, 7, -7, 7, 6], [3, -3, -3, 3, 3]), np.fmod([-7.5, 7.5, -1e-300, 5.0], [2.0, -2.0, 3.0, np.inf]))
    show(np.equal([1, 2], 2), np.not_equal([1.0, n], n), np.less([1, 2], [2, 2]), np.less_equal(1, [0, 1]),
         np.greater([3], 2.5), np.greater_equal([2, 3], 3))
    show(np.logical_not([0, 2, -1]), np.logical_not([0.0, n, 1.5]), np.expand_dims(np.ones((2, 3)), (0, 3)).shape,
         np.expand_dims(np.ones((2, 3)), (-1, 0)).shape)
    show(np.sum(np.arange(6.0).reshape(2, 3), axis=None), np.zeros([]).shape, np.sort([3, 1, 2], kind="stable"),
         np.argsort([3, 1, 3, 0], kind="mergesort"))
    show(np.unravel_index([22, 41, 37], (7, 6)), np.unravel_index(5, [2, 3]), np.unravel_index([[1, 5]], (2, 3)))
    show(np.ravel_multi_index(([3, 6, 6], [4, 5, 1]), (7, 6)), np.ravel_multi_index([[3, 6, 6], [4, 5, 1]], (7, 6)),
         np.ravel_multi_index((1, [0, 2]), (2, 3)))
    show(np.indices((2, 3)), np.indices([2, 3, 4]).shape, np.indices([3], dtype=np.float32))
    gx = np.arange(20).reshape(4, 5)
    show(*np.ix_([0, 2], [1, 3]), gx[np.ix_([0, 2], [1, 3])], gx[np.ix_([True, False, True, False], [4, 0])])
    m6 = np.arange(6).reshape(2, 3)
    show(np.delete([1, 2, 3, 4], 1), np.delete([1, 2, 3, 4], [0, -1]), np.delete(m6, 1, axis=1), np.delete(m6, [0]),
         np.delete([1, 2, 3], [True, False, True]))
    show(np.insert([1, 2, 3], 1, 9), np.insert([1, 2, 3], [1, 1, 3], [7, 8, 9]), np.insert([1, 2, 3], -1, [5, 6]),
         np.insert([1, 2, 3], 1, 2.7), np.insert([1, 2, 3], [1], [7, 8]), np.insert([1.0, 2.0], [2, 0], [5, 6]))
    show(np.insert(m6, 1, [10, 20], axis=1), np.insert(m6, 0, 5, axis=0), np.insert(m6, [0, 2], [[10], [20]], axis=-1),
         np.insert(m6, 3, 7))
    show(np.trim_zeros([0, 0, 1, 2, 0, 3, 0]), np.trim_zeros([0, 0, 1, 2, 0], "f"), np.trim_zeros([0, 1, 0], trim="b"),
         np.trim_zeros([0, 0]), np.trim_zeros([0.0, 1.5]))
    show(np.setdiff1d([5, 1, 3, 3, 7], [3, 8]), np.intersect1d([1, 3, 4, 3], [3, 1, 2, 1]),
         np.union1d([-1, 0, 1], [-2, 0, 2]), np.setxor1d([1, 2, 3, 2, 4], [2, 3, 5, 7, 5]))
    show(np.setdiff1d([1.0, n, 2.0], [n]), np.intersect1d([1, 2], [2.5, 1.0]), np.union1d([[1, 2], [2, 3]], [0]),
         np.setxor1d([1.0, n], [n, 2.0]), np.setdiff1d([1, 2], []), np.intersect1d([1], [2]))
    show(np.diff([1, 4, 9], prepend=0), np.diff([1, 4, 9], append=[20, 30]),
         np.diff(m6, axis=0, prepend=[[1, 1, 1]]), np.diff([1.0, 2.0], n=2, prepend=0, append=5))
    show(np.clip(np.arange(5), a_min=1, a_max=3), np.clip(a=np.arange(5), min=2, max=3), np.clip(np.arange(5), a_max=2, a_min=1),
         np.full(2, fill_value=3), np.full([2], fill_value=1.5, dtype=np.float32), np.eye(N=2), np.eye(N=2, M=3, k=1))
    pz = np.arange(6).reshape(2, 3).T.copy()
    np.put(pz, [1, -1], 7)
    pw = np.zeros(4)
    np.put(pw, [0, 1, 2], [5.0, 6.0])
    show(pz, pw)
    show(np.tri(3), np.tri(2, 3, k=1, dtype=np.int64), np.tri(3, k=-1)[2], np.float_power(2, -1),
         np.float_power([2, 3], 2.0), np.float_power(4.0, [0.5, -2]))
    ua = np.array([[1, 2], [3, 4], [1, 2], [0, 9]])
    show(*np.unique(ua, axis=0, return_index=True, return_inverse=True, return_counts=True))
    show(np.unique(np.array([[1.0, 0.0, 1.0], [2.0, 5.0, 2.0]]), axis=-1),
         np.unique((np.arange(8) % 2).reshape(2, 2, 2), axis=2)[1, 1])
    return out




if __name__ == "__main__":
    want = np.concatenate([x for line in oracle() for x in line])
    got = expected("numpy_stdlib")
    assert want.shape == got.shape, (want.shape, got.shape)
    same = np.isclose(want, got, rtol=1e-12, atol=0, equal_nan=True)
    bad = np.nonzero(~same)[0]
    print("OK" if bad.size == 0 else f"mismatch at value {bad[0]}: NumPy {want[bad[0]]}, case {got[bad[0]]}")
    sys.exit(0 if bad.size == 0 else 1)
