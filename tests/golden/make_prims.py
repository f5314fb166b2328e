"""Writes tests/golden/numerics/prims.json: NumPy's values for the primitives
declared in src/check/prim.rs and the functions built on them (floor division,
hypot, nan_to_num, the nan-reductions, isclose/allclose/array_equal), on
ordinary values and on NaN, inf, -inf, zero and out-of-domain inputs, in the
same row format as make_numerics.py (tests/numerics.rs reads both tables).

Run: python3 tests/golden/make_prims.py (needs numpy).
"""


import numpy as np

from golden_table import row, write

# The same values written in Arr (NaN and the infinities as divisions) and for NumPy.
X_ARR = "[-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 1e-10, 0.0 / 0.0, 1.0 / 0.0, -1.0 / 0.0]"
X = [-2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 1e-10, np.nan, np.inf, -np.inf]
# A matrix with NaNs, a row of them among them.
M_ARR = "[[1.0, 0.0 / 0.0, 3.0], [0.0 / 0.0, 0.0 / 0.0, 0.0 / 0.0], [-2.0, 5.0, 1.0 / 0.0]]"
M = [[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan], [-2.0, 5.0, np.inf]]

UNARY = [
    "isnan", "isinf", "isfinite", "log1p", "expm1", "log2", "log10", "square", "arcsin", "arccos",
    "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "trunc", "negative", "sign", "abs",
    "cbrt", "exp2",
]

ROWS = []
for name in UNARY:
    for dt, np_dt in (("f32", np.float32), ("f64", np.float64)):
        ROWS.append((f"let r = {name}({X_ARR} as {dt})", lambda n=name, t=np_dt: getattr(np, n)(np.asarray(X, dtype=t))))
ROWS += [
    # integers: real functions promote (i64 to f64), predicates are constants, square and trunc keep ints
    ("let r = log1p(arange(4))", lambda: np.log1p(np.arange(4))),
    ("let r = log2(arange(1, 5) as i32)", lambda: np.log2(np.arange(1, 5, dtype=np.int32)).astype(np.float32)),
    ("let r = isinf(arange(3))", lambda: np.isinf(np.arange(3))),
    ("let r = isfinite(arange(3) as i32)", lambda: np.isfinite(np.arange(3, dtype=np.int32))),
    ("let r = square(arange(-2, 3))", lambda: np.square(np.arange(-2, 3))),
    ("let r = trunc(arange(-2, 3))", lambda: np.trunc(np.arange(-2, 3))),
    # floor division: integers round toward -inf, floats follow npy_floor_divide
    ("let r = arange(-7, 8) // 3", lambda: np.arange(-7, 8) // 3),
    ("let r = arange(-7, 8) // -3", lambda: np.arange(-7, 8) // -3),
    ("let r = (arange(-7, 8) as i32) // (2 as i32)", lambda: np.arange(-7, 8, dtype=np.int32) // np.int32(2)),
    ("let r = floor_divide(arange(-7, 8), 4)", lambda: np.floor_divide(np.arange(-7, 8), 4)),
    ("let r = -7 // 2", lambda: np.int64(-7 // 2)),
    (f"let r = ({X_ARR} as f32) // 2.0", lambda: np.asarray(X, dtype=np.float32) // np.float32(2.0)),
    (f"let r = ({X_ARR} as f64) // -0.5", lambda: np.asarray(X) // -0.5),
    (f"let r = ({X_ARR} as f64) // 0.0", lambda: np.asarray(X) // 0.0),
    (f"let r = ({X_ARR} as f64) // (1.0 / 0.0)", lambda: np.asarray(X) // np.inf),
    (f"let r = 7.5 // ({X_ARR} as f64)", lambda: 7.5 // np.asarray(X)),
    ("let r = arange(3) // 0\nprint(r)", "E0400"),
    ("let r = floor_divide(arange(3) as i32, 0)\nprint(r)", "E0400"),
    # round to decimals: x * 10**d rounded half to even, then divided back (NumPy's around)
    ("let r = round([2.675, -0.125, 1234.5678, 0.5, 1.5, -2.5], 2)",
     lambda: np.round(np.asarray([2.675, -0.125, 1234.5678, 0.5, 1.5, -2.5]), 2)),
    ("let r = round([2.675, -0.125, 1234.5678] as f32, decimals=1)",
     lambda: np.round(np.asarray([2.675, -0.125, 1234.5678], dtype=np.float32), 1)),
    ("let r = round([1234.5678, -1250.0, 1350.0], -2)", lambda: np.round(np.asarray([1234.5678, -1250.0, 1350.0]), -2)),
    ("let r = round([1250, -1350, 1249], decimals=-2)", lambda: np.round(np.asarray([1250, -1350, 1249]), -2)),
    ("let r = round([1250, -7] as i32, -1)", lambda: np.round(np.asarray([1250, -7], dtype=np.int32), -1)),
    ("let r = round(arange(5), 3)", lambda: np.round(np.arange(5), 3)),
    (f"let r = round({X_ARR} as f64, 1)", lambda: np.round(np.asarray(X), 1)),
    # logical_and, logical_or, logical_xor: numbers are true when nonzero (NaN included)
    (f"let r = logical_and({X_ARR} as f64, [1.0])", lambda: np.logical_and(np.asarray(X), [1.0])),
    (f"let r = logical_or({X_ARR} as f32, 0)", lambda: np.logical_or(np.asarray(X, dtype=np.float32), 0)),
    ("let r = logical_xor(arange(-2, 3), [[true], [false]])", lambda: np.logical_xor(np.arange(-2, 3), [[True], [False]])),
    ("let r = logical_and(arange(4) > 1, arange(4) < 3)", lambda: np.logical_and(np.arange(4) > 1, np.arange(4) < 3)),
    ("let r = logical_or(zeros([2]), zeros([3]))\nprint(r)", "E0200"),
    # binary real functions
    (f"let r = hypot({X_ARR} as f32, 2.0)", lambda: np.hypot(np.asarray(X, dtype=np.float32), np.float32(2.0))),
    (f"let r = hypot({X_ARR} as f64, [3.0])", lambda: np.hypot(np.asarray(X), np.asarray([3.0]))),
    ("let r = hypot(3, 4)", lambda: np.hypot(np.int64(3), np.int64(4))),
    ("let r = hypot(1e300, 1e300)", lambda: np.hypot(1e300, 1e300)),
    (f"let r = arctan2({X_ARR} as f64, -1.5)", lambda: np.arctan2(np.asarray(X), -1.5)),
    # nan_to_num
    (f"let r = nan_to_num({X_ARR} as f32)", lambda: np.nan_to_num(np.asarray(X, dtype=np.float32))),
    (f"let r = nan_to_num({X_ARR} as f64)", lambda: np.nan_to_num(np.asarray(X))),
    (f"let r = nan_to_num({X_ARR} as f64, true, -1.0, posinf=9.0, neginf=-9.0)",
     lambda: np.nan_to_num(np.asarray(X), nan=-1.0, posinf=9.0, neginf=-9.0)),
    ("let r = nan_to_num(arange(3))", lambda: np.nan_to_num(np.arange(3))),
    # nan-reductions (axis and keepdims as sum)
    (f"let r = nansum({M_ARR})", lambda: np.nansum(np.asarray(M))),
    (f"let r = nansum({M_ARR} as f32, axis=1)", lambda: np.nansum(np.asarray(M, dtype=np.float32), axis=1)),
    (f"let r = nansum({M_ARR}, axis=0, keepdims=true)", lambda: np.nansum(np.asarray(M), axis=0, keepdims=True)),
    (f"let r = nanmean({M_ARR}, axis=1)", lambda: np.nanmean(np.asarray(M), axis=1)),
    (f"let r = nanmean({M_ARR} as f32, axis=0)", lambda: np.nanmean(np.asarray(M, dtype=np.float32), axis=0)),
    (f"let r = nanmean({M_ARR})", lambda: np.nanmean(np.asarray(M))),
    (f"let r = nanmax({M_ARR}, axis=1)", lambda: np.nanmax(np.asarray(M), axis=1)),
    (f"let r = nanmax({M_ARR} as f32, axis=0, keepdims=true)",
     lambda: np.nanmax(np.asarray(M, dtype=np.float32), axis=0, keepdims=True)),
    (f"let r = nanmin({M_ARR}, axis=1)", lambda: np.nanmin(np.asarray(M), axis=1)),
    (f"let r = nanmin({M_ARR})", lambda: np.nanmin(np.asarray(M))),
    ("let r = nanmax(arange(5))", lambda: np.nanmax(np.arange(5))),
    ("let r = nansum(arange(5) as i32)", lambda: np.nansum(np.arange(5, dtype=np.int32))),
    ("let r = nanmean(arange(4))", lambda: np.nanmean(np.arange(4))),
    # isclose, allclose, array_equal
    ("let r = isclose([1.0, 1.0 / 0.0, 0.0 / 0.0, 1e-9, 100.0], [1.0 + 1e-9, 1.0 / 0.0, 0.0 / 0.0, 0.0, 100.001])",
     lambda: np.isclose([1.0, np.inf, np.nan, 1e-9, 100.0], [1.0 + 1e-9, np.inf, np.nan, 0.0, 100.001])),
    ("let r = isclose([1.0, 0.0 / 0.0, -1.0 / 0.0], [1.1, 0.0 / 0.0, 1.0 / 0.0], rtol=0.2, equal_nan=true)",
     lambda: np.isclose([1.0, np.nan, -np.inf], [1.1, np.nan, np.inf], rtol=0.2, equal_nan=True)),
    ("let r = isclose(ones([2, 1]), [1.0, 1.00001, 2.0], atol=0.0)",
     lambda: np.isclose(np.ones((2, 1), dtype=np.float32), np.asarray([1.0, 1.00001, 2.0], dtype=np.float32), atol=0.0)),
    ("let r = isclose(arange(3), [0, 1, 3])", lambda: np.isclose(np.arange(3), [0, 1, 3])),
    ("let r = allclose([1.0, 2.0], [1.0, 2.0 + 1e-7])", lambda: np.allclose([1.0, 2.0], [1.0, 2.0 + 1e-7])),
    ("let r = allclose([1.0, 2.0], [1.0, 2.1])", lambda: np.allclose([1.0, 2.0], [1.0, 2.1])),
    ("let r = allclose([0.0 / 0.0], [0.0 / 0.0], equal_nan=true)", lambda: np.allclose([np.nan], [np.nan], equal_nan=True)),
    ("let r = array_equal(arange(3), [0, 1, 2])", lambda: np.array_equal(np.arange(3), [0, 1, 2])),
    ("let r = array_equal(arange(3), [0, 1, 2, 3])", lambda: np.array_equal(np.arange(3), [0, 1, 2, 3])),
    ("let r = array_equal(ones([2, 2]), ones([2, 2]) * 2)", lambda: np.array_equal(np.ones((2, 2)), np.ones((2, 2)) * 2)),
    ("let r = array_equal([0.0 / 0.0, 1.0], [0.0 / 0.0, 1.0])", lambda: np.array_equal([np.nan, 1.0], [np.nan, 1.0])),
    ("let r = array_equal([0.0 / 0.0, 1.0], [0.0 / 0.0, 1.0], equal_nan=true)",
     lambda: np.array_equal([np.nan, 1.0], [np.nan, 1.0], equal_nan=True)),
    ("let r = isclose(zeros([3]), zeros([4]))", "E0200"),
    # reductions' `where=` and `initial=` (NumPy's keywords; Arr's float literals and the
    # mean of i32 are f32): masked-out elements are the
    # identity (or `initial` for min and max, which need it with a mask), `initial` folds in
    (f"let r = sum({M_ARR}, axis=1, where=[true, false, true])",
     lambda: np.sum(np.asarray(M), axis=1, where=[True, False, True])),
    ("let r = sum(arange(12) as i32, initial=5)", lambda: np.sum(np.arange(12, dtype=np.int32), initial=5)),
    ("let r = sum([1, 2], initial=0.5)", lambda: np.sum(np.asarray([1, 2]), initial=0.5)),
    ("let r = sum(reshape(arange(6.0), [2, 3]), axis=0, keepdims=true, initial=1, where=[true, false, true])",
     lambda: np.sum(np.arange(6.0, dtype=np.float32).reshape(2, 3), axis=0, keepdims=True, initial=1,
                    where=[True, False, True])),
    ("let r = sum(reshape(arange(6) > 2, [2, 3]), axis=1, where=[[true], [false]])",
     lambda: np.sum(np.arange(6).reshape(2, 3) > 2, axis=1, where=[[True], [False]])),
    ("let r = prod(arange(1, 5), initial=2, where=[true, true, false, true])",
     lambda: np.prod(np.arange(1, 5), initial=2, where=[True, True, False, True])),
    ("let r = prod(arange(1.0, 7.0) as f32, dtype=f64, initial=0.5)",
     lambda: np.prod(np.arange(1.0, 7.0, dtype=np.float32), dtype=np.float64, initial=0.5)),
    (f"let r = max({M_ARR}, axis=1, initial=4.0)", lambda: np.max(np.asarray(M), axis=1, initial=4.0)),
    ("let r = max([1, 2], initial=5.5)", lambda: np.max(np.asarray([1, 2]), initial=5.5)),
    ("let r = min([3, 1, 2] as i32, initial=0)", lambda: np.min(np.asarray([3, 1, 2], dtype=np.int32), initial=0)),
    ("let r = amin(reshape(arange(6.0), [2, 3]), axis=0, where=[[false], [true]], initial=10.0)",
     lambda: np.amin(np.arange(6.0, dtype=np.float32).reshape(2, 3), axis=0, where=[[False], [True]], initial=10.0)),
    ("let r = max(zeros([0, 3]), axis=0, initial=5)", lambda: np.max(np.zeros((0, 3), dtype=np.float32), axis=0, initial=5)),
    ("let r = max(zeros([2, 0]) as i32, axis=1, keepdims=true, initial=-3)",
     lambda: np.max(np.zeros((2, 0), dtype=np.int32), axis=1, keepdims=True, initial=-3)),
    ("let r = mean(reshape(arange(4.0), [2, 2]), axis=0, where=[[true, false], [true, false]])",
     lambda: np.mean(np.arange(4.0, dtype=np.float32).reshape(2, 2), axis=0, where=[[True, False], [True, False]])),
    ("let r = mean(arange(6) as i32, where=arange(6) % 2 == 0)",
     lambda: np.mean(np.arange(6, dtype=np.int32), where=np.arange(6) % 2 == 0).astype(np.float32)),
    ("let r = mean(arange(6.0) as f32, where=arange(6) > 3)",
     lambda: np.mean(np.arange(6.0, dtype=np.float32), where=np.arange(6) > 3)),
    ("let r = any([0, 1, 0], where=[true, false, true])", lambda: np.any([0, 1, 0], where=[True, False, True])),
    ("let r = all(reshape(arange(6), [2, 3]) > 0, axis=1, where=[false, true, true])",
     lambda: np.all(np.arange(6).reshape(2, 3) > 0, axis=1, where=[False, True, True])),
    (f"let r = nansum({M_ARR}, axis=1, where=[true, false, true], initial=10)",
     lambda: np.nansum(np.asarray(M), axis=1, where=[True, False, True], initial=10)),
    (f"let r = nanmean({M_ARR}, axis=0, where=[[true], [true], [false]])",
     lambda: np.nanmean(np.asarray(M), axis=0, where=[[True], [True], [False]])),
    (f"let r = nanmax({M_ARR}, axis=1, initial=2.0)", lambda: np.nanmax(np.asarray(M), axis=1, initial=2.0)),
    (f"let r = nanmin({M_ARR} as f32, axis=1, where=[true, false, true], initial=-5)",
     lambda: np.nanmin(np.asarray(M, dtype=np.float32), axis=1, where=[True, False, True], initial=-5)),
    ("let r = nanmax(zeros([0]), initial=1.5)", lambda: np.nanmax(np.zeros(0, dtype=np.float32), initial=1.5)),
    ("let r = max(ones([2, 3]), where=ones([3]) > 0.0)\nprint(r)", "E0105"),
    ("let r = nanmin(ones([2, 3]), axis=1, where=[true, false, true])\nprint(r)", "E0105"),
    ("let r = sum(ones([2, 3]), where=ones([3, 3]) > 0.0)\nprint(r)", "E0200"),
    ("let r = sum(ones([2, 3]), where=ones([2, 1, 3]) > 0.0)\nprint(r)", "E0200"),
    ("let r = max(ones([3]), initial=[1.0, 2.0])\nprint(r)", "E0212"),
    ("let r = min(zeros([2, 0]), axis=1)\nprint(r)", "E0402"),
]


def main():
    write("numerics/prims.json", [row(src, expect, numpy="same") for src, expect in ROWS])


if __name__ == "__main__":
    main()
