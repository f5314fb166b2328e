"""Writes tests/golden/numerics/table.json: the numeric rules of docs/language.md
("dtypes and promotion", "Numerics"), one row each, with the dtype and values
NumPy (and SciPy, for logsumexp) give.

A row that follows NumPy has "numpy": "same". Where Arr decided differently on
purpose the row says so in "numpy" (what NumPy does), and the expected value is
still computed here by NumPy, in the dtype Arr documents (for example `i32 + f32`
is computed as float32). A row with "error" expects that diagnostic code.

Run: python3 tests/golden/make_numerics.py (needs numpy and scipy; the Rust test
tests/numerics.rs reads only the committed JSON).
"""

import math

import numpy as np
import scipy.special

from golden_table import row, write

i32 = lambda a: np.asarray(a, dtype=np.int32)
f32 = lambda a: np.asarray(a, dtype=np.float32)
f64 = lambda a: np.asarray(a, dtype=np.float64)


def saturate(values, dtype):
    """Arr's documented float -> int conversion: truncate toward zero, NaN -> 0,
    out of range (and +-inf) -> the nearest end of the range (Rust's `as`)."""
    info = np.iinfo(dtype)
    out = []
    for v in values:
        if math.isnan(v):
            out.append(0)
        elif v >= info.max:
            out.append(int(info.max))
        elif v <= info.min:
            out.append(int(info.min))
        else:
            out.append(int(math.trunc(v)))
    return np.asarray(out, dtype=dtype)


def flat_write(make_view):
    d = np.ones((2, 2), dtype=np.float32)
    e = make_view(d)
    e[0] = 5.0
    return d


def assign_wrap():
    c = np.arange(3, dtype=np.int32)
    c[0:2] = np.arange(2) * 1000000000000 + 5
    return c


def softmax_def(x, axis=-1):
    """softmax from its definition (SciPy's softmax refuses an empty array)."""
    if x.size == 0:
        return np.exp(x)
    return scipy.special.softmax(x, axis=axis).astype(x.dtype)


ROWS = [
    # --- promotion: two arrays -------------------------------------------------
    ("let r = (arange(3) as i32) + ones([3])", lambda: i32([0, 1, 2]).astype(np.float32) + f32([1, 1, 1]),
     "NumPy 2 gives float64: Arr keeps i32 with f32 in f32 (as JAX and PyTorch)"),
    ("let r = arange(3) + ones([3])", lambda: np.arange(3) + f32([1, 1, 1]), "same"),
    ("let r = (arange(3) as i32) + arange(3)", lambda: i32([0, 1, 2]) + np.arange(3), "same"),
    ("let r = ones([2], dtype=f64) + ones([2])", lambda: f64([1, 1]) + f32([1, 1]), "same"),
    ("let r = (arange(3) as i32) / (arange(3) as i32 + 1)",
     lambda: i32([0, 1, 2]).astype(np.float32) / i32([1, 2, 3]).astype(np.float32),
     "NumPy 2 gives float64: `/` of i32 gives f32 in Arr"),
    ("let r = arange(3) / 2", lambda: np.arange(3) / 2, "same"),
    # --- promotion: a literal does not widen an array ----------------------------
    ("let r = ones([2]) * 2", lambda: f32([1, 1]) * 2, "same"),
    ("let r = ones([2]) * 0.1", lambda: f32([1, 1]) * 0.1, "same"),
    ("let r = (arange(3) as i32) + 1", lambda: i32([0, 1, 2]) + 1, "same"),
    ("let r = (arange(3) as i32) * 0.5", lambda: i32([0, 1, 2]).astype(np.float32) * np.float32(0.5),
     "NumPy 2 gives float64: an i32 array with a float literal gives f32 in Arr"),
    ("let r = arange(3) * 0.5", lambda: np.arange(3) * 0.5, "same"),
    ("let r = (arange(3) as i32) / 2", lambda: i32([0, 1, 2]).astype(np.float32) / np.float32(2),
     "NumPy 2 gives float64: `/` of i32 gives f32 in Arr"),
    ("let r = 0.1", lambda: np.float64(0.1), "same"),
    ("let r = 7", lambda: np.int64(7), "same"),
    ("let r = true + true", lambda: np.int64(2),
     "NumPy adds two np.bool_ as logical or (True); Arr counts: `true + true` is the i64 2"),
    # --- real functions and reductions of integers -----------------------------
    ("let r = sqrt(arange(3) as i32)", lambda: np.sqrt(i32([0, 1, 2]).astype(np.float32)),
     "NumPy 2 gives float64: real functions of i32 (and bool) give f32 in Arr"),
    ("let r = sqrt(arange(3))", lambda: np.sqrt(np.arange(3)), "same"),
    ("let r = exp(arange(3) as i32)", lambda: np.exp(i32([0, 1, 2]).astype(np.float32)),
     "NumPy 2 gives float64: real functions of i32 give f32 in Arr"),
    ("let r = mean(arange(4) as i32)", lambda: np.mean(i32([0, 1, 2, 3]), dtype=np.float32),
     "NumPy 2 gives float64: the mean of i32 is f32 in Arr"),
    ("let r = mean(arange(4))", lambda: np.mean(np.arange(4)), "same"),
    ("let r = sum(arange(3) as i32)", lambda: np.sum(i32([0, 1, 2])), "same"),
    ("let r = sum([true, false, true])", lambda: np.sum(np.array([True, False, True])), "same"),
    # --- literal lists ----------------------------------------------------------
    ("let r = [0.1, 0.2]", lambda: np.array([0.1, 0.2]), "same"),
    ("let r = [0.1] as f64", lambda: np.array([0.1]).astype(np.float64), "same"),
    ("let r = [1e308]", lambda: np.array([1e308]), "same"),
    ("let r = [1, 2]", lambda: np.array([1, 2]), "same"),
    ("let r = [0.1] as f32", lambda: np.array([0.1]).astype(np.float32), "same"),
    ("let r = ones([2]) * [0.5, 0.25]", lambda: f32([1, 1]) * f32([0.5, 0.25]),
     "NumPy makes the list a float64 array and gives float64: a literal list is weak in Arr, f32 here"),
    ("let r = (arange(2) as i32) + [1, 2]", lambda: i32([0, 1]) + i32([1, 2]),
     "NumPy makes the list an int64 array and gives int64: a literal list is weak in Arr, i32 here"),
    ("let r = ones([1]) + [1e308]", lambda: f32([1]) + np.float32(np.inf),
     "NumPy gives float64 1e308 (the list is float64): Arr rounds the weak 1e308 to f32, which is inf"),
    # --- integers out of range ----------------------------------------------------
    ("let c = arange(3) as i32\nc[0] = 3000000000000\nlet r = c", "E0307",
     "same (NumPy: OverflowError, Python integer out of bounds for int32)"),
    ("let r = (arange(3) as i32) + 3000000000000", "E0307",
     "same (NumPy: OverflowError, Python integer out of bounds for int32)"),
    ("let r = (arange(3) as i32) < 3000000000000", lambda: i32([0, 1, 2]) < 3000000000000, "same"),
    ("let r = 3000000000000 as i32", lambda: np.int64(3000000000000).astype(np.int32), "same"),
    ("let c = arange(3) as i32\nc[0:2] = [7, 8]\nlet r = c", lambda: i32([7, 8, 2]), "same"),
    ("let c = arange(3) as i32\nc[0:2] = arange(2) * 1000000000000 + 5\nlet r = c",
     lambda: assign_wrap(), "same (an array value is converted with wrap-around, as NumPy's casting assignment)"),
    # --- flatten copies, reshape views ---------------------------------------------
    ("let d = ones([2, 2])\nlet e = flatten(d)\ne[0] = 5.0\nlet r = d", lambda: flat_write(lambda d: d.flatten()),
     "same"),
    ("let d = ones([2, 2])\nlet e = reshape(d, [4])\ne[0] = 5.0\nlet r = d",
     lambda: flat_write(lambda d: d.reshape(4)), "same"),
    # --- float to integer casts -----------------------------------------------------
    ("let r = [2.7, -2.7, 0.5] as i32", lambda: np.array([2.7, -2.7, 0.5]).astype(np.int32), "same"),
    ("let r = [nan, inf, -inf, 3e10, -3e10] as i32",
     lambda: saturate([math.nan, math.inf, -math.inf, 3e10, -3e10], np.int32),
     "NumPy gives undefined values (with a RuntimeWarning): Arr saturates, NaN is 0"),
    ("let r = [nan, inf, -inf] as i64", lambda: saturate([math.nan, math.inf, -math.inf], np.int64),
     "NumPy gives undefined values (with a RuntimeWarning): Arr saturates, NaN is 0"),
    # --- stdlib edge cases ------------------------------------------------------------
    ("let r = logsumexp([-inf, -inf])", lambda: scipy.special.logsumexp(np.array([-np.inf, -np.inf])), "same"),
    ("let r = logsumexp([inf, 1.0])", lambda: scipy.special.logsumexp(np.array([np.inf, 1.0])), "same"),
    ("let r = logsumexp([1.0, 2.0, 3.0])", lambda: scipy.special.logsumexp(np.array([1.0, 2.0, 3.0])), "same"),
    ("let r = logsumexp(zeros([2, 3]), axis=1)",
     lambda: scipy.special.logsumexp(np.zeros((2, 3), np.float32), axis=1).astype(np.float32), "same"),
    ("let r = logsumexp(zeros([0]))", lambda: np.float32(scipy.special.logsumexp(np.zeros(0, np.float32))),
     "same"),
    ("let r = var(ones([3]), ddof=5)", lambda: np.var(np.ones(3, np.float32), ddof=5), "same"),
    ("let r = var([1.0, 2.0, 3.0], ddof=5)", lambda: np.var(np.array([1.0, 2.0, 3.0]), ddof=5), "same"),
    ("let r = var(ones([3]), ddof=3)", lambda: np.var(np.ones(3, np.float32), ddof=3), "same"),
    ("let r = var([1.0, 2.0, 4.0], ddof=1)", lambda: np.var(np.array([1.0, 2.0, 4.0]), ddof=1), "same"),
    ("let r = std([1.0, 2.0, 4.0])", lambda: np.std(np.array([1.0, 2.0, 4.0])), "same"),
    ("let r = softmax(zeros([0]))", lambda: softmax_def(np.zeros(0, np.float32)),
     "same as the definition (SciPy's softmax refuses an empty array)"),
    ("let r = softmax(zeros([2, 0]), axis=0)", lambda: softmax_def(np.zeros((2, 0), np.float32), axis=0),
     "same as the definition (SciPy's softmax refuses an empty array)"),
    ("let r = softmax([1.0, 2.0, 3.0])", lambda: softmax_def(np.array([1.0, 2.0, 3.0])), "same"),
]


def main():
    write("numerics/table.json", [row(src, expect, numpy=note) for src, expect, note in ROWS])


if __name__ == "__main__":
    main()
