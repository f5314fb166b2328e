"""Writes tests/golden/shape_linalg/cases.txt: NumPy's results for Arr's shape,
construction and linear-algebra builtins (issue 12, item 3), read by
tests/shape_linalg.rs, which runs each Arr expression on both CPU executors.

Each case is an Arr expression and the NumPy expression that means the same,
over the same inputs (PRELUDE_ARR and PRELUDE_NP build them alike). A case's
record is four lines:
    case <name>
    arr <Arr expression>
    want <kind: int|float|bool> <shape, comma-separated, "-" for a scalar>
    values <the elements, row-major, space-separated>
Arr's default float is f32 where NumPy's is f64, so values are compared within
a relative 1e-5 and only the kind of the dtype is compared.

Run: python3 tests/golden/make_shape_linalg.py
"""

import os
import warnings

import numpy as np

# NumPy 2 deprecates 2-vectors in `cross`; the result is still defined
warnings.simplefilter("ignore", DeprecationWarning)

PRELUDE_ARR = """
let v = arange(5) * 1.5 - 2.0
let iv = [3, 1, 4, 1, 5, 9]
let m = reshape(arange(12), [3, 4])
let fm = reshape(arange(12) * 0.5 - 2.0, [3, 4])
let t = reshape(arange(24) * 0.25 - 3.0, [2, 3, 4])
let q = [[4.0, -2.0, 1.0], [3.0, 6.0, -4.0], [2.0, 1.0, 8.0]]
let qs = stack([q, transpose(q) + eye(3), q * 2.0 - eye(3)])
let bs = reshape(arange(18) * 1.0 - 4.0, [3, 3, 2])
let p = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
let w = [[7.0, 8.0, 9.0], [1.0, -1.0, 2.0]]
let bools = [true, false, false, true, true]
"""


def prelude_np():
    v = np.arange(5) * 1.5 - 2.0
    iv = np.array([3, 1, 4, 1, 5, 9])
    m = np.arange(12).reshape(3, 4)
    fm = (np.arange(12) * 0.5 - 2.0).reshape(3, 4)
    t = (np.arange(24) * 0.25 - 3.0).reshape(2, 3, 4)
    q = np.array([[4.0, -2.0, 1.0], [3.0, 6.0, -4.0], [2.0, 1.0, 8.0]])
    qs = np.stack([q, q.T + np.eye(3), q * 2.0 - np.eye(3)])
    bs = (np.arange(18) * 1.0 - 4.0).reshape(3, 3, 2)
    p = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    w = np.array([[7.0, 8.0, 9.0], [1.0, -1.0, 2.0]])
    bools = np.array([True, False, False, True, True])
    return dict(np=np, v=v, iv=iv, m=m, fm=fm, t=t, q=q, qs=qs, bs=bs, p=p, w=w, bools=bools)


# (name, Arr expression, NumPy expression)
CASES = [
    # diff
    ("diff_1d", "diff(iv)", "np.diff(iv)"),
    ("diff_n2", "diff(iv, n=2)", "np.diff(iv, n=2)"),
    ("diff_axis0", "diff(m, axis=0)", "np.diff(m, axis=0)"),
    ("diff_neg_axis_3d", "diff(t, n=2, axis=-2)", "np.diff(t, n=2, axis=-2)"),
    ("diff_view", "diff(transpose(fm))", "np.diff(fm.T)"),
    ("diff_bool", "diff(bools)", "np.diff(bools)"),
    ("diff_past_length", "diff(iv, n=7)", "np.diff(iv, n=7)"),
    # roll
    ("roll_flat", "roll(m, 5)", "np.roll(m, 5)"),
    ("roll_neg", "roll(iv, -2)", "np.roll(iv, -2)"),
    ("roll_axis", "roll(m, 1, axis=0)", "np.roll(m, 1, axis=0)"),
    ("roll_axes", "roll(t, (1, -1), axis=(0, 2))", "np.roll(t, (1, -1), axis=(0, 2))"),
    ("roll_big_shift", "roll(m, 9, axis=-1)", "np.roll(m, 9, axis=-1)"),
    # repeat
    ("repeat_flat", "repeat(m, 2)", "np.repeat(m, 2)"),
    ("repeat_axis", "repeat(fm, 3, axis=1)", "np.repeat(fm, 3, axis=1)"),
    ("repeat_counts", "repeat(m, [2, 0, 1], axis=0)", "np.repeat(m, [2, 0, 1], axis=0)"),
    ("repeat_neg_axis", "repeat(t, 2, axis=-2)", "np.repeat(t, 2, axis=-2)"),
    # tile
    ("tile_int", "tile(iv, 2)", "np.tile(iv, 2)"),
    ("tile_2d", "tile(m, (2, 1))", "np.tile(m, (2, 1))"),
    ("tile_more_reps", "tile(v, (2, 1, 2))", "np.tile(v, (2, 1, 2))"),
    ("tile_fewer_reps", "tile(t, 2)", "np.tile(t, 2)"),
    # pad
    ("pad_int", "pad(m, 1)", "np.pad(m, 1)"),
    ("pad_pairs", "pad(fm, ((1, 2), (0, 3)), constant_values=7)", "np.pad(fm, ((1, 2), (0, 3)), constant_values=7)"),
    ("pad_edge", "pad(m, ((2, 1), (1, 2)), mode=\"edge\")", "np.pad(m, ((2, 1), (1, 2)), mode='edge')"),
    ("pad_reflect", "pad(iv, (3, 2), mode=\"reflect\")", "np.pad(iv, (3, 2), mode='reflect')"),
    ("pad_symmetric", "pad(m, (1, 2), mode=\"symmetric\")", "np.pad(m, (1, 2), mode='symmetric')"),
    ("pad_wrap", "pad(t, ((0, 0), (1, 1), (2, 0)), mode=\"wrap\")", "np.pad(t, ((0, 0), (1, 1), (2, 0)), mode='wrap')"),
    # diag, diagonal, trace
    ("diag_vec", "diag(v)", "np.diag(v)"),
    ("diag_vec_k", "diag(iv, k=2)", "np.diag(iv, k=2)"),
    ("diag_vec_neg_k", "diag(v, k=-1)", "np.diag(v, k=-1)"),
    ("diag_mat", "diag(m)", "np.diag(m)"),
    ("diag_mat_k", "diag(m, k=1)", "np.diag(m, k=1)"),
    ("diag_mat_neg_k", "diag(m, -2)", "np.diag(m, -2)"),
    ("diagonal_3d", "diagonal(t, offset=1, axis1=1, axis2=2)", "np.diagonal(t, offset=1, axis1=1, axis2=2)"),
    ("diagonal_neg_axes", "diagonal(t, axis1=-1, axis2=0)", "np.diagonal(t, axis1=-1, axis2=0)"),
    ("trace_m", "trace(m)", "np.trace(m)"),
    ("trace_offset", "trace(fm, offset=-1)", "np.trace(fm, offset=-1)"),
    ("trace_3d", "trace(t, axis1=1, axis2=2)", "np.trace(t, axis1=1, axis2=2)"),
    # tril, triu
    ("tril", "tril(m)", "np.tril(m)"),
    ("tril_k", "tril(fm, k=-1)", "np.tril(fm, k=-1)"),
    ("triu_k", "triu(m, k=1)", "np.triu(m, k=1)"),
    ("triu_3d", "triu(t)", "np.triu(t)"),
    ("triu_view", "triu(transpose(m), 2)", "np.triu(m.T, 2)"),
    # array, asarray
    ("array_nested", "array([[1, 2], [3, 4]])", "np.array([[1, 2], [3, 4]])"),
    ("array_dtype", "array(iv, dtype=f64) / 4", "np.array(iv, dtype=np.float64) / 4"),
    ("array_view", "array(transpose(fm))", "np.array(fm.T)"),
    ("asarray_dtype", "asarray(m, dtype=f32) * 0.5", "np.asarray(m, dtype=np.float32) * 0.5"),
    ("asarray_same", "asarray(bools)", "np.asarray(bools)"),
    # ravel
    ("ravel", "ravel(t)", "np.ravel(t)"),
    ("ravel_view", "ravel(transpose(m))", "np.ravel(m.T)"),
    # vstack, hstack, column_stack
    ("vstack_vectors", "vstack([v, v * 2.0])", "np.vstack([v, v * 2.0])"),
    ("vstack_mixed", "vstack([m, [1, 2, 3, 4]])", "np.vstack([m, [1, 2, 3, 4]])"),
    ("vstack_scalars", "vstack([1.5, 2.5])", "np.vstack([1.5, 2.5])"),
    ("hstack_vectors", "hstack([iv, [7, 8]])", "np.hstack([iv, [7, 8]])"),
    ("hstack_matrices", "hstack([fm, transpose(p)[:3, :]])", "np.hstack([fm, p.T[:3, :]])"),
    ("hstack_rank3", "hstack([t, t])", "np.hstack([t, t])"),
    ("hstack_scalars", "hstack([1, 2, 3])", "np.hstack([1, 2, 3])"),
    ("column_stack_vectors", "column_stack([v, v * 3.0])", "np.column_stack([v, v * 3.0])"),
    ("column_stack_mixed", "column_stack([fm, [1.0, 2.0, 3.0]])", "np.column_stack([fm, [1.0, 2.0, 3.0]])"),
    # identity, empty_like, linspace, meshgrid
    ("identity", "identity(4)", "np.identity(4)"),
    ("identity_int", "identity(3, dtype=i64)", "np.identity(3, dtype=np.int64)"),
    ("empty_like_shape", "zeros(shape(empty_like(t)), dtype=i64) + 1", "np.ones(np.empty_like(t).shape, dtype=np.int64)"),
    ("linspace", "linspace(2.0, 3.0, num=5)", "np.linspace(2.0, 3.0, num=5)"),
    ("linspace_no_end", "linspace(2.0, 3.0, num=5, endpoint=false)", "np.linspace(2.0, 3.0, num=5, endpoint=False)"),
    ("linspace_default", "linspace(-1, 1)", "np.linspace(-1, 1)"),
    ("linspace_one", "linspace(0, 1, 1)", "np.linspace(0, 1, 1)"),
    ("meshgrid_xy_0", "meshgrid(v, iv, [1.0, 2.0])[0]", "np.meshgrid(v, iv, [1.0, 2.0])[0]"),
    ("meshgrid_xy_1", "meshgrid(v, iv, [1.0, 2.0])[1]", "np.meshgrid(v, iv, [1.0, 2.0])[1]"),
    ("meshgrid_xy_2", "meshgrid(v, iv, [1.0, 2.0])[2]", "np.meshgrid(v, iv, [1.0, 2.0])[2]"),
    ("meshgrid_ij_1", "meshgrid(v, iv, [1.0, 2.0], indexing=\"ij\")[1]", "np.meshgrid(v, iv, [1.0, 2.0], indexing='ij')[1]"),
    ("meshgrid_two", "meshgrid(v, iv)[0]", "np.meshgrid(v, iv)[0]"),
    # matmul (batched), dot, outer, cross
    ("matmul_batched", "t @ transpose(t, (0, 2, 1))", "t @ t.transpose(0, 2, 1)"),
    ("matmul_batched_broadcast", "reshape(t, [2, 1, 3, 4]) @ reshape(arange(40) * 0.1, [5, 4, 2])", "t.reshape(2, 1, 3, 4) @ (np.arange(40) * 0.1).reshape(5, 4, 2)"),
    ("matmul_batched_shared", "t @ transpose(fm)", "t @ fm.T"),
    ("matmul_batched_vec", "t @ [1.0, 2.0, 3.0, 4.0]", "t @ np.array([1.0, 2.0, 3.0, 4.0])"),
    ("matmul_vec_batched", "[1.0, 0.5, -1.0] @ t", "np.array([1.0, 0.5, -1.0]) @ t"),
    ("matmul_batched_int", "reshape(arange(24), [2, 3, 4]) @ reshape(arange(24), [2, 4, 3])", "np.arange(24).reshape(2, 3, 4) @ np.arange(24).reshape(2, 4, 3)"),
    ("matmul_batched_large", "reshape(arange(2 * 40 * 50) * 0.001, [2, 40, 50]) @ reshape(arange(2 * 50 * 70) * 0.002 - 3.0, [2, 50, 70])", "(np.arange(2 * 40 * 50) * 0.001).reshape(2, 40, 50) @ (np.arange(2 * 50 * 70) * 0.002 - 3.0).reshape(2, 50, 70)"),
    # products with a vector, past the parallel split: a matrix read along
    # its rows (dot products) and down its columns (scaled columns added)
    ("matvec_rows", "reshape(arange(300 * 700) % 13 * 0.25, [300, 700]) @ (arange(700) % 7 - 3.0)",
     "(np.arange(300 * 700) % 13 * 0.25).reshape(300, 700) @ (np.arange(700) % 7 - 3.0)"),
    ("matvec_cols", "transpose(reshape(arange(300 * 700) % 13 * 0.25, [700, 300])) @ (arange(700) % 7 - 3.0)",
     "(np.arange(300 * 700) % 13 * 0.25).reshape(700, 300).T @ (np.arange(700) % 7 - 3.0)"),
    ("vecmat_rows", "(arange(700) % 7 - 3.0) @ reshape(arange(300 * 700) % 13 * 0.25, [700, 300])",
     "(np.arange(700) % 7 - 3.0) @ (np.arange(300 * 700) % 13 * 0.25).reshape(700, 300)"),
    ("vecmat_cols", "(arange(700) % 7 - 3.0) @ transpose(reshape(arange(300 * 700) % 13 * 0.25, [300, 700]))",
     "(np.arange(700) % 7 - 3.0) @ (np.arange(300 * 700) % 13 * 0.25).reshape(300, 700).T"),
    ("matvec_f32_reversed", "(reshape(arange(3000) % 11 * 0.5, [60, 50]) as f32)[::-1, :] @ ((arange(50) % 5) as f32)",
     "(np.arange(3000) % 11 * 0.5).reshape(60, 50).astype(np.float32)[::-1, :] @ (np.arange(50) % 5).astype(np.float32)"),
    ("matvec_strided", "reshape(arange(40 * 30) * 0.5, [40, 30])[:, ::3] @ (arange(10) - 4.0)",
     "(np.arange(40 * 30) * 0.5).reshape(40, 30)[:, ::3] @ (np.arange(10) - 4.0)"),
    ("dot_vec", "dot(v, v)", "np.dot(v, v)"),
    ("dot_mat", "dot(fm, transpose(fm))", "np.dot(fm, fm.T)"),
    ("dot_scalar", "dot(2.5, m)", "np.dot(2.5, m)"),
    ("dot_nd", "dot(t, reshape(arange(40) * 0.5, [2, 4, 5]))", "np.dot(t, (np.arange(40) * 0.5).reshape(2, 4, 5))"),
    ("dot_nd_vec", "dot(t, [1.0, -1.0, 2.0, 0.5])", "np.dot(t, np.array([1.0, -1.0, 2.0, 0.5]))"),
    ("outer", "outer(v, iv)", "np.outer(v, iv)"),
    ("outer_2d", "outer(m, [1, 2])", "np.outer(m, [1, 2])"),
    ("cross", "cross(p, w)", "np.cross(p, w)"),
    ("cross_broadcast", "cross(p, [1.0, 0.0, -1.0])", "np.cross(p, np.array([1.0, 0.0, -1.0]))"),
    ("cross_2d", "cross([1.0, 2.0], [3.0, 4.0])", "np.cross(np.array([1.0, 2.0]), np.array([3.0, 4.0]))"),
    ("cross_axis0", "cross(transpose(p), transpose(w), axis=0)", "np.cross(p.T, w.T, axis=0)"),
    # einsum
    ("einsum_matmul", "einsum(\"ij,jk->ik\", fm, transpose(m))", "np.einsum('ij,jk->ik', fm, m.T)"),
    ("einsum_bmm", "einsum(\"bij,bjk->bik\", t, transpose(t, (0, 2, 1)))", "np.einsum('bij,bjk->bik', t, t.transpose(0, 2, 1))"),
    ("einsum_trace", "einsum(\"ii->\", q)", "np.einsum('ii->', q)"),
    ("einsum_diag", "einsum(\"ii->i\", q)", "np.einsum('ii->i', q)"),
    ("einsum_transpose", "einsum(\"ij->ji\", m)", "np.einsum('ij->ji', m)"),
    ("einsum_inner", "einsum(\"i,i->\", v, v)", "np.einsum('i,i->', v, v)"),
    ("einsum_colsum", "einsum(\"ij->j\", fm)", "np.einsum('ij->j', fm)"),
    ("einsum_sum_all", "einsum(\"ijk->\", t)", "np.einsum('ijk->', t)"),
    ("einsum_implicit", "einsum(\"ij,jk\", fm, transpose(fm))", "np.einsum('ij,jk', fm, fm.T)"),
    ("einsum_implicit_transpose", "einsum(\"ji\", m)", "np.einsum('ji', m)"),
    ("einsum_outer", "einsum(\"i,j->ij\", v, [1.0, 2.0])", "np.einsum('i,j->ij', v, [1.0, 2.0])"),
    ("einsum_ellipsis", "einsum(\"...ij->...ji\", t)", "np.einsum('...ij->...ji', t)"),
    ("einsum_ellipsis_mm", "einsum(\"...ij,jk->...ik\", t, transpose(fm))", "np.einsum('...ij,jk->...ik', t, fm.T)"),
    ("einsum_three", "einsum(\"ij,jk,k->i\", fm, transpose(fm), [1.0, 2.0, 3.0])", "np.einsum('ij,jk,k->i', fm, fm.T, [1.0, 2.0, 3.0])"),
    ("einsum_int", "einsum(\"ij,ij->i\", m, m)", "np.einsum('ij,ij->i', m, m)"),
    ("einsum_weighted", "einsum(\"bij,j->bi\", t, [1.0, 2.0, 3.0, 4.0])", "np.einsum('bij,j->bi', t, [1.0, 2.0, 3.0, 4.0])"),
    # inv, solve, det
    ("inv", "inv(q)", "np.linalg.inv(q)"),
    ("inv_stack", "inv(qs)", "np.linalg.inv(qs)"),
    ("solve_vec", "solve(q, [1.0, 2.0, 3.0])", "np.linalg.solve(q, [1.0, 2.0, 3.0])"),
    ("solve_mat", "solve(q, transpose(p))", "np.linalg.solve(q, p.T)"),
    ("solve_stack", "solve(qs, bs)", "np.linalg.solve(qs, bs)"),
    ("solve_broadcast", "solve(qs, transpose(p))", "np.linalg.solve(qs, p.T)"),
    ("det", "det(q)", "np.linalg.det(q)"),
    ("det_stack", "det(qs)", "np.linalg.det(qs)"),
    ("det_singular", "det([[1.0, 2.0], [2.0, 4.0]])", "np.array(0.0)"),
    ("det_int", "det([[2, 1], [1, 3]])", "np.linalg.det(np.array([[2, 1], [1, 3]]))"),
    # matrix_power
    ("matrix_power_0", "matrix_power(q, 0)", "np.linalg.matrix_power(q, 0)"),
    ("matrix_power_1", "matrix_power(q, 1)", "np.linalg.matrix_power(q, 1)"),
    ("matrix_power_3", "matrix_power(q * 0.25, 3)", "np.linalg.matrix_power(q * 0.25, 3)"),
    ("matrix_power_13", "matrix_power(q * 0.125, 13)", "np.linalg.matrix_power(q * 0.125, 13)"),
    ("matrix_power_int", "matrix_power([[1, 1], [1, 0]], 20)", "np.linalg.matrix_power(np.array([[1, 1], [1, 0]]), 20)"),
    ("matrix_power_int_0", "matrix_power([[1, 1], [1, 0]], 0)", "np.linalg.matrix_power(np.array([[1, 1], [1, 0]]), 0)"),
    ("matrix_power_neg", "matrix_power(q, -2)", "np.linalg.matrix_power(q, -2)"),
    ("matrix_power_stack", "matrix_power(qs * 0.1, 6)", "np.linalg.matrix_power(qs * 0.1, 6)"),
    ("matrix_power_stack_0", "matrix_power(qs, 0)", "np.linalg.matrix_power(qs, 0)"),
]


def kind(a):
    if a.dtype == np.bool_:
        return "bool"
    if np.issubdtype(a.dtype, np.integer):
        return "int"
    return "float"


def main():
    env = prelude_np()
    lines = ["# Made by tests/golden/make_shape_linalg.py from NumPy " + np.__version__ + "; do not edit."]
    lines.append("prelude " + PRELUDE_ARR.strip().replace("\n", " ; "))
    for name, arr, npx in CASES:
        r = np.asarray(eval(npx, env))
        shape = ",".join(str(d) for d in r.shape) or "-"
        if r.dtype == np.bool_:
            vals = " ".join("true" if x else "false" for x in r.ravel())
        elif np.issubdtype(r.dtype, np.integer):
            vals = " ".join(str(int(x)) for x in r.ravel())
        else:
            vals = " ".join(repr(float(x)) for x in r.ravel())
        lines += [f"case {name}", f"arr {arr}", f"want {kind(r)} {shape}", f"values {vals}"]
    path = os.path.join(os.path.dirname(__file__), "shape_linalg", "cases.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(CASES)} cases to {path}")


if __name__ == "__main__":
    main()
