//! NumPy's `linalg` factorisations and what is built on them: `qr`,
//! `cholesky`, `eigh`, `eigvalsh`, `svd`, `svdvals`, `pinv`, `matrix_rank`,
//! `lstsq`, `slogdet` and `cond`, with NumPy's names, arguments and result
//! tuples. Each reads its matrices to the host, factorises each matrix of a
//! stack (..., m, n) in f64 (`graph::decomp`, `graph::linalg`'s LU) and
//! hands back arrays of the input's float type (f64 for integers), on every
//! backend.

use super::value::Value;
use super::{Interp, R};
use crate::check::dtype::DType;
use crate::check::shape;
use crate::diag::Diagnostic;
use crate::graph::decomp::{self, Failure, QrMode};
use crate::graph::{self, Array, linalg};
use crate::syntax::ast::Span;

type Slot = Option<(Value, Span)>;

/// The builtins this module runs.
pub const NAMES: &[&str] = &[
    "qr",
    "cholesky",
    "eigh",
    "eigvalsh",
    "svd",
    "svdvals",
    "pinv",
    "matrix_rank",
    "lstsq",
    "slogdet",
    "cond",
];

fn failure(f: Failure, span: &Span) -> Diagnostic {
    match f {
        Failure::NotPositiveDefinite => Diagnostic::new("E0421", "matrix is not positive definite", span.clone())
            .with_hint("cholesky needs a symmetric matrix with positive eigenvalues (NumPy raises LinAlgError)"),
        Failure::NoConvergence => Diagnostic::new(
            "E0421",
            "the factorisation did not converge: the matrix has NaN or infinite entries",
            span.clone(),
        ),
    }
}

/// A stack of matrices read to the host: the values as f64, the stack's
/// shape, and each matrix's rows and columns.
struct Stack {
    values: Vec<f64>,
    batch: Vec<usize>,
    rows: usize,
    cols: usize,
}

impl Stack {
    fn count(&self) -> usize {
        self.batch.iter().product()
    }

    fn matrix(&self, b: usize) -> &[f64] {
        let len = self.rows * self.cols;
        &self.values[b * len..(b + 1) * len]
    }

    /// The stack's shape followed by `tail`.
    fn shape(&self, tail: &[usize]) -> Vec<usize> {
        let mut s = self.batch.clone();
        s.extend_from_slice(tail);
        s
    }
}

impl Interp {
    fn stack(&self, x: &Array, span: &Span) -> R<Stack> {
        let r = x.rank();
        let host = graph::to_host(&*self.backend, x).map_err(|d| d.or_span(span))?;
        let values = (0..x.view.size()).map(|i| host.get_f64(i)).collect();
        Ok(Stack {
            values,
            batch: x.shape()[..r - 2].to_vec(),
            rows: x.shape()[r - 2],
            cols: x.shape()[r - 1],
        })
    }

    /// Runs one of `NAMES`.
    pub(super) fn run_decomp(&mut self, name: &str, s: &[Slot], span: &Span) -> R<Value> {
        let sp = |k: usize| s[k].as_ref().map(|x| x.1.clone()).unwrap_or(span.clone());
        let x = match &s[0] {
            Some((Value::Array(a), _)) => a.clone(),
            _ => return Err(Diagnostic::new("E0303", format!("{name} needs an array"), sp(0))),
        };
        let dt = x.dtype().to_float();
        let given = |k: usize| {
            s.get(k)
                .and_then(|v| v.as_ref())
                .filter(|(v, _)| !matches!(v, Value::None))
        };
        let rank = x.rank();
        if name == "matrix_rank" && rank < 2 {
            // NumPy: a vector (or scalar) has rank 1 unless it is all zeros
            let nonzero = any_nonzero(self, &x, span)?;
            return self.int_result(vec![i64::from(nonzero)], &[]);
        }
        if matches!(name, "cholesky" | "eigh" | "eigvalsh" | "slogdet") {
            shape::check_square(name, &shape::dims(x.shape()), &sp(0))?;
        } else {
            shape::check_matrix_rank(name, rank, &sp(0))?;
        }
        let st = self.stack(&x, &sp(0))?;
        let (m, n, count) = (st.rows, st.cols, st.count());
        let fail = |f: Failure| failure(f, &sp(0));
        let arrays = |this: &Self, parts: Vec<(Vec<f64>, Vec<usize>)>| -> R<Value> {
            let items: R<Vec<Value>> = parts
                .into_iter()
                .map(|(v, shape)| this.host_result(v, &shape, dt).map(Value::Array))
                .collect();
            Ok(Value::Tuple(items?))
        };
        match name {
            "qr" => {
                let mode = match given(1) {
                    Some((v, vs)) => self.static_str(v, vs, "mode")?,
                    None => "reduced".to_string(),
                };
                // the table's choices (`Builtin::check_choice`) admitted nothing else
                let mode = match mode.as_str() {
                    "complete" => QrMode::Complete,
                    "r" => QrMode::R,
                    _ => QrMode::Reduced,
                };
                let k = m.min(n);
                let (qc, rr) = if mode == QrMode::Complete { (m, m) } else { (k, k) };
                let (mut qs, mut rs) = (Vec::new(), Vec::new());
                for b in 0..count {
                    let (q, r) = decomp::qr(st.matrix(b), m, n, mode);
                    qs.extend(q);
                    rs.extend(r);
                }
                let r = (rs, st.shape(&[rr, n]));
                if mode == QrMode::R {
                    return Ok(Value::Array(self.host_result(r.0, &r.1, dt)?));
                }
                arrays(self, vec![(qs, st.shape(&[m, qc])), r])
            }
            "cholesky" => {
                let upper = self.static_bool(given(1), false)?;
                let mut out = Vec::with_capacity(count * n * n);
                for b in 0..count {
                    out.extend(decomp::cholesky(st.matrix(b), n, upper).map_err(fail)?);
                }
                Ok(Value::Array(self.host_result(out, x.shape(), dt)?))
            }
            "eigh" | "eigvalsh" => {
                // "L" or "U" in either case (`Builtin::check_choice`)
                let upper = match given(1) {
                    Some((v, vs)) => self.static_str(v, vs, "UPLO")?.eq_ignore_ascii_case("u"),
                    None => false,
                };
                let (mut ws, mut vs) = (Vec::with_capacity(count * n), Vec::with_capacity(count * n * n));
                for b in 0..count {
                    let (w, v) = decomp::eigh(st.matrix(b), n, upper).map_err(fail)?;
                    ws.extend(w);
                    vs.extend(v);
                }
                let w = (ws, st.shape(&[n]));
                if name == "eigvalsh" {
                    return Ok(Value::Array(self.host_result(w.0, &w.1, dt)?));
                }
                arrays(self, vec![w, (vs, x.shape().to_vec())])
            }
            "svd" | "svdvals" => {
                let full = name == "svd" && self.static_bool(given(1), true)?;
                let uv = name == "svd" && self.static_bool(given(2), true)?;
                let k = m.min(n);
                let (uc, vr) = if full { (m, n) } else { (k, k) };
                let (mut us, mut ss, mut vts) = (Vec::new(), Vec::new(), Vec::new());
                for b in 0..count {
                    let d = decomp::svd(st.matrix(b), m, n, full, uv).map_err(fail)?;
                    us.extend(d.u);
                    ss.extend(d.s);
                    vts.extend(d.vh);
                }
                let s = (ss, st.shape(&[k]));
                if !uv {
                    return Ok(Value::Array(self.host_result(s.0, &s.1, dt)?));
                }
                arrays(self, vec![(us, st.shape(&[m, uc])), s, (vts, st.shape(&[vr, n]))])
            }
            "pinv" => {
                let rcond = match given(1) {
                    Some((v, vs)) => self.static_f64(v, vs, "rcond")?,
                    None => decomp::default_rcond(m, n),
                };
                let mut out = Vec::with_capacity(count * m * n);
                for b in 0..count {
                    out.extend(decomp::pinv(st.matrix(b), m, n, rcond).map_err(fail)?);
                }
                Ok(Value::Array(self.host_result(out, &st.shape(&[n, m]), dt)?))
            }
            "matrix_rank" => {
                let tol = match given(1) {
                    Some((v, vs)) => Some(self.static_f64(v, vs, "tol")?),
                    None => None,
                };
                let mut ranks = Vec::with_capacity(count);
                for b in 0..count {
                    let s = decomp::svd(st.matrix(b), m, n, false, false).map_err(fail)?.s;
                    let cut = tol.unwrap_or_else(|| s.first().copied().unwrap_or(0.0) * decomp::default_rcond(m, n));
                    ranks.push(s.iter().filter(|&&v| v > cut).count() as i64);
                }
                self.int_result(ranks, &st.batch)
            }
            "cond" => {
                let p = match given(1) {
                    Some((v, vs)) => self.static_f64(v, vs, "p")?,
                    None => 2.0,
                };
                if p.abs() != 2.0 {
                    return Err(
                        Diagnostic::new("E0413", format!("cond with p = {p} is not supported"), sp(1))
                            .with_hint("cond computes the 2-norm condition number (p = none, 2 or -2)"),
                    );
                }
                let mut out = Vec::with_capacity(count);
                for b in 0..count {
                    let s = decomp::svd(st.matrix(b), m, n, false, false).map_err(fail)?.s;
                    let (hi, lo) = (s.first().copied().unwrap_or(0.0), s.last().copied().unwrap_or(0.0));
                    let r = if p > 0.0 { hi / lo } else { lo / hi };
                    // NumPy: a NaN from a singular matrix (0 / 0) is inf, one from a NaN input stays
                    let nan_input = st.matrix(b).iter().any(|v| v.is_nan());
                    out.push(if r.is_nan() && !nan_input { f64::INFINITY } else { r });
                }
                Ok(Value::Array(self.host_result(out, &st.batch, dt)?))
            }
            "slogdet" => {
                let (mut signs, mut logs) = (Vec::with_capacity(count), Vec::with_capacity(count));
                for b in 0..count {
                    let mut lu = st.matrix(b).to_vec();
                    let mut perm = vec![0; n];
                    match linalg::lu_factor(&mut lu, n, &mut perm) {
                        Ok(mut sign) => {
                            let mut log = 0.0;
                            for i in 0..n {
                                let d = lu[i * n + i];
                                sign *= d.signum();
                                log += d.abs().ln();
                            }
                            signs.push(sign);
                            logs.push(log);
                        }
                        Err(_) => {
                            signs.push(0.0);
                            logs.push(f64::NEG_INFINITY);
                        }
                    }
                }
                arrays(self, vec![(signs, st.batch.clone()), (logs, st.batch.clone())])
            }
            "lstsq" => {
                let bv = match &s[1] {
                    Some((Value::Array(b), _)) => b.clone(),
                    _ => return Err(Diagnostic::new("E0303", "lstsq needs an array b", sp(1))),
                };
                let vector = bv.rank() == 1;
                shape::lstsq_rhs(m, n, bv.shape(), &sp(1))?;
                let p = if vector { 1 } else { bv.shape()[1] };
                let rcond = match given(2) {
                    Some((v, vs)) => self.static_f64(v, vs, "rcond")?,
                    None => decomp::default_rcond(m, n),
                };
                let bh = graph::to_host(&*self.backend, &bv).map_err(|d| d.or_span(&sp(1)))?;
                let bvals: Vec<f64> = (0..m * p).map(|i| bh.get_f64(i)).collect();
                let dt = crate::check::dtype::promote(x.dtype(), bv.dtype()).to_float();
                let ls = decomp::lstsq(st.matrix(0), &bvals, (m, n, p), rcond).map_err(fail)?;
                let xshape: Vec<usize> = if vector { vec![n] } else { vec![n, p] };
                let rlen = ls.residuals.len();
                let k = ls.singular.len();
                let items = vec![
                    Value::Array(self.host_result(ls.x, &xshape, dt)?),
                    Value::Array(self.host_result(ls.residuals, &[rlen], dt)?),
                    self.int_result(vec![ls.rank as i64], &[])?,
                    Value::Array(self.host_result(ls.singular, &[k], dt)?),
                ];
                Ok(Value::Tuple(items))
            }
            _ => Err(Diagnostic::new(
                "E0499",
                format!("internal: {name} is not a factorisation"),
                span.clone(),
            )),
        }
    }

    fn int_result(&self, vals: Vec<i64>, shape: &[usize]) -> R<Value> {
        let data = crate::graph::data::HostData::I64(vals);
        let buffer = self.backend.adopt(data)?;
        Ok(Value::Array(Array::from_buffer(buffer, DType::I64, shape)))
    }
}

/// Whether any element of `x` is non-zero (NumPy's rank of a vector).
fn any_nonzero(this: &Interp, x: &Array, span: &Span) -> R<bool> {
    let host = graph::to_host(&*this.backend, x).map_err(|d| d.or_span(span))?;
    Ok((0..x.view.size()).any(|i| host.get_f64(i) != 0.0))
}
