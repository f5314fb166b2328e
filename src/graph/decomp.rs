//! The host factorisations behind NumPy's `linalg` names beyond LU: QR,
//! Cholesky, the symmetric eigendecomposition and the SVD, through nalgebra,
//! on one matrix at a time in f64 (the interpreter loops over a stack and
//! casts back to the input's float type, as `inv` and `det` do). Matrices
//! come and go row-major; nalgebra's are column-major, so each function
//! converts at its edges.
//!
//! nalgebra's iterative decompositions loop until they converge, which a
//! NaN or an infinity prevents: every iteration count here is capped, and a
//! matrix that does not converge is an error, never a hang.

use nalgebra::DMatrix;

/// Why a factorisation gave no result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Cholesky of a matrix that is not (numerically) positive definite.
    NotPositiveDefinite,
    /// An iteration did not converge (NaN or infinite entries).
    NoConvergence,
}

/// Sweeps before an eigen or singular value iteration gives up; a finite
/// matrix converges in a few per value.
fn max_iterations(n: usize) -> usize {
    100 * n.max(1) + 100
}

fn from_rows(a: &[f64], m: usize, n: usize) -> DMatrix<f64> {
    DMatrix::from_row_slice(m, n, a)
}

fn to_rows(x: &DMatrix<f64>) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for i in 0..x.nrows() {
        out.extend(x.row(i).iter());
    }
    out
}

fn finite(a: &[f64]) -> Result<(), Failure> {
    if a.iter().all(|x| x.is_finite()) {
        Ok(())
    } else {
        Err(Failure::NoConvergence)
    }
}

/// NumPy's `qr` modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QrMode {
    /// q (m, k), r (k, n) with k = min(m, n).
    Reduced,
    /// q (m, m), r (m, n).
    Complete,
    /// r (k, n) alone.
    R,
}

/// The QR factorisation of the row-major (m, n) matrix `a` by Householder
/// reflections: (q, r), row-major, q empty in mode `R`.
pub fn qr(a: &[f64], m: usize, n: usize, mode: QrMode) -> (Vec<f64>, Vec<f64>) {
    let k = m.min(n);
    let (q, r) = if k == 0 {
        (DMatrix::zeros(m, 0), DMatrix::zeros(0, n))
    } else {
        let f = from_rows(a, m, n).qr();
        (f.q(), f.r())
    };
    match mode {
        QrMode::R => (Vec::new(), to_rows(&r)),
        QrMode::Reduced => (to_rows(&q), to_rows(&r)),
        QrMode::Complete => {
            let mut full_r = DMatrix::zeros(m, n);
            full_r.view_mut((0, 0), (k, n)).copy_from(&r);
            (to_rows(&complete_basis(&q)), to_rows(&full_r))
        }
    }
}

/// The (m, m) orthogonal matrix whose first k columns are `q`'s (m, k)
/// orthonormal ones: the QR of [q | I] spans q's columns first (each up to
/// its sign, so q's own are put back) and then the rest of the space.
fn complete_basis(q: &DMatrix<f64>) -> DMatrix<f64> {
    let (m, k) = q.shape();
    if k == m {
        return q.clone();
    }
    let mut ext = DMatrix::zeros(m, k + m);
    ext.view_mut((0, 0), (m, k)).copy_from(q);
    ext.view_mut((0, k), (m, m)).fill_with_identity();
    let mut full = ext.qr().q();
    full.view_mut((0, 0), (m, k)).copy_from(q);
    full
}

/// The Cholesky factor of the row-major symmetric (n, n) matrix `a` (only
/// its lower triangle read, as LAPACK's potrf with 'L'): lower L with
/// a = L Lᵀ, or its transpose with `upper`.
pub fn cholesky(a: &[f64], n: usize, upper: bool) -> Result<Vec<f64>, Failure> {
    finite(a)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut x = from_rows(a, n, n);
    x.fill_upper_triangle_with_lower_triangle();
    let l = x.cholesky().ok_or(Failure::NotPositiveDefinite)?.l();
    Ok(to_rows(&if upper { l.transpose() } else { l }))
}

/// The eigenvalues (ascending) and eigenvectors (columns, row-major (n, n))
/// of the symmetric matrix `a`, read from its lower triangle, or its upper
/// one with `upper` (NumPy's `UPLO`).
pub fn eigh(a: &[f64], n: usize, upper: bool) -> Result<(Vec<f64>, Vec<f64>), Failure> {
    finite(a)?;
    if n == 0 {
        return Ok((Vec::new(), Vec::new()));
    }
    let mut x = from_rows(a, n, n);
    if upper {
        x.fill_lower_triangle_with_upper_triangle();
    } else {
        x.fill_upper_triangle_with_lower_triangle();
    }
    let e = nalgebra::SymmetricEigen::try_new(x, f64::EPSILON, max_iterations(n)).ok_or(Failure::NoConvergence)?;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| e.eigenvalues[i].total_cmp(&e.eigenvalues[j]));
    let w = order.iter().map(|&i| e.eigenvalues[i]).collect();
    let v = DMatrix::from_fn(n, n, |r, c| e.eigenvectors[(r, order[c])]);
    Ok((w, to_rows(&v)))
}

/// A singular value decomposition, row-major: a = u[:, :k] * s @ vh[:k].
pub struct Svd {
    pub u: Vec<f64>,
    /// Descending.
    pub s: Vec<f64>,
    pub vh: Vec<f64>,
}

/// The singular value decomposition of the row-major (m, n) matrix `a`:
/// u (m, k) and vh (k, n), k = min(m, n), or with `full` u (m, m) and vh
/// (n, n); u and vh empty without `uv`.
pub fn svd(a: &[f64], m: usize, n: usize, full: bool, uv: bool) -> Result<Svd, Failure> {
    finite(a)?;
    let k = m.min(n);
    let (u, s, vt) = if k == 0 {
        (DMatrix::zeros(m, 0), Vec::new(), DMatrix::zeros(0, n))
    } else {
        let d = nalgebra::SVD::try_new(from_rows(a, m, n), uv, uv, f64::EPSILON, max_iterations(k))
            .ok_or(Failure::NoConvergence)?;
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by(|&i, &j| d.singular_values[j].total_cmp(&d.singular_values[i]));
        let s = order.iter().map(|&i| d.singular_values[i]).collect();
        match (d.u, d.v_t) {
            (Some(u), Some(vt)) => (
                DMatrix::from_fn(m, k, |r, c| u[(r, order[c])]),
                s,
                DMatrix::from_fn(k, n, |r, c| vt[(order[r], c)]),
            ),
            _ => (DMatrix::zeros(0, 0), s, DMatrix::zeros(0, 0)),
        }
    };
    if !uv {
        return Ok(Svd {
            u: Vec::new(),
            s,
            vh: Vec::new(),
        });
    }
    if full {
        let v = complete_basis(&vt.transpose());
        return Ok(Svd {
            u: to_rows(&complete_basis(&u)),
            s,
            vh: to_rows(&v.transpose()),
        });
    }
    Ok(Svd {
        u: to_rows(&u),
        s,
        vh: to_rows(&vt),
    })
}

/// NumPy's default cut-off for small singular values, relative to the largest.
pub fn default_rcond(m: usize, n: usize) -> f64 {
    f64::EPSILON * m.max(n) as f64
}

/// The Moore-Penrose pseudo-inverse (n, m) of the row-major (m, n) matrix
/// `a`: singular values at or below `rcond` times the largest count as zero.
pub fn pinv(a: &[f64], m: usize, n: usize, rcond: f64) -> Result<Vec<f64>, Failure> {
    let Svd { u, s, vh: vt } = svd(a, m, n, false, true)?;
    let k = s.len();
    let cut = rcond * s.first().copied().unwrap_or(0.0);
    let inv: Vec<f64> = s.iter().map(|&x| if x > cut { 1.0 / x } else { 0.0 }).collect();
    // pinv[i, j] = sum_l vt[l, i] * inv[l] * u[j, l]
    let mut out = vec![0.0; n * m];
    for i in 0..n {
        for j in 0..m {
            out[i * m + j] = (0..k).map(|l| vt[l * n + i] * inv[l] * u[j * k + l]).sum();
        }
    }
    Ok(out)
}

/// The least-squares solution of a x = b for the row-major (m, n) `a` and
/// (m, p) `b`, through the SVD as LAPACK's gelsd: (x (n, p), the squared
/// residual norm of each column (empty unless the rank is n < m), the
/// rank, the singular values).
pub fn lstsq(a: &[f64], b: &[f64], (m, n, p): (usize, usize, usize), rcond: f64) -> Result<LeastSquares, Failure> {
    finite(b)?;
    let Svd { u, s, vh: vt } = svd(a, m, n, false, true)?;
    let k = s.len();
    let cut = rcond * s.first().copied().unwrap_or(0.0);
    let rank = s.iter().filter(|&&x| x > cut).count();
    let mut x = vec![0.0; n * p];
    for c in 0..p {
        for l in 0..rank {
            let ub: f64 = (0..m).map(|j| u[j * k + l] * b[j * p + c]).sum::<f64>() / s[l];
            for i in 0..n {
                x[i * p + c] += vt[l * n + i] * ub;
            }
        }
    }
    let residuals = if rank == n && m > n {
        (0..p)
            .map(|c| {
                (0..m)
                    .map(|j| {
                        let ax: f64 = (0..n).map(|i| a[j * n + i] * x[i * p + c]).sum();
                        (b[j * p + c] - ax).powi(2)
                    })
                    .sum()
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(LeastSquares {
        x,
        residuals,
        rank,
        singular: s,
    })
}

/// What `lstsq` returns, as NumPy's tuple.
pub struct LeastSquares {
    pub x: Vec<f64>,
    pub residuals: Vec<f64>,
    pub rank: usize,
    pub singular: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
        (0..m * n)
            .map(|ij| (0..k).map(|l| a[ij / n * k + l] * b[l * n + ij % n]).sum())
            .collect()
    }

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12)
    }

    const A: [f64; 12] = [2.0, -1.0, 0.5, 4.0, 1.0, 3.0, -2.0, 0.0, 7.0, 1.5, 2.5, -3.0];

    #[test]
    fn complete_qr_reconstructs_and_is_orthogonal() {
        // a tall (4, 3) matrix: q is (4, 4), r (4, 3) with a zero last row
        let (q, r) = qr(&A, 4, 3, QrMode::Complete);
        assert!(close(&matmul(&q, &r, 4, 4, 3), &A));
        let qt: Vec<f64> = (0..16).map(|ij| q[ij % 4 * 4 + ij / 4]).collect();
        let eye: Vec<f64> = (0..16).map(|ij| f64::from(u8::from(ij / 4 == ij % 4))).collect();
        assert!(close(&matmul(&qt, &q, 4, 4, 4), &eye));
        assert!(r[9..].iter().all(|&x| x == 0.0));
    }

    #[test]
    fn full_svd_of_a_wide_matrix_reconstructs() {
        // (3, 4): u (3, 3), s 3, vh (4, 4); a = u[:, :3] diag(s) vh[:3]
        let Svd { u, s, vh } = svd(&A, 3, 4, true, true).unwrap();
        assert!(s.windows(2).all(|w| w[0] >= w[1]));
        let us: Vec<f64> = (0..9).map(|ij| u[ij] * s[ij % 3]).collect();
        assert!(close(&matmul(&us, &vh[..12], 3, 3, 4), &A));
        let vvt = matmul(
            &vh,
            &(0..16).map(|ij| vh[ij % 4 * 4 + ij / 4]).collect::<Vec<_>>(),
            4,
            4,
            4,
        );
        let eye: Vec<f64> = (0..16).map(|ij| f64::from(u8::from(ij / 4 == ij % 4))).collect();
        assert!(close(&vvt, &eye));
    }

    #[test]
    fn nan_fails_instead_of_looping() {
        let a = [1.0, f64::NAN, 0.0, 1.0];
        assert_eq!(svd(&a, 2, 2, false, false).err(), Some(Failure::NoConvergence));
        assert_eq!(eigh(&a, 2, false).err(), Some(Failure::NoConvergence));
        assert_eq!(
            cholesky(&[1.0, 2.0, 2.0, 1.0], 2, false).err(),
            Some(Failure::NotPositiveDefinite)
        );
    }
}
