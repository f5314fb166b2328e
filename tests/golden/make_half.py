"""Writes tests/golden/numerics/half.json: NumPy's float16 and ml_dtypes'
bfloat16 values for Arr's half floats `f16` and `bf16` (casts, arithmetic
with weak literals, the real functions, comparisons, reductions, matmul,
promotion), in the row format of golden_table.py; tests/numerics.rs runs
every row on both CPU executors. Also writes tests/golden/numerics/half.npy
(NumPy's own float16 file) for the .npy round trip.

Where Arr follows PyTorch rather than NumPy the row says so in `numpy`, and
its expected value is computed the PyTorch way with NumPy:
- an integer array with a half float gives the half float (NumPy: f32/f64
  for int32/int64), so the oracle casts the integers to the half float first;
- f16 with bf16 gives f32 (both widened exactly, then one f32 operation);
- matmul, sums and means accumulate in f32 and round once to the half float
  (NumPy's float16 matmul rounds every partial sum to float16).

Run: python3 tests/golden/make_half.py (needs numpy and ml_dtypes).
"""

import os

import ml_dtypes
import numpy as np

import golden_table
from golden_table import row, write

golden_table.NAMES[np.dtype(np.float16)] = "f16"
golden_table.NAMES[np.dtype(ml_dtypes.bfloat16)] = "bf16"

H = np.float16
B = ml_dtypes.bfloat16
F = np.float32

# The same values written in Arr (NaN and the infinities as divisions) and for NumPy:
# ordinary values, values that round (0.1, 3.3, 100.7), an f16 subnormal (1e-5),
# one beyond f16's range (70000) and one near its top (60000).
X_ARR = "[-2.5, -1.0, -0.5, 0.0, 0.1, 0.5, 1.0, 2.0, 3.3, 100.7, 1e-5, 60000.0, 70000.0, 0.0 / 0.0, 1.0 / 0.0, -1.0 / 0.0]"
X = [-2.5, -1.0, -0.5, 0.0, 0.1, 0.5, 1.0, 2.0, 3.3, 100.7, 1e-5, 60000.0, 70000.0, np.nan, np.inf, -np.inf]
# Finite positive values for the functions with a restricted domain.
P_ARR = "[0.001, 0.1, 0.5, 1.0, 2.0, 3.3, 10.0, 100.7, 1000.0]"
P = [0.001, 0.1, 0.5, 1.0, 2.0, 3.3, 10.0, 100.7, 1000.0]
# Two operands for binary arithmetic.
A_ARR = "[1.5, -2.25, 0.1, 3.3, 1000.0, -7.0, 0.0, 2.0]"
A = [1.5, -2.25, 0.1, 3.3, 1000.0, -7.0, 0.0, 2.0]
B_ARR = "[0.3, 4.0, -0.7, 3.3, 0.001, 2.0, -5.0, 0.0]"
B_ = [0.3, 4.0, -0.7, 3.3, 0.001, 2.0, -5.0, 0.0]


def arr16(v, t):
    return np.asarray(v, dtype=np.float64).astype(t)


ROWS = []
for name, t in (("f16", H), ("bf16", B)):
    a = lambda t=t: arr16(A, t)
    b = lambda t=t: arr16(B_, t)
    ROWS += [
        # casts round once from f64 (not through f32), to nearest, ties to even
        (f"let r = {X_ARR} as {name}", lambda t=t: arr16(X, t)),
        (f"let r = ({X_ARR} as f32) as {name}", lambda t=t: np.asarray(X, dtype=F).astype(t)),
        (f"let r = ({X_ARR} as {name}) as f64", lambda t=t: arr16(X, t).astype(np.float64)),
        (f"let r = ({A_ARR} as {name}) as i64", lambda t=t: arr16(A, t).astype(np.int64)),
        (f"let r = arange(-3, 4) as {name}", lambda t=t: np.arange(-3, 4).astype(t)),
        (f"let r = ([true, false] as {name})", lambda t=t: np.array([True, False]).astype(t)),
        # arithmetic: one rounding per operation, weak literals take the half dtype
        (f"let r = ({A_ARR} as {name}) + ({B_ARR} as {name})", lambda a=a, b=b: a() + b()),
        (f"let r = ({A_ARR} as {name}) - ({B_ARR} as {name})", lambda a=a, b=b: a() - b()),
        (f"let r = ({A_ARR} as {name}) * ({B_ARR} as {name})", lambda a=a, b=b: a() * b()),
        (f"let r = ({A_ARR} as {name}) / ({B_ARR} as {name})", lambda a=a, b=b: a() / b()),
        (f"let r = ({A_ARR} as {name}) * 0.1", lambda a=a, t=t: a() * t(0.1)),
        (f"let r = ({A_ARR} as {name}) / 3", lambda a=a, t=t: a() / t(3)),
        (f"let r = 1.0 / ({A_ARR} as {name})", lambda a=a, t=t: t(1.0) / a()),
        (f"let r = ({A_ARR} as {name}) ** 2", lambda a=a, t=t: a() ** t(2)),
        (f"let r = ({A_ARR} as {name}) // 0.7", lambda a=a, t=t: np.floor_divide(a(), t(0.7))),
        (f"let r = ({A_ARR} as {name}) % 0.7", lambda a=a, t=t: np.remainder(a(), t(0.7))),
        (f"let r = (({A_ARR} as {name}) * 0.1 + 1.0) * 3.0 - 0.2", lambda a=a, t=t: (a() * t(0.1) + t(1.0)) * t(3.0) - t(0.2)),
        (f"let r = maximum({A_ARR} as {name}, {B_ARR} as {name})", lambda a=a, b=b: np.maximum(a(), b())),
        (f"let r = where(({A_ARR} as {name}) > 0.0, {A_ARR} as {name}, 0.5)",
         lambda a=a, t=t: np.where(a() > t(0), a(), t(0.5))),
        (f"let r = ({A_ARR} as {name}) < ({B_ARR} as {name})", lambda a=a, b=b: a() < b()),
        (f"let r = ({A_ARR} as {name}) == 3.3", lambda a=a, t=t: a() == t(3.3)),
        # the real functions stay in the half dtype (computed in f32, rounded once)
        (f"let r = exp({X_ARR} as {name})", lambda t=t: np.exp(arr16(X, t))),
        (f"let r = sin({X_ARR} as {name})", lambda t=t: np.sin(arr16(X, t))),
        (f"let r = tanh({X_ARR} as {name})", lambda t=t: np.tanh(arr16(X, t))),
        (f"let r = log({P_ARR} as {name})", lambda t=t: np.log(arr16(P, t))),
        (f"let r = sqrt({P_ARR} as {name})", lambda t=t: np.sqrt(arr16(P, t))),
        (f"let r = abs({X_ARR} as {name})", lambda t=t: np.abs(arr16(X, t))),
        (f"let r = -({X_ARR} as {name})", lambda t=t: -arr16(X, t)),
        (f"let r = floor({X_ARR} as {name})", lambda t=t: np.floor(arr16(X, t))),
        (f"let r = round({X_ARR} as {name})", lambda t=t: np.round(arr16(X, t))),
        (f"let r = square({A_ARR} as {name})", lambda a=a: np.square(a())),
        (f"let r = isnan({X_ARR} as {name})", lambda t=t: np.isnan(arr16(X, t))),
        (f"let r = isinf({X_ARR} as {name})", lambda t=t: np.isinf(arr16(X, t))),
        # reductions: the half dtype out, accumulated in f32 and rounded once
        (f"let r = sum({P_ARR} as {name})", lambda t=t: arr16(P, t).astype(F).sum().astype(t)),
        (f"let r = mean({P_ARR} as {name})", lambda t=t: arr16(P, t).astype(F).mean().astype(t)),
        (f"let r = max({X_ARR} as {name})", lambda t=t: np.max(arr16(X, t))),
        (f"let r = min({A_ARR} as {name})", lambda a=a: np.min(a())),
        (f"let r = sum(reshape({A_ARR} as {name}, [2, 4]), axis=0)",
         lambda a=a, t=t: a().reshape(2, 4).astype(F).sum(axis=0).astype(t)),
        (f"let r = mean(reshape({A_ARR} as {name}, [2, 4]), axis=1)",
         lambda a=a, t=t: a().reshape(2, 4).astype(F).mean(axis=1).astype(t)),
        (f"let r = sum(ones([5000]) as {name} * 0.1)",
         lambda t=t: (np.ones(5000, dtype=t) * t(0.1)).astype(F).sum().astype(t)),
        (f"let r = argmax({A_ARR} as {name})", lambda a=a: np.argmax(a())),
        (f"let r = sort({A_ARR} as {name})", lambda a=a: np.sort(a())),
        # matmul: products and sums in f32, one rounding at the end (PyTorch)
        (f"let r = reshape({A_ARR} as {name}, [2, 4]) @ reshape({B_ARR} as {name}, [4, 2])",
         lambda a=a, b=b, t=t: (a().reshape(2, 4).astype(F) @ b().reshape(4, 2).astype(F)).astype(t)),
        # promotion
        (f"let r = ({A_ARR} as {name}) + ({B_ARR} as f32)", lambda a=a: a().astype(F) + np.asarray(B_, dtype=F)),
        (f"let r = ({A_ARR} as {name}) + ({B_ARR} as f64)", lambda a=a: a().astype(np.float64) + np.asarray(B_)),
        (f"let r = ({A_ARR} as {name}) + arange(8)", lambda a=a, t=t: a() + np.arange(8).astype(t)),
        (f"let r = ({A_ARR} as {name}) * (arange(8) as i32)", lambda a=a, t=t: a() * np.arange(8).astype(t)),
        (f"let r = ({A_ARR} as {name}) + [true, false, true, false, true, false, true, false]",
         lambda a=a, t=t: a() + np.array([1, 0] * 4).astype(t)),
        (f"let r = sqrt(arange(4) as {name})", lambda t=t: np.sqrt(np.arange(4).astype(t))),
    ]

ROWS += [
    # f16 with bf16: neither holds the other; both widen to f32 (PyTorch)
    (f"let r = ({A_ARR} as f16) + ({B_ARR} as bf16)", lambda: arr16(A, H).astype(F) + arr16(B_, B).astype(F)),
    (f"let r = ({A_ARR} as bf16) * ({B_ARR} as f16)", lambda: arr16(A, B).astype(F) * arr16(B_, H).astype(F)),
    # dtype= arguments
    ("let r = zeros([2, 3], dtype=f16)", lambda: np.zeros((2, 3), dtype=H)),
    ("let r = ones([3], dtype=bf16) * 0.1", lambda: np.ones(3, dtype=B) * B(0.1)),
    ("let r = full([2], 0.1, dtype=f16)", lambda: np.full(2, 0.1, dtype=H)),
    ("let r = arange(0, 2, 0.25, dtype=f16)", lambda: np.arange(0, 2, 0.25, dtype=H)),
    ("let r = linspace(0, 1, 5, dtype=bf16)", lambda: np.linspace(0, 1, 5).astype(B)),
    # errors
    ("save(\"x.npy\", ones([2]) as bf16)", "E0300"),
    ("let r = (ones([2]) as f16) and true", "E0300"),
    ("let r = ones([2]) as f8", "E0302"),
]

NOTES = {
    "+ arange(8)": "NumPy 2: float16 + int64 is float64; Arr (as PyTorch): f16",
    "as i32)": "NumPy 2: float16 * int32 is float32; Arr (as PyTorch): f16",
    f"as f16) + ({B_ARR} as bf16)": "NumPy has no bfloat16; PyTorch: float16 + bfloat16 is float32",
    f"as bf16) * ({B_ARR} as f16)": "NumPy has no bfloat16; PyTorch: bfloat16 * float16 is float32",
    "@": "NumPy's float16 matmul rounds each partial sum to float16; Arr accumulates in f32 (PyTorch)",
}

rows = []
for src, expect in ROWS:
    extra = {}
    for key, note in NOTES.items():
        if key in src:
            extra["numpy"] = note
    rows.append(row(src, expect, **extra))
write("numerics/half.json", rows)

here = os.path.dirname(os.path.abspath(__file__))
np.save(os.path.join(here, "numerics", "half.npy"), np.asarray([[0.1, -2.5, 65504.0], [1e-5, np.inf, 3.3]]).astype(H))
print("wrote numerics/half.npy")
