//! Linear algebra beyond a single 2-D `Op::MatMul`: batched matrix products
//! (NumPy's `matmul` on stacks of matrices, batch axes broadcast) as one
//! rank-3 `Op::MatMul` or a fused broadcast-multiply-sum, and the LU factorisation behind `inv`, `solve` and
//! `det` (computed on the host in f64, as LAPACK's getrf/getrs with partial
//! pivoting).

use super::build::{self, cast, copy, reshape};
use super::{Array, Op, View};
use crate::check::dtype::DType;
use crate::check::shape::{self, Operand, dims};
use crate::diag::Diagnostic;
use crate::graph::op::ReduceOp;
use crate::syntax::ast::{BinOp, Span};

/// Below this many multiply-adds per output element (the inner size k) and
/// this many elements per matrix, a stack of products is one fused
/// broadcast-multiply-sum: one kernel for the whole stack, where a node per
/// batch would cost a launch each.
const SMALL_K: usize = 32;
const SMALL_MN: usize = 64 * 64;

/// `a @ b` for operands of rank 2 or more (at least one above 2), both
/// already cast to `dt`: batch axes broadcast as in NumPy's `matmul`. The
/// result has shape `batch + [m, n]`.
pub fn batched_matmul(a: &Array, b: &Array, dt: DType, span: &Span) -> Result<Array, Diagnostic> {
    let (ra, rb) = (a.rank(), b.rank());
    let (m, k, n) = (a.shape()[ra - 2], a.shape()[ra - 1], b.shape()[rb - 1]);
    let (sa, sb) = (dims(&a.shape()[..ra - 2]), dims(&b.shape()[..rb - 2]));
    let batch: Vec<usize> = shape::broadcast(
        &[
            Operand {
                dtype: None,
                shape: &sa,
                span: None,
            },
            Operand {
                dtype: None,
                shape: &sb,
                span: None,
            },
        ],
        "matrix product's batch axes",
        span,
    )?
    .into_iter()
    .map(|d| d.unwrap_or(0))
    .collect();
    let count: usize = batch.iter().product();
    let mut out_shape = batch.clone();
    out_shape.extend([m, n]);
    // b shared by every batch: one (count * m, k) @ (k, n) product.
    if rb == 2 || b.shape()[..rb - 2].iter().all(|&d| d == 1) {
        let b2 = if rb == 2 { b.clone() } else { reshape(b, &[k, n], span) };
        let mut a_full = batch.clone();
        a_full.extend([m, k]);
        let a2 = build::broadcast_view(a, &a_full);
        let a2 = reshape(&a2, &[count * m, k], span);
        let r = Array::pending(Op::MatMul, vec![a2, b2], dt, &[count * m, n], Some(span.clone()));
        return Ok(r.with_view(View::contiguous(&out_shape)));
    }
    let mut a_full = batch.clone();
    a_full.extend([m, k]);
    let mut b_full = batch.clone();
    b_full.extend([k, n]);
    let a2 = build::broadcast_view(a, &a_full);
    let b2 = build::broadcast_view(b, &b_full);
    if count == 0 || m * n == 0 || (k <= SMALL_K && m * n <= SMALL_MN) || k == 0 {
        return small_product(&a2, &b2, dt, span);
    }
    // one rank-3 product (count, m, k) @ (count, k, n): a backend runs the
    // stack as one batched call (cuBLAS strided-batched), a broadcast batch
    // operand keeping its zero stride
    let a3 = batch_axes_as_one(&a2, count, span);
    let b3 = batch_axes_as_one(&b2, count, span);
    let r = Array::pending(Op::MatMul, vec![a3, b3], dt, &[count, m, n], Some(span.clone()));
    Ok(r.with_view(View::contiguous(&out_shape)))
}

/// `a` (batch axes, then two matrix axes) as (count, rows, cols): a view
/// when the batch axes collapse into one stride (a single batch axis, or
/// nested ones, broadcast ones included), else a contiguous copy.
fn batch_axes_as_one(a: &Array, count: usize, span: &Span) -> Array {
    let r = a.rank();
    let (rows, cols) = (a.shape()[r - 2], a.shape()[r - 1]);
    let v = &a.view;
    // the batch axes of size above 1 must nest: stride[i] = stride[i + 1] * shape[i + 1]
    let live: Vec<usize> = (0..r - 2).filter(|&i| v.shape[i] != 1).collect();
    let nests = live
        .windows(2)
        .all(|w| v.strides[w[0]] == v.strides[w[1]] * v.shape[w[1]] as isize);
    if nests {
        let stride = live.last().map(|&i| v.strides[i]).unwrap_or(0);
        return a.with_view(View {
            shape: smallvec::smallvec![count, rows, cols],
            strides: smallvec::smallvec![stride, v.strides[r - 2], v.strides[r - 1]],
            offset: v.offset,
        });
    }
    reshape(a, &[count, rows, cols], span)
}

/// sum(a[..., :, :, newaxis] * b[..., newaxis, :, :], axis=-2) in `dt`.
fn small_product(a: &Array, b: &Array, dt: DType, span: &Span) -> Result<Array, Diagnostic> {
    let r = a.rank();
    let x = a.with_view(a.view.insert_axis(r));
    let y = b.with_view(b.view.insert_axis(r - 2));
    let p = build::binary(BinOp::Mul, &x, &y, (None, None), span)?;
    let p = if dt == DType::Bool {
        cast(&p, DType::DEFAULT_INT, Some(span))
    } else {
        p
    };
    let s = build::reduce(ReduceOp::Sum, &p, Some(vec![r - 1]), false, span)?;
    Ok(if s.dtype() != dt { cast(&s, dt, Some(span)) } else { s })
}

/// A contiguous copy of `a` (a no-op view change when it already is one).
pub fn contiguous(a: &Array, span: &Span) -> Array {
    if a.view.is_contiguous() {
        a.clone()
    } else {
        copy(a, Some(span))
    }
}

/// A factorisation job a backend may run on its device (`Backend::lu`).
/// `a` is a fresh contiguous (count, n, n) f32/f64 stack of the matrices'
/// transposes (pending or ready, its buffer the job's to overwrite): read
/// column-major, as LAPACK does, it is the matrices themselves. The result:
/// - `Inv`: (count, n, n), each matrix's inverse;
/// - `Solve`: `b` is a fresh contiguous (count, k, n) stack, each item the
///   transpose of a right-hand side; the result is (count, k, n), the
///   transposes of the solutions;
/// - `Det`: (count,), each determinant (0 for a singular matrix).
///
/// A singular matrix in `Inv` or `Solve` is an E0420 diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LuJob {
    Inv,
    Solve,
    Det,
}

/// The LU factorisation of one n x n row-major matrix with partial pivoting,
/// in place: `lu` holds L (unit diagonal, below) and U; `perm[i]` is the
/// row of the input now at row i. `None` when a pivot is exactly zero
/// (singular); the sign of the permutation is returned otherwise.
pub fn lu_factor(lu: &mut [f64], n: usize, perm: &mut [usize]) -> Result<f64, usize> {
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    let mut sign = 1.0;
    for c in 0..n {
        let mut best = c;
        let mut best_abs = lu[c * n + c].abs();
        for r in c + 1..n {
            let v = lu[r * n + c].abs();
            // NaN pivots are taken so that they spread into the result, as LAPACK's do
            if v > best_abs || (v.is_nan() && !best_abs.is_nan()) {
                best = r;
                best_abs = v;
            }
        }
        if best_abs == 0.0 {
            return Err(c);
        }
        if best != c {
            for j in 0..n {
                lu.swap(c * n + j, best * n + j);
            }
            perm.swap(c, best);
            sign = -sign;
        }
        let pivot = lu[c * n + c];
        for r in c + 1..n {
            let f = lu[r * n + c] / pivot;
            lu[r * n + c] = f;
            if f != 0.0 {
                for j in c + 1..n {
                    lu[r * n + j] -= f * lu[c * n + j];
                }
            }
        }
    }
    Ok(sign)
}

/// Solves A X = B for X (n x k, row-major) given A's LU factors.
pub fn lu_solve(lu: &[f64], n: usize, perm: &[usize], b: &[f64], k: usize) -> Vec<f64> {
    let mut x = vec![0.0; n * k];
    for i in 0..n {
        x[i * k..(i + 1) * k].copy_from_slice(&b[perm[i] * k..(perm[i] + 1) * k]);
    }
    for i in 0..n {
        for j in 0..i {
            let f = lu[i * n + j];
            if f != 0.0 {
                for c in 0..k {
                    x[i * k + c] -= f * x[j * k + c];
                }
            }
        }
    }
    for i in (0..n).rev() {
        for j in i + 1..n {
            let f = lu[i * n + j];
            if f != 0.0 {
                for c in 0..k {
                    x[i * k + c] -= f * x[j * k + c];
                }
            }
        }
        let d = lu[i * n + i];
        for c in 0..k {
            x[i * k + c] /= d;
        }
    }
    x
}

/// The determinant of one n x n row-major matrix (0 when singular).
pub fn det(a: &[f64], n: usize) -> f64 {
    let mut lu = a.to_vec();
    let mut perm = vec![0; n];
    match lu_factor(&mut lu, n, &mut perm) {
        Ok(sign) => (0..n).map(|i| lu[i * n + i]).product::<f64>() * sign,
        Err(_) => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lu_solves_a_pivoting_system() {
        // [[0, 2], [3, 4]] x = [2, 10]: x = [2, 1] (row swap needed: a zero first pivot)
        let a = [0.0, 2.0, 3.0, 4.0];
        let mut lu = a.to_vec();
        let mut perm = [0; 2];
        let sign = lu_factor(&mut lu, 2, &mut perm).unwrap();
        assert_eq!(sign, -1.0);
        assert_eq!(lu_solve(&lu, 2, &perm, &[2.0, 10.0], 1), vec![2.0, 1.0]);
        assert_eq!(det(&a, 2), -6.0);
        assert_eq!(det(&[1.0, 2.0, 2.0, 4.0], 2), 0.0);
        assert!(lu_factor(&mut [1.0, 2.0, 2.0, 4.0], 2, &mut perm).is_err());
    }
}
