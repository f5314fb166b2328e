#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/storage_fused.arr: the same maps and
reductions of narrow integers and half floats (bfloat16 through ml_dtypes,
which JAX installs; its rows are skipped without it), printing the values
the case's `# out:` lines hold. Arr's float-to-integer casts saturate (NumPy's
are undefined out of range), so `sat` clips before truncating.

    python3 tests/cases/storage_fused.py     # prints OK or the first mismatch
"""

import numpy as np

from case_values import Printed, compare

f16 = np.float16


def sat(x, dtype):
    info = np.iinfo(dtype)
    x = np.nan_to_num(np.trunc(x), nan=0.0)
    return np.clip(x, info.min, info.max).astype(dtype)


def ck(x):
    return x.astype(np.int64).sum()


def fk(x):
    return x.astype(np.float64).sum()


def rne(x, bits):
    """x (f64) rounded to nearest, ties to even, at `bits` significant bits."""
    m, e = np.frexp(x)
    return np.ldexp(np.rint(m * 2.0**bits), e - bits)


def oracle():
    out = Printed()
    n = 30000
    i = np.arange(n * 7, dtype=np.int64)
    a = ((i * 37 + 11) % 256).reshape(n, 7).astype(np.uint8)
    b = ((i * 53 + 5) % 256 - 128).reshape(n, 7).astype(np.int8)
    s = (i * 977 % 65536 - 32768).reshape(n, 7).astype(np.int16)
    w = (i * 1301 % 65536).reshape(n, 7).astype(np.uint16)
    u = (i * 2654435761 % 4294967296).reshape(n, 7).astype(np.uint32)
    out += [ck(a + a), ck(a * np.uint8(3)), ck(a - np.uint8(200)), ck(-a), ck(~a), ck(a << 1), ck(a >> 2)]
    out += [ck(np.where(a > 100, a // 3, a % 7)), ck(np.maximum(a, 77)), ck(np.minimum(a[::-1], a[:, ::-1]))]
    out += [ck(a[::2, ::-1] + a[1::2]), ck(a + a[0]), ck(a.T * np.uint8(2) + np.uint8(1))]
    out += [ck(a.max(axis=0)), ck(a.min(axis=1)), a.sum(axis=0), ck(a.T.max(axis=1))]
    out += [np.any(a == 255), np.all(a > 0), ck(np.argmax(a, axis=1)), ck(np.cumsum(a[:10, 0]))]
    out += [ck(b + b), ck(b * b), ck(np.abs(b)), ck(b // 3), ck(b % 5), ck(b.max(axis=0)), ck(b.astype(np.uint8))]
    out += [ck(s * np.int16(3)), ck(s + w), ck(w * w), ck(w // 7 + np.uint16(1)), ck(u + u), ck(u // 3), ck(u * u)]
    out += [ck(a << 9), ck(a << 31), ck(b >> 10), ck(a * a * a), ck(w * w * w), ck(s * s * s), ck(w * np.uint16(65535)),
            ck(-s), ck(np.abs(s))]
    x = (i % 1000).reshape(n, 7) * 0.37 - 20.0
    with np.errstate(divide="ignore", invalid="ignore"):
        inf = np.nan_to_num(x / 0.0, posinf=1e10)
    out += [ck(sat(x, np.uint8)), ck(sat(x, np.int8)), ck(sat(x * 10.0, np.int16)), ck(sat(x * 1000.0, np.uint16)),
            ck(sat(inf, np.uint32))]
    h = ((i % 2000).reshape(n, 7) * 0.01).astype(f16)
    out += [fk(h), fk(h * f16(3.0) + f16(1.0)), fk(h * h - h), fk(np.exp(h * f16(0.1))), fk(h[::-1] + h[0])]
    try:
        import ml_dtypes

        bf16 = ml_dtypes.bfloat16
    except ImportError:
        return out
    g = rne((i % 3000).reshape(n, 7) * 0.0123, 8).astype(bf16)
    g32 = g.astype(np.float32)
    r = lambda v: v.astype(np.float32).astype(bf16)  # noqa: E731
    out += [fk(g), fk(r(r(g32 * 3.0) + np.float32(1.0))), fk(r(r(g32 * g32) - g32)), fk(r(np.sqrt(g32))),
            fk(g32 + h.astype(np.float32)), fk(h.max(axis=1)),
            fk(h.astype(np.float32).sum(axis=1).astype(f16))]
    out += [fk((x * 1.0001).astype(f16)), fk((x * 1.0000001).astype(f16)), fk(rne(x * 3.3, 8)),
            fk((h.astype(np.float64).sum(axis=0) / n).astype(f16))]
    out += [ck(h > 9.5), ck(np.where(g32 > 5.0, a, b)), fk(h.astype(np.float32) * np.float32(2.0)),
            ck(sat(h * f16(10.0), np.uint8))]
    board = (((i[:4096] * 2654435761) % 1000 < 300).reshape(64, 64)).astype(np.uint8)
    for _ in range(5):
        p = np.pad(board, 1, mode="wrap")
        nb = p[:-2, :-2] + p[:-2, 1:-1] + p[:-2, 2:] + p[1:-1, :-2] + p[1:-1, 2:] + p[2:, :-2] + p[2:, 1:-1] + p[2:, 2:]
        board = ((nb == 3) | ((board == 1) & (nb == 2))).astype(np.uint8)
    out += [ck(board), ck(board * np.arange(64)), ck(np.cumsum(a[:100, 0] * np.uint8(2))),
            ck(np.cumsum((h[:50, 1] * f16(2.0)).astype(np.float32)).astype(f16) > 40.0)]
    return out


if __name__ == "__main__":
    compare("storage_fused", np.concatenate([np.ravel(x) for x in oracle()]))
