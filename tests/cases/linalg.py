#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/linalg.arr: the same calls in NumPy,
compared number by number with the case's `# out:` lines (to 1e-9 relative,
1e-12 absolute: the factorisations are LAPACK's there and nalgebra's in Arr,
so their last bits differ).

    python3 tests/cases/linalg.py     # prints OK or the first mismatch
"""
import sys

import numpy as np

from case_values import expected

L = np.linalg


def signed(v):
    m = v.shape[-2]
    return v * np.sign(np.sum(v * (np.arange(m) + 1.5).reshape(m, 1), axis=-2, keepdims=True))


def oracle():
    out = []

    def show(*xs):
        out.append([np.array(x, dtype=np.float64).ravel() for x in xs])

    a = np.array([[4.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 5.0]])
    t = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.5]])
    w = t.T
    q, r = L.qr(t)
    show(signed(q), abs(r), q.shape, r.shape)
    qc, rc = L.qr(t, mode="complete")
    show(qc.shape, rc.shape, qc @ rc, qc @ qc.T)
    qw, rw = L.qr(w)
    show(qw @ rw, rw.shape, abs(L.qr(w, mode="r")))
    # dtype names: the digits of "f32 f32 f64" are what the case's line holds
    q32, r32 = L.qr(t.astype(np.float32))
    bits = lambda x: np.dtype(x.dtype).itemsize * 8
    show(bits(q32), bits(r32), bits(L.qr(np.array([[1, 2], [3, 4]]))[0]))
    show(L.cholesky(a), L.cholesky(a, upper=True), bits(L.cholesky(a.astype(np.float32))))
    show(L.cholesky(np.array([[4.0, 99.0], [2.0, 3.0]])), L.cholesky(np.stack([a, a * 2.0])))
    ev, evec = L.eigh(a)
    show(ev, signed(evec))
    h = np.array([[2.0, 1.0], [99.0, 2.0]])
    show(L.eigh(h)[0], L.eigh(h, UPLO="U")[0], L.eigvalsh(a), L.eigvalsh(np.stack([a, -a])))
    u, s, vh = L.svd(t)
    show(u.shape, s, vh.shape, signed(u)[:, :2], signed(vh.T))
    uw, sw, vhw = L.svd(w, full_matrices=False)
    show(uw.shape, sw, vhw.shape, uw * sw @ vhw)
    show(L.svd(t, compute_uv=False), L.svd(w, compute_uv=False), L.svd(np.stack([a, a]), compute_uv=False))
    show(L.pinv(t), L.pinv(np.array([[1.0, 2.0], [2.0, 4.0]])), L.pinv(np.stack([t, t])).shape)
    show(L.matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]])), L.matrix_rank(a), L.matrix_rank(np.array([0.0, 0.0])),
         L.matrix_rank(np.array([0.0, 3.0])), L.matrix_rank(a, tol=3.0), L.matrix_rank(np.stack([np.eye(3), np.zeros((3, 3))])))
    show(*L.lstsq(np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]), np.array([1.0, 2.0, 4.0])))
    x2, res2, rk2, _ = L.lstsq(t, np.array([[1.0, 0.0], [2.0, 1.0], [4.0, 5.0]]))
    show(x2, res2, rk2)
    x3, res3, rk3, _ = L.lstsq(np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), np.array([1.0, 2.0, 3.5]))
    show(x3, res3.shape, rk3)
    sg, ld = L.slogdet(a)
    show(sg, ld, L.slogdet(np.array([[0.0, 1.0], [1.0, 0.0]])), L.slogdet(np.array([[1.0, 2.0], [2.0, 4.0]])),
         L.slogdet(np.stack([a, -a])))
    show(L.cond(a), L.cond(t), L.cond(a, -2), L.cond(np.stack([a, np.eye(3)])))
    show(L.norm(a, 2), L.norm(t, -2), L.norm(w, "nuc"), L.norm(a, 2, keepdims=True).shape)
    px = np.linspace(0.0, 1.0, 20)
    show(np.polyfit(px, np.sin(3.0 * px), 5), np.polyfit(px, np.stack([px * px, 1.0 - px], axis=1), 2))
    return out


if __name__ == "__main__":
    want = np.concatenate([x for line in oracle() for x in line])
    got = expected("linalg")
    assert want.shape == got.shape, (want.shape, got.shape)
    same = np.isclose(want, got, rtol=1e-9, atol=1e-12, equal_nan=True)
    bad = np.nonzero(~same)[0]
    print("OK" if bad.size == 0 else f"mismatch at value {bad[0]}: NumPy {want[bad[0]]}, case {got[bad[0]]}")
    sys.exit(0 if bad.size == 0 else 1)
