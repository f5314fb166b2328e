"""Writes tests/golden/index_sort/table.json: boolean-mask and integer-array
indexing, sorting and searching, and counting (issue 12, item 3), one row
each: an Arr program that binds `r`, and the dtype, shape and values NumPy
gives for the same computation (written here in NumPy, independently of
Arr's output). Rows with "error" expect that diagnostic code.

Run: python3 tests/golden/make_index_sort.py (needs numpy; the Rust test
tests/index_sort.rs reads only the committed JSON, on both CPU executors).
"""


import numpy as np

from golden_table import row, write

f32 = lambda a: np.asarray(a, dtype=np.float32)
i32 = lambda a: np.asarray(a, dtype=np.int32)
nan = np.nan

# the same inputs in both languages
M = "let m = reshape(arange(12) * 7 % 5, [3, 4])"
m = lambda: (np.arange(12) * 7 % 5).reshape(3, 4)
V = "let v = [3.0, nan, -1.0, 3.0, 0.0, 2.0, nan, -1.0] as f32"
v = lambda: f32([3.0, nan, -1.0, 3.0, 0.0, 2.0, nan, -1.0])
T = "let t = transpose(reshape(arange(24) * 5 % 7, [2, 3, 4]))"
t = lambda: (np.arange(24) * 5 % 7).reshape(2, 3, 4).T


def assign(f):
    def run():
        return f()
    return run


def mask_assign():
    a = np.arange(10) - 4
    a[a < 0] = 0
    return a


def mask_assign_rows():
    a = m().astype(np.float32)
    a[np.array([True, False, True])] = f32([9, 8, 7, 6])
    return a


def mask_add():
    a = m().astype(np.float32)
    a[a > 2] += 100
    return a


def int_assign_dupes():
    a = np.arange(6)
    a[[0, 0, 2, -1]] = [1, 2, 3, 4]
    return a


def int_assign_scalar():
    a = np.arange(5)
    a[[1, 4]] = 7
    return a


def int_assign_cols():
    a = m()
    a[:, [0, -1]] = np.array([10, 20])
    return a


def add_dupes():
    a = np.zeros(4, np.int64)
    a[[1, 1, 3]] += 1
    return a


def view_assign():
    b = np.arange(12).reshape(3, 4)
    c = b.T
    c[c > 6] = -1
    return b


def empty_mask_assign():
    a = np.arange(5)
    a[a > 10] = 3
    return a


def uniq(x, **kw):
    return lambda: np.unique(x, **kw)


ROWS = [
    # --- boolean masks ---------------------------------------------------------
    (M + "\nlet r = m[m > 2]", lambda: m()[m() > 2]),
    (M + "\nlet r = m[[true, false, true]]", lambda: m()[np.array([True, False, True])]),
    (M + "\nlet r = m[:, [true, false, false, true]]", lambda: m()[:, np.array([True, False, False, True])]),
    (M + "\nlet r = m[m > 10]", lambda: m()[m() > 10]),
    (T + "\nlet r = t[t % 2 == 0]", lambda: t()[t() % 2 == 0]),
    (V + "\nlet r = v[isnan(v) == false]", lambda: v()[~np.isnan(v())]),
    ("let r = arange(10) - 4\nr[r < 0] = 0", mask_assign),
    (M + "\nlet r = m as f32\nr[[true, false, true]] = [9, 8, 7, 6]", mask_assign_rows),
    (M + "\nlet r = m as f32\nr[r > 2] += 100", mask_add),
    ("let b = reshape(arange(12), [3, 4])\nlet c = transpose(b)\nc[c > 6] = -1\nlet r = b", view_assign),
    ("let r = arange(5)\nr[r > 10] = 3", empty_mask_assign),
    (M + "\nlet r = m[m > 2.5]", lambda: m()[m() > 2.5]),
    # --- integer arrays -------------------------------------------------------
    (M + "\nlet r = m[[2, 0, -1]]", lambda: m()[[2, 0, -1]]),
    (M + "\nlet r = m[:, [3, 3, 0]]", lambda: m()[:, [3, 3, 0]]),
    ("let r = arange(6)\nr[[0, 0, 2, -1]] = [1, 2, 3, 4]", int_assign_dupes),
    ("let r = arange(5)\nr[[1, 4]] = 7", int_assign_scalar),
    (M + "\nlet r = m\nr[:, [0, -1]] = [10, 20]", int_assign_cols),
    ("let r = zeros([4], dtype=i64)\nr[[1, 1, 3]] += 1", add_dupes),
    # --- new axes ---------------------------------------------------------------
    (M + "\nlet r = m[None] + 0", lambda: m()[None]),
    (M + "\nlet r = m[:, None, 1:3] + 0", lambda: m()[:, None, 1:3]),
    (M + "\nlet r = m[none, ..., None] + 0", lambda: m()[None, ..., None]),
    # --- nonzero, count_nonzero, take ---------------------------------------------
    (M + "\nlet r = nonzero(m > 2)[0]", lambda: np.nonzero(m() > 2)[0]),
    (M + "\nlet r = nonzero(m > 2)[1]", lambda: np.nonzero(m() > 2)[1]),
    ("let r = nonzero([0.0, 1.5, 0.0, -2.0])[0]", lambda: np.nonzero(f32([0, 1.5, 0, -2]))[0]),
    (M + "\nlet r = flatnonzero(m)", lambda: np.flatnonzero(m())),
    (M + "\nlet r = argwhere(m > 2)", lambda: np.argwhere(m() > 2)),
    (M + "\nlet r = count_nonzero(m)", lambda: np.int64(np.count_nonzero(m()))),
    (M + "\nlet r = count_nonzero(m, axis=0)", lambda: np.count_nonzero(m(), axis=0)),
    (T + "\nlet r = count_nonzero(t > 3, axis=(0, 2))", lambda: np.count_nonzero(t() > 3, axis=(0, 2))),
    (M + "\nlet r = take(m, [0, -1, 5])", lambda: np.take(m(), [0, -1, 5])),
    (M + "\nlet r = take(m, [[1, 0], [2, 2]], axis=1)", lambda: np.take(m(), [[1, 0], [2, 2]], axis=1)),
    (T + "\nlet r = take(t, [1], axis=-1)", lambda: np.take(t(), [1], axis=-1)),
    # --- sort, argsort ----------------------------------------------------------------
    (V + "\nlet r = sort(v)", lambda: np.sort(v())),
    (V + "\nlet r = argsort(v)", lambda: np.argsort(v(), kind="stable")),
    (M + "\nlet r = sort(m, axis=0)", lambda: np.sort(m(), axis=0)),
    (M + "\nlet r = argsort(m)", lambda: np.argsort(m(), kind="stable")),
    (M + "\nlet r = argsort(m, axis=0)", lambda: np.argsort(m(), axis=0, kind="stable")),
    (M + "\nlet r = sort(m, axis=none)", lambda: np.sort(m(), axis=None)),
    (T + "\nlet r = sort(t, axis=1)", lambda: np.sort(t(), axis=1)),
    (T + "\nlet r = argsort(t, axis=0)", lambda: np.argsort(t(), axis=0, kind="stable")),
    ("let r = argsort([2, 1, 2, 1, 2] as i32)", lambda: np.argsort(i32([2, 1, 2, 1, 2]), kind="stable")),
    ("let r = sort([true, false, true])", lambda: np.sort(np.array([True, False, True]))),
    ("let r = sort(zeros([0]))", lambda: np.sort(np.zeros(0, np.float32))),
    ("let r = argsort(arange(10)[::-2])", lambda: np.argsort(np.arange(10)[::-2], kind="stable")),
    ("let r = sort([1.0, -inf, inf, nan, 0.0] as f64)",
     lambda: np.sort(np.array([1.0, -np.inf, np.inf, np.nan, 0.0]))),
    # --- partition, argpartition: what NumPy fixes (the kth elements; the sides' contents) ---
    (V + "\nlet r = partition(v, 3)[3]", lambda: np.partition(v(), 3)[3]),
    (V + "\nlet r = sort(partition(v, [1, -2]))", lambda: np.sort(np.partition(v(), [1, -2]))),
    (V + "\nlet r = partition(v, [1, -2])[[1, -2]]", lambda: np.partition(v(), [1, -2])[[1, -2]]),
    (V + "\nlet r = v[argpartition(v, -1)][-1]", lambda: v()[np.argpartition(v(), -1)][-1]),
    (V + "\nlet r = sort(partition(v, 4)[:4])", lambda: np.sort(np.partition(v(), 4)[:4])),
    (M + "\nlet r = partition(m, 1, axis=0)[1]", lambda: np.partition(m(), 1, axis=0)[1]),
    (M + "\nlet r = partition(m, [0, 3], axis=none)[[0, 3]]", lambda: np.partition(m(), [0, 3], axis=None)[[0, 3]]),
    (M + "\nlet r = take_along_axis(m, argpartition(m, 2), 1)[:, 2]",
     lambda: np.take_along_axis(m(), np.argpartition(m(), 2), 1)[:, 2]),
    (T + "\nlet r = partition(t, -1, axis=1)[:, -1]", lambda: np.partition(t(), -1, axis=1)[:, -1]),
    ("let r = partition(zeros([0]), 3)", lambda: np.partition(np.zeros(0, np.float32), 3)),
    ("let r = argpartition([true, false, true], 0)[0]", lambda: np.argpartition(np.array([True, False, True]), 0)[0]),
    # --- unique ------------------------------------------------------------------------
    (V + "\nlet r = unique(v)", lambda: np.unique(v())),
    (V + "\nlet (u, r) = unique(v, return_counts=true)", lambda: np.unique(v(), return_counts=True)[1]),
    (M + "\nlet (u, r) = unique(m, return_index=true)", lambda: np.unique(m(), return_index=True)[1]),
    (M + "\nlet (u, r) = unique(m, return_inverse=true)", lambda: np.unique(m(), return_inverse=True)[1]),
    (M + "\nlet (u, i, v, r) = unique(m, true, true, true)", lambda: np.unique(m(), True, True, True)[3]),
    ("let (r, c) = unique_counts([3, 1, 3] as i32)", lambda: np.unique_counts(i32([3, 1, 3])).values),
    ("let r = unique(zeros([0], dtype=i64))", lambda: np.unique(np.zeros(0, np.int64))),
    # --- interp ---------------------------------------------------------------------------
    ("let r = interp([0.0, 1.0, 1.5, 2.5, 3.0, 4.0, nan], [1.0, 2.0, 3.0], [10.0, 20.0, 40.0])",
     lambda: np.interp([0.0, 1.0, 1.5, 2.5, 3.0, 4.0, np.nan], [1.0, 2.0, 3.0], [10.0, 20.0, 40.0])),
    ("let r = interp([0, 5, 2], [1, 2, 3], [10, 20, 40], left=-1.0, right=99)",
     lambda: np.interp([0, 5, 2], [1, 2, 3], [10, 20, 40], left=-1.0, right=99)),
    ("let r = interp(reshape(arange(6), [2, 3]) * 0.75, [0.0, 1.0, 4.0], [1.0, -1.0, 5.0])",
     lambda: np.interp(np.arange(6).reshape(2, 3) * 0.75, [0.0, 1.0, 4.0], [1.0, -1.0, 5.0])),
    ("let r = interp([1.0, 2.0, 3.0], [2.0], [7.0])", lambda: np.interp([1.0, 2.0, 3.0], [2.0], [7.0])),
    ("let r = interp(2.5, [1.0, 2.0, 3.0] as f32, [0.5, 0.25, 0.0] as f32)",
     lambda: np.float32(np.interp(2.5, [1.0, 2.0, 3.0], [0.5, 0.25, 0.0]))),
    ("let r = interp([1.0], eye(2), [1.0, 2.0])", "E0212"),
    ("let r = interp([1.0], [1.0, 2.0], [1.0, 2.0, 3.0])", "E0212"),
    # --- searchsorted ---------------------------------------------------------------------
    ("let r = searchsorted([1, 2, 2, 4], [2, 3, 0, 9])", lambda: np.searchsorted([1, 2, 2, 4], [2, 3, 0, 9])),
    ("let r = searchsorted([1, 2, 2, 4], [2, 3, 0, 9], side=\"right\")",
     lambda: np.searchsorted([1, 2, 2, 4], [2, 3, 0, 9], side="right")),
    ("let r = searchsorted([1.0, 2.0, nan], [nan, 1.5])", lambda: np.searchsorted(f32([1, 2, nan]), f32([nan, 1.5]))),
    ("let r = searchsorted([3, 1, 2], [[2, 5]], sorter=[1, 2, 0])",
     lambda: np.searchsorted([3, 1, 2], [[2, 5]], sorter=[1, 2, 0])),
    ("let r = searchsorted(arange(5), 2.5)", lambda: np.searchsorted(np.arange(5), 2.5)),
    # --- median, percentile, quantile ----------------------------------------------------------
    (M + "\nlet r = median(m)", lambda: np.median(m())),
    (M + "\nlet r = median(m, axis=1)", lambda: np.median(m(), axis=1)),
    (M + "\nlet r = median(m as f32, axis=0, keepdims=true)",
     lambda: np.median(m().astype(np.float32), axis=0, keepdims=True)),
    (V + "\nlet r = median(v)", lambda: np.median(v())),
    (M + "\nlet r = percentile(m, [10, 50, 90], axis=0)", lambda: np.percentile(m(), [10, 50, 90], axis=0)),
    (M + "\nlet r = quantile(m as f32, 0.3)", lambda: np.quantile(m().astype(np.float32), 0.3)),
    (T + "\nlet r = quantile(t as f64, [0.0, 0.25, 1.0], axis=(0, 1))",
     lambda: np.quantile(t().astype(np.float64), [0.0, 0.25, 1.0], axis=(0, 1))),
    ("let r = percentile([1.0, 2.0, 3.0, 4.0] as f64, 33.3)", lambda: np.percentile([1.0, 2.0, 3.0, 4.0], 33.3)),
    # --- bincount, histogram -----------------------------------------------------------------
    ("let r = bincount([0, 1, 1, 3, 1])", lambda: np.bincount([0, 1, 1, 3, 1])),
    ("let r = bincount([2, 0] as i32, minlength=5)", lambda: np.bincount(i32([2, 0]), minlength=5)),
    ("let r = bincount([0, 1, 1], weights=[0.5, 1.0, 2.0])", lambda: np.bincount([0, 1, 1], weights=[0.5, 1.0, 2.0])),
    ("let r = bincount(zeros([0], dtype=i64))", lambda: np.bincount(np.zeros(0, np.int64))),
    ("let (r, e) = histogram([1, 2, 2, 3, 7], bins=3)", lambda: np.histogram([1, 2, 2, 3, 7], bins=3)[0]),
    ("let (h, r) = histogram([1, 2, 2, 3, 7], bins=3)", lambda: np.histogram([1, 2, 2, 3, 7], bins=3)[1]),
    (V + "\nlet (r, e) = histogram(v, bins=4, range=(-1, 3))",
     lambda: np.histogram(v(), bins=4, range=(-1, 3))[0]),
    (V + "\nlet (h, r) = histogram(v, bins=4, range=(-1, 3))",
     lambda: np.histogram(v(), bins=4, range=(-1, 3))[1]),
    ("let (r, e) = histogram(sin(arange(1000) as f32), bins=7)",
     lambda: np.histogram(np.sin(np.arange(1000, dtype=np.float32)), bins=7)[0]),
    ("let (r, e) = histogram([1.0, 2.5, 4.0], bins=[0.0, 1.0, 2.5, 4.0])",
     lambda: np.histogram(f32([1.0, 2.5, 4.0]), bins=f32([0.0, 1.0, 2.5, 4.0]))[0]),
    ("let (r, e) = histogram([5, 5, 5])", lambda: np.histogram([5, 5, 5])[0]),
    ("let (r, e) = histogram([1, 2, 3] as f64, bins=2, weights=[1.0, 2.0, 4.0] as f64)",
     lambda: np.histogram([1.0, 2.0, 3.0], bins=2, weights=[1.0, 2.0, 4.0])[0]),
    ("let (r, e) = histogram([1, 2, 3, 3] as f64, bins=2, density=true)",
     lambda: np.histogram([1.0, 2.0, 3.0, 3.0], bins=2, density=True)[0]),
    # --- errors -----------------------------------------------------------------------------
    (M + "\nlet r = m[[true, false]]", "E0212"),
    (M + "\nlet r = m[[0, 3]]", "E0204"),
    (M + "\nlet r = m[[0.0, 1.0]]", "E0300"),
    (M + "\nlet r = take(m, [12])", "E0204"),
    (M + "\nlet r = take(m, [1.0])", "E0300"),
    (M + "\nlet r = sort(m, axis=2)", "E0201"),
    (M + "\nlet r = partition(m, 4)", "E0204"),
    (M + "\nlet r = argpartition(m, [0, -4], axis=0)", "E0204"),
    (M + "\nlet r = partition(m, 12, axis=none)", "E0204"),
    (M + "\nlet r = partition(m, 1.0)", "E0300"),
    (M + "\nlet r = argpartition(m, [[1]])", "E0212"),
    ("let r = bincount([1, -1])", "E0413"),
    ("let r = bincount([1.0, 2.0])", "E0300"),
    ("let r = quantile(arange(4), 1.5)", "E0413"),
    ("let r = percentile(arange(4), [50, 101])", "E0413"),
    ("let r = searchsorted(ones([2, 2]), 1.0)", "E0212"),
    ("let r = searchsorted(arange(3), 1, side=\"middle\")", "E0413"),
    ("let (h, e) = histogram([1.0, nan])", "E0413"),
    ("let r = arange(3)\nr[[0, 1]] = [1, 2, 3]", "E0208"),
]


def main():
    write("index_sort/table.json", [row(src, expect) for src, expect in ROWS])


if __name__ == "__main__":
    main()
