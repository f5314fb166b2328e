"""Writes tests/golden/numerics/order.json: NumPy's results for the operations
whose answer is an order or a position (argmin and argmax, sort and argsort,
boolean-mask selection and nonzero), on inputs
big enough to cross the fused CPU executor's pieces, chunks and blocks: ties
(the first index wins), NaNs (the first NaN wins), infinities, rows, columns,
tiny rows, transposed, reversed and flattened views, integers and bools. The
inputs are integer hashes, exact in any dtype, so Arr and NumPy see the same
values. tests/numerics.rs runs every row on both CPU executors.

Run: python3 tests/golden/make_order.py (needs numpy).
"""

import numpy as np

from golden_table import row, write


def h(n, dtype=np.float32):
    """The hash values `(arange(n) * 7919) % 10007`: every value repeats after 10007."""
    return ((np.arange(n, dtype=np.int64) * 7919) % 10007).astype(dtype)


def h_arr(n, dtype="f32"):
    return f"((arange({n}) * 7919) % 10007) as {dtype}"


def with_nans(x, every, at):
    x = x.copy()
    x[np.arange(x.size) % every == at] = np.nan
    return x


def nans_arr(src, n, every, at):
    return f"where(arange({n}) % {every} == {at}, 0.0 / 0.0, {src})"


def with_infs(x):
    x = x.copy()
    x[77] = np.inf
    x[4000] = -np.inf
    return x


INFS_ARR = "where(arange(6000) == 77, 1.0 / 0.0, where(arange(6000) == 4000, -1.0 / 0.0, {}))".format(h_arr(6000))

# bands of 40000 (of 2100 along a row of 5000) each 20000 above the last
TREND = ((np.arange(100000) // 40000) * 20000 + h(100000, np.int64)).astype(np.float32)
TREND_ARR = f"((arange(100000) // 40000) * 20000 + (arange(100000) * 7919) % 10007) as f32"
ROW_TREND = ((np.arange(60000) % 5000 // 2100) * 20000 + h(60000, np.int64)).astype(np.float32)
ROW_TREND_ARR = f"((arange(60000) % 5000 // 2100) * 20000 + (arange(60000) * 7919) % 10007) as f32"

M = h(60000).reshape(12, 5000)
M_ARR = f"reshape({h_arr(60000)}, [12, 5000])"
# NaNs in rows 3 and 9 only (at columns 4321 and 17), none in the other rows
MN = M.copy()
MN[3, 4321] = MN[9, 17] = MN[9, 4000] = np.nan
POS_ARR = "reshape(arange(60000), [12, 5000])"
MN_ARR = (f"where(logical_or(logical_or({POS_ARR} == 3 * 5000 + 4321, {POS_ARR} == 9 * 5000 + 17), "
          f"{POS_ARR} == 9 * 5000 + 4000), 0.0 / 0.0, {M_ARR})")

ROWS = []
for fn in ("argmax", "argmin"):
    f = getattr(np, fn)
    ROWS += [
        # one output over 100000 values: several chunks, ties across them
        (f"let r = {fn}({h_arr(100000)})", lambda f=f: f(h(100000))),
        (f"let r = {fn}({h_arr(100000, 'f64')})", lambda f=f: f(h(100000, np.float64))),
        (f"let r = {fn}({h_arr(100000, 'i32')})", lambda f=f: f(h(100000, np.int32))),
        (f"let r = {fn}({h_arr(100000, 'i64')})", lambda f=f: f(h(100000, np.int64))),
        # the first NaN wins, in a later chunk than the extreme
        (f"let r = {fn}({nans_arr(h_arr(100000), 100000, 40013, 40012)})",
         lambda f=f: f(with_nans(h(100000), 40013, 40012))),
        (f"let r = {fn}({INFS_ARR})", lambda f=f: f(with_infs(h(6000)))),
        # the extreme first met in a later chunk, tied within it
        (f"let r = {fn}({TREND_ARR})", lambda f=f: f(TREND)),
        (f"let r = {fn}(-({TREND_ARR}))", lambda f=f: f(-TREND)),
        (f"let r = {fn}(reshape({ROW_TREND_ARR}, [12, 5000]), axis=1)", lambda f=f: f(ROW_TREND.reshape(12, 5000), axis=1)),
        (f"let r = {fn}(-reshape({ROW_TREND_ARR}, [12, 5000]), axis=1)", lambda f=f: f(-ROW_TREND.reshape(12, 5000), axis=1)),
        # reversed and strided views of one buffer
        (f"let r = {fn}(({h_arr(100000)})[::-1])", lambda f=f: f(h(100000)[::-1])),
        (f"let r = {fn}(({h_arr(100000)})[5::3])", lambda f=f: f(h(100000)[5::3])),
        # rows (across pieces), columns, flattened, transposed
        (f"let r = {fn}({M_ARR}, axis=1)", lambda f=f: f(M, axis=1)),
        (f"let r = {fn}({M_ARR}, axis=0)", lambda f=f: f(M, axis=0)),
        (f"let r = {fn}({M_ARR})", lambda f=f: f(M)),
        (f"let r = {fn}(transpose({M_ARR}))", lambda f=f: f(M.T)),
        (f"let r = {fn}(transpose({M_ARR}), axis=1)", lambda f=f: f(M.T, axis=1)),
        (f"let r = {fn}(transpose({M_ARR}), axis=0)", lambda f=f: f(M.T, axis=0)),
        (f"let r = {fn}({MN_ARR}, axis=1)", lambda f=f: f(MN, axis=1)),
        (f"let r = {fn}({MN_ARR}, axis=0)", lambda f=f: f(MN, axis=0)),
        # a fused expression as the values
        (f"let r = {fn}(3.0 - 2.0 * {M_ARR}, axis=1)", lambda f=f: f(np.float32(3) - np.float32(2) * M, axis=1)),
        # tiny rows, and the middle axis of three
        (f"let r = {fn}(reshape({h_arr(8000)}, [2000, 4]), axis=1)", lambda f=f: f(h(8000).reshape(2000, 4), axis=1)),
        (f"let r = {fn}(reshape({h_arr(60000)}, [10, 600, 10]), axis=1)",
         lambda f=f: f(h(60000).reshape(10, 600, 10), axis=1)),
        (f"let r = {fn}(reshape({h_arr(60000, 'i32')}, [10, 600, 10]), axis=2)",
         lambda f=f: f(h(60000, np.int32).reshape(10, 600, 10), axis=2)),
        # bools: the first true (argmax) or false (argmin), 0 where there is none
        (f"let r = {fn}({M_ARR} > 10000.0, axis=1)", lambda f=f: f(M > 10000, axis=1)),
        (f"let r = {fn}({M_ARR} > 9990.0, axis=0)", lambda f=f: f(M > 9990, axis=0)),
        (f"let r = {fn}({h_arr(100000)} < 20000.0)", lambda f=f: f(h(100000) < 20000)),
    ]


# Sorts: lines either side of the radix sort's 512, NaNs (last), both zeros,
# infinities, ties (argsort is stable, as kind="stable"), every dtype, axes.
S = with_nans(h(1500) - 5000, 97, 3)
S[[10, 20, 30, 40]] = [np.inf, -np.inf, -0.0, 0.0]
S_ARR = ("where(arange(1500) == 10, 1.0 / 0.0, where(arange(1500) == 20, -1.0 / 0.0, "
         "where(arange(1500) == 30, -0.0, where(arange(1500) == 40, 0.0, "
         + nans_arr(f"{h_arr(1500)} - 5000.0", 1500, 97, 3) + "))))")
ROWS += [
    (f"let r = sort({S_ARR})", lambda: np.sort(S)),
    (f"let r = argsort({S_ARR})", lambda: np.argsort(S, kind="stable")),
    (f"let r = argsort(({S_ARR}) as f64)", lambda: np.argsort(S.astype(np.float64), kind="stable")),
    (f"let r = sort(({S_ARR})[:300])", lambda: np.sort(S[:300])),
    (f"let r = argsort(({S_ARR})[:300])", lambda: np.argsort(S[:300], kind="stable")),
    (f"let r = argsort({h_arr(1500, 'i32')} % 50 - 25)", lambda: np.argsort(h(1500, np.int32) % 50 - 25, kind="stable")),
    (f"let r = argsort({h_arr(1500, 'i64')} * 1000000007 - 5000000000000)",
     lambda: np.argsort(h(1500, np.int64) * 1000000007 - 5000000000000, kind="stable")),
    (f"let r = sort({h_arr(1500, 'i64')} * -3)", lambda: np.sort(h(1500, np.int64) * -3)),
    (f"let r = argsort({h_arr(1500)} > 5000.0)", lambda: np.argsort(h(1500) > 5000, kind="stable")),
    (f"let r = sort(reshape({h_arr(2400)}, [3, 800]))", lambda: np.sort(h(2400).reshape(3, 800))),
    (f"let r = argsort(reshape({h_arr(2400)}, [800, 3]), axis=0)",
     lambda: np.argsort(h(2400).reshape(800, 3), axis=0, kind="stable")),
    (f"let r = argsort(reshape({h_arr(2400)} % 7.0, [40, 60]), axis=1)",
     lambda: np.argsort((h(2400) % 7).reshape(40, 60), axis=1, kind="stable")),
]

# Boolean masks: sparse over many elements (past the parallel split), dense,
# strided and fused sources, every dtype, a mask over the rows of a matrix.
X = h(300000)
X_ARR = h_arr(300000)
ROWS += [
    (f"let x = {X_ARR}\nlet r = x[x > 9990.0]", lambda: X[X > 9990]),
    (f"let x = {X_ARR}\nlet r = (x * 2.0)[x > 9995.0]", lambda: (X * 2)[X > 9995]),
    (f"let x = {X_ARR}\nlet r = x[::3][x[::3] > 9990.0]", lambda: X[::3][X[::3] > 9990]),
    (f"let x = {X_ARR}\nlet r = (x as i32)[x < 3.0]", lambda: X.astype(np.int32)[X < 3]),
    (f"let x = {X_ARR}\nlet r = (x as f64)[x < 3.0]", lambda: X.astype(np.float64)[X < 3]),
    (f"let x = {X_ARR}\nlet r = (x > 100.0)[x < 3.0]", lambda: (X > 100)[X < 3]),
    (f"let x = {X_ARR}\nlet r = nonzero(x > 9995.0)[0]", lambda: np.nonzero(X > 9995)[0]),
    (f"let x = {h_arr(3000)}\nlet r = x[x > 5000.0]", lambda: h(3000)[h(3000) > 5000]),
    (f"let x = {h_arr(3000)}\nlet r = x[x > 20000.0]", lambda: h(3000)[h(3000) > 20000]),
    (f"let m = {M_ARR}\nlet r = m[:, :4][m[:, 0] > 3000.0]", lambda: M[:, :4][M[:, 0] > 3000]),
    (f"let m = {M_ARR}\nlet r = m[:, :6][m[:, :6] > 8000.0]", lambda: M[:, :6][M[:, :6] > 8000]),
]


def main():
    write("numerics/order.json", [row(src, expect, numpy="same") for src, expect in ROWS])


if __name__ == "__main__":
    main()
