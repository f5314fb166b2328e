//! NumPy's shape and construction functions (`diff`, `roll`, `repeat`,
//! `tile`, `pad`, `diag`, `diagonal`, `trace`, `tril`, `triu`, `identity`,
//! `empty_like`, `meshgrid`, `ix_`, `indices`, `ravel_multi_index`, `split` and its kin) and linear algebra (`dot`, `outer`, `cross`,
//! `einsum`, `inv`, `solve`, `det`, `matrix_power`), with NumPy's names and
//! argument names.
//!
//! Every shape function is a composition of lazy graph nodes (views, slices,
//! concat, where over iotas, broadcasts), so it fuses with its neighbours and
//! runs on every backend. `inv`, `solve` and `det` read their matrices to the
//! host and factorise them there (`graph::linalg`), on every backend.

use super::value::Value;
use super::{Interp, R};
use crate::check::dtype::DType;
use crate::check::einsum;
use crate::check::shape::{self, Dim, dims};
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::{Op, ReduceOp};
use crate::graph::view::View;
use crate::graph::{self, Array, build, linalg};
use crate::syntax::ast::{BinOp, Span};

type Slot = Option<(Value, Span)>;

/// The reference point of `perf_counter`: the first call of `time` or
/// `perf_counter` in the process.
static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

fn bad_arg(message: impl Into<String>, span: &Span) -> Diagnostic {
    Diagnostic::new("E0210", message, span.clone())
}

fn axis_error(message: impl Into<String>, span: &Span) -> Diagnostic {
    Diagnostic::new("E0201", message, span.clone())
}

/// A view of `x` with `len` elements of `axis` from `start` by `step`.
fn slice(x: &Array, axis: usize, start: usize, len: usize, step: isize) -> Array {
    x.with_view(x.view.slice_axis(axis, start, len, step))
}

/// Joins the non-empty parts along `axis` (all of them when every one is empty).
fn join(parts: Vec<Array>, axis: usize, span: &Span) -> R<Array> {
    let kept: Vec<Array> = parts.iter().filter(|p| p.shape()[axis] > 0).cloned().collect();
    let parts = if kept.is_empty() { parts } else { kept };
    if parts.len() == 1 {
        return Ok(parts[0].clone());
    }
    let spans = vec![span.clone(); parts.len()];
    build::concat(&parts, &spans, axis as i64, span)
}

/// Row and column index grids (i64, shapes (m, 1) and (1, n)).
fn index_grids(m: usize, n: usize, span: &Span) -> (Array, Array) {
    let rows = build::arange(0.0, 1.0, m, DType::I64, span);
    let cols = build::arange(0.0, 1.0, n, DType::I64, span);
    (
        rows.with_view(rows.view.insert_axis(1)),
        cols.with_view(cols.view.insert_axis(0)),
    )
}

/// The view of the diagonal of axes `a1` and `a2` of `x` at `offset`, as the last axis.
fn diagonal_view(x: &Array, offset: i64, a1: usize, a2: usize) -> Array {
    let v = &x.view;
    let (n1, n2) = (v.shape[a1] as i64, v.shape[a2] as i64);
    let (s1, s2) = if offset >= 0 { (0, offset) } else { (-offset, 0) };
    let len = (n1 - s1).min(n2 - s2).max(0) as usize;
    let mut shape = Vec::new();
    let mut strides = Vec::new();
    for k in 0..v.rank() {
        if k != a1 && k != a2 {
            shape.push(v.shape[k]);
            strides.push(v.strides[k]);
        }
    }
    shape.push(len);
    strides.push(v.strides[a1] + v.strides[a2]);
    let offset = if len > 0 && shape.iter().all(|&d| d > 0) {
        (v.offset as isize + s1 as isize * v.strides[a1] + s2 as isize * v.strides[a2]) as usize
    } else {
        v.offset
    };
    x.with_view(View {
        shape: shape.into(),
        strides: strides.into(),
        offset,
    })
}

/// The 1-D `x` as axis `axis` of `rank` axes, the others of size 1 (a grid
/// of `meshgrid`, `ix_` or `indices` before any broadcast).
fn along_axis(x: &Array, axis: usize, rank: usize, span: &Span) -> Array {
    let mut shape = vec![1; rank];
    shape[axis] = x.size();
    build::reshape(x, &shape, span)
}

/// The trailing positional arguments of `func`, each an array (E0303 otherwise).
fn rest_arrays(func: &str, rest: &[(Value, Span)]) -> R<Vec<(Array, Span)>> {
    rest.iter()
        .map(|(v, vs)| match v {
            Value::Array(a) => Ok((a.clone(), vs.clone())),
            other => Err(Diagnostic::new(
                "E0303",
                format!("{func} takes arrays, found {}", other.kind_name()),
                vs.clone(),
            )),
        })
        .collect()
}

impl Interp {
    /// Runs one of `NAMES`.
    pub(super) fn run_shape_linalg(&mut self, name: &str, s: &[Slot], rest: &[(Value, Span)], span: &Span) -> R<Value> {
        let sp = |k: usize| s[k].as_ref().map(|x| x.1.clone()).unwrap_or(span.clone());
        let arr = |k: usize| match &s[k] {
            Some((Value::Array(a), _)) => a.clone(),
            _ => build::scalar(DType::Bool, 0.0, true),
        };
        let given = |k: usize| matches!(&s[k], Some((v, _)) if !matches!(v, Value::None));
        let int_or = |this: &Self, k: usize, default: i64| -> R<i64> {
            match &s[k] {
                Some((v, vs)) if !matches!(v, Value::None) => this.static_int(v, vs),
                _ => Ok(default),
            }
        };
        let out = |x: Array| Ok(Value::Array(x));
        match name {
            "diff" => {
                let mut x = arr(0);
                let n = int_or(self, 1, 1)?;
                shape::check_diff(Some(n), Some(x.rank()), &sp(1), &sp(0))?;
                let ax = shape::normalize_axis(int_or(self, 2, -1)?, x.rank(), &sp(2))?;
                if n > 0 && (given(3) || given(4)) {
                    // a scalar to join is one slice of the axis, as NumPy broadcasts it
                    let mut slice_shape = x.shape().to_vec();
                    slice_shape[ax] = 1;
                    let as_part = |k: usize| {
                        let v = arr(k);
                        if v.rank() == 0 {
                            build::broadcast_view(&v, &slice_shape)
                        } else {
                            v
                        }
                    };
                    let mut parts = Vec::with_capacity(3);
                    let mut spans = Vec::with_capacity(3);
                    if given(3) {
                        parts.push(as_part(3));
                        spans.push(sp(3));
                    }
                    parts.push(x.clone());
                    spans.push(sp(0));
                    if given(4) {
                        parts.push(as_part(4));
                        spans.push(sp(4));
                    }
                    x = build::concat(&parts, &spans, ax as i64, span)?;
                }
                for _ in 0..n {
                    let len = x.shape()[ax];
                    if len == 0 {
                        break;
                    }
                    let hi = slice(&x, ax, 1, len - 1, 1);
                    let lo = slice(&x, ax, 0, len - 1, 1);
                    let op = if x.dtype() == DType::Bool {
                        BinOp::Ne
                    } else {
                        BinOp::Sub
                    };
                    x = build::binary(op, &hi, &lo, (None, None), span)?;
                }
                out(x)
            }
            "roll" => {
                let x = arr(0);
                let shifts = self.flat_ints(s[1].as_ref().map(|v| &v.0), &sp(1), "a shift")?;
                let roll_axis = |x: &Array, ax: usize, shift: i64| -> R<Array> {
                    let n = x.shape()[ax];
                    if n == 0 {
                        return Ok(x.clone());
                    }
                    let k = (shift as i128).rem_euclid(n as i128) as usize;
                    if k == 0 {
                        return Ok(x.clone());
                    }
                    join(vec![slice(x, ax, n - k, k, 1), slice(x, ax, 0, n - k, 1)], ax, span)
                };
                match self.static_axes(s[2].as_ref())? {
                    None => {
                        let flat = build::reshape(&x, &[x.size()], span);
                        let total = shifts
                            .iter()
                            .fold(0i64, |acc, &k| acc.wrapping_add(k % x.size().max(1) as i64));
                        let r = roll_axis(&flat, 0, total)?;
                        out(build::reshape(&r, x.shape(), span))
                    }
                    Some(axes) => {
                        let shifts = if shifts.len() == 1 {
                            vec![shifts[0]; axes.len()]
                        } else {
                            shifts
                        };
                        if shifts.len() != axes.len() {
                            return Err(bad_arg(
                                format!("roll got {} shifts for {} axes", shifts.len(), axes.len()),
                                &sp(1),
                            ));
                        }
                        let mut r = x.clone();
                        for (&ax, &k) in axes.iter().zip(&shifts) {
                            let ax = shape::normalize_axis(ax, x.rank(), &sp(2))?;
                            r = roll_axis(&r, ax, k)?;
                        }
                        out(r)
                    }
                }
            }
            "repeat" => {
                let x = arr(0);
                let (x, ax) = match &s[2] {
                    Some((v, vs)) if !matches!(v, Value::None) => {
                        let ax = shape::normalize_axis(self.static_int(v, vs)?, x.rank(), vs)?;
                        (x, ax)
                    }
                    _ => (build::reshape(&x, &[x.size()], span), 0),
                };
                let reps = self.flat_ints(s[1].as_ref().map(|v| &v.0), &sp(1), "repeats")?;
                let n = x.shape()[ax];
                let scalar_reps = matches!(&s[1], Some((Value::Array(a), _)) if a.rank() == 0) || reps.len() == 1;
                shape::check_repeats(&reps, scalar_reps, Some(n), &sp(1))?;
                if scalar_reps {
                    let r = reps.first().copied().unwrap_or(0) as usize;
                    let mut wide = x.shape().to_vec();
                    wide.insert(ax + 1, r);
                    shape::check_size(&wide, span)?;
                    let v = x.with_view(x.view.insert_axis(ax + 1));
                    let b = build::copy(&build::broadcast_view(&v, &wide), Some(span));
                    let mut merged = x.shape().to_vec();
                    merged[ax] = n * r;
                    return out(build::reshape(&b, &merged, span));
                }
                let total = reps
                    .iter()
                    .try_fold(0usize, |acc, &r| acc.checked_add(r as usize))
                    .ok_or_else(|| Diagnostic::new("E0403", "repeat's result is too large", span.clone()))?;
                let mut shape_out = x.shape().to_vec();
                shape_out[ax] = total;
                shape::check_size(&shape_out, span)?;
                let mut positions = Vec::with_capacity(total);
                for (i, &r) in reps.iter().enumerate() {
                    positions.extend(std::iter::repeat_n(i as i64, r as usize));
                }
                out(self.take(&x, ax, positions, span)?)
            }
            "tile" => {
                let x = arr(0);
                let reps = self.flat_ints(s[1].as_ref().map(|v| &v.0), &sp(1), "reps")?;
                shape::check_counts("reps", &reps, &sp(1))?;
                let d = x.rank().max(reps.len());
                let mut v = x.view.clone();
                while v.rank() < d {
                    v = v.insert_axis(0);
                }
                let mut reps_full = vec![1usize; d - reps.len()];
                reps_full.extend(reps.iter().map(|&r| r as usize));
                let base = v.shape.clone();
                for k in (0..d).rev() {
                    v = v.insert_axis(k);
                }
                let wide: Vec<usize> = (0..d).flat_map(|k| [reps_full[k], base[k]]).collect();
                shape::check_size(&wide, span)?;
                let b = build::copy(&build::broadcast_view(&x.with_view(v), &wide), Some(span));
                let merged: Vec<usize> = (0..d).map(|k| reps_full[k] * base[k]).collect();
                out(build::reshape(&b, &merged, span))
            }
            "pad" => self.pad(s, span).map(Value::Array),
            "diag" => {
                let x = arr(0);
                let k = int_or(self, 1, 0)?;
                shape::check_matrix_rank(name, x.rank(), &sp(0))?;
                match x.rank() {
                    1 => {
                        let n = x.shape()[0];
                        let big = n
                            .checked_add(k.unsigned_abs() as usize)
                            .ok_or_else(|| Diagnostic::new("E0403", "diag's result is too large", span.clone()))?;
                        shape::check_size(&[big, big], span)?;
                        let dt = x.dtype();
                        let zero = build::scalar(dt, 0.0, false);
                        let tail = build::full(&[k.unsigned_abs() as usize], &zero, dt, span)?;
                        let padded = join(vec![x.clone(), tail], 0, span)?;
                        let (rows, cols) = index_grids(big, big, span);
                        let d = build::binary(BinOp::Sub, &cols, &rows, (None, None), span)?;
                        let cond = build::binary(BinOp::Eq, &d, &build::scalar_i64(k, true), (None, None), span)?;
                        let vals = if k >= 0 {
                            padded.with_view(padded.view.insert_axis(1))
                        } else {
                            padded.with_view(padded.view.insert_axis(0))
                        };
                        out(build::select(&cond, &vals, &zero, [None, None, None], span)?)
                    }
                    // rank 2 (`check_matrix_rank` admits 1 and 2)
                    _ => out(diagonal_view(&x, k, 0, 1)),
                }
            }
            "diagonal" | "trace" => {
                let x = arr(0);
                shape::check_matrix_rank(name, x.rank(), &sp(0))?;
                let offset = int_or(self, 1, 0)?;
                let a1 = shape::normalize_axis(int_or(self, 2, 0)?, x.rank(), &sp(2))?;
                let a2 = shape::normalize_axis(int_or(self, 3, 1)?, x.rank(), &sp(3))?;
                if a1 == a2 {
                    return Err(axis_error("axis1 and axis2 cannot be the same", &sp(3)));
                }
                let d = diagonal_view(&x, offset, a1, a2);
                if name == "diagonal" {
                    return out(d);
                }
                let r = build::reduce(ReduceOp::Sum, &d, Some(vec![d.rank() - 1]), false, span)?;
                match self.static_dtype(s[4].as_ref())? {
                    Some(dt) => out(build::cast(&r, dt, Some(span))),
                    None => out(r),
                }
            }
            "tril" | "triu" => {
                let x = arr(0);
                shape::check_matrix_rank(name, x.rank(), &sp(0))?;
                let k = int_or(self, 1, 0)?;
                let (m, n) = (x.shape()[x.rank() - 2], x.shape()[x.rank() - 1]);
                let (rows, cols) = index_grids(m, n, span);
                let d = build::binary(BinOp::Sub, &cols, &rows, (None, None), span)?;
                let op = if name == "tril" { BinOp::Le } else { BinOp::Ge };
                let cond = build::binary(op, &d, &build::scalar_i64(k, true), (None, None), span)?;
                let zero = build::scalar(x.dtype(), 0.0, false);
                out(build::select(&cond, &x, &zero, [None, None, None], span)?)
            }
            "identity" => {
                let n = int_or(self, 0, 0)?;
                shape::check_identity_size(n, &sp(0))?;
                let n = n as usize;
                shape::check_size(&[n, n], span)?;
                let dt = self.static_dtype(s[1].as_ref())?.unwrap_or(DType::DEFAULT_FLOAT);
                let (rows, cols) = index_grids(n, n, span);
                let eq = build::binary(BinOp::Eq, &rows, &cols, (None, None), span)?;
                out(build::cast(&eq, dt, Some(span)))
            }
            "empty" => {
                let shape = self.static_shape(s[0].as_ref().map(|v| &v.0).unwrap_or(&Value::None), &sp(0))?;
                let dt = self.static_dtype(s[1].as_ref())?.unwrap_or(DType::DEFAULT_FLOAT);
                out(build::full(&shape, &build::scalar(dt, 0.0, false), dt, span)?)
            }
            "empty_like" => {
                let x = arr(0);
                let dt = self.static_dtype(s[1].as_ref())?.unwrap_or(x.dtype());
                let shape = if given(2) {
                    self.static_shape(&s[2].as_ref().unwrap().0, &sp(2))?
                } else {
                    x.shape().to_vec()
                };
                out(build::full(&shape, &build::scalar(dt, 0.0, false), dt, span)?)
            }
            "split" | "array_split" | "hsplit" | "vsplit" => {
                let x = arr(0);
                let axis = if matches!(name, "hsplit" | "vsplit") {
                    0
                } else {
                    int_or(self, 2, 0)?
                };
                let axis_span = if s.len() > 2 { sp(2) } else { sp(0) };
                let ax = shape::split_axis(name, x.rank(), axis, &sp(0), &axis_span)?;
                let len = x.shape()[ax];
                let (how, hs) = s[1]
                    .as_ref()
                    .map(|v| (&v.0, v.1.clone()))
                    .ok_or_else(|| bad_arg("no sections given", span))?;
                let sections = matches!(how, Value::Array(a) if a.rank() == 0);
                let cuts = self.static_int_list(how, &hs, "indices_or_sections")?;
                // the bounds of every part, as NumPy: sections split evenly (the first
                // len % n one longer for array_split); indices clip to the axis
                let bounds: Vec<(usize, usize)> = if sections {
                    let n = shape::check_sections(Some(len), cuts[0], ax, name != "array_split", &hs)?;
                    let (each, extra) = (len / n, len % n);
                    let mut start = 0;
                    (0..n)
                        .map(|k| {
                            let l = each + usize::from(k < extra);
                            start += l;
                            (start - l, start)
                        })
                        .collect()
                } else {
                    let clip = |i: i64| -> usize {
                        let i = if i < 0 { i + len as i64 } else { i };
                        i.clamp(0, len as i64) as usize
                    };
                    let mut edges = vec![0];
                    edges.extend(cuts.iter().map(|&i| clip(i)));
                    edges.push(len);
                    edges.windows(2).map(|w| (w[0], w[1].max(w[0]))).collect()
                };
                Ok(Value::Tuple(
                    bounds
                        .into_iter()
                        .map(|(a, b)| Value::Array(slice(&x, ax, a, b - a, 1)))
                        .collect(),
                ))
            }
            "meshgrid" => {
                let xs: Vec<Array> = rest_arrays(name, rest)?
                    .into_iter()
                    .map(|(a, vs)| build::reshape(&a, &[a.size()], &vs))
                    .collect();
                let copy = self.static_bool(s[1].as_ref(), true)?;
                let sparse = self.static_bool(s[2].as_ref(), false)?;
                let indexing = match &s[3] {
                    Some((v, vs)) if !matches!(v, Value::None) => self.static_str(v, vs, "indexing")?,
                    _ => "xy".to_string(),
                };
                if indexing != "xy" && indexing != "ij" {
                    return Err(bad_arg(
                        format!("indexing must be \"xy\" or \"ij\", not \"{indexing}\""),
                        &sp(3),
                    ));
                }
                let nd = xs.len();
                let mut place: Vec<usize> = (0..nd).collect();
                if indexing == "xy" && nd >= 2 {
                    place.swap(0, 1);
                }
                let mut full = vec![0; nd];
                for (k, x) in xs.iter().enumerate() {
                    full[place[k]] = x.size();
                }
                shape::check_size(&full, span)?;
                let mut grids = Vec::with_capacity(nd);
                for (k, x) in xs.iter().enumerate() {
                    let v = along_axis(x, place[k], nd, span);
                    let g = if sparse { v } else { build::broadcast_view(&v, &full) };
                    grids.push(Value::Array(if copy { build::copy(&g, Some(span)) } else { g }));
                }
                Ok(Value::Tuple(grids))
            }
            "ix_" => {
                let given = rest_arrays(name, rest)?;
                let nd = given.len();
                let mut grids = Vec::with_capacity(nd);
                for (k, (a, vs)) in given.into_iter().enumerate() {
                    shape::check_ix_rank(a.rank(), &vs)?;
                    let a = match a.dtype() {
                        DType::Bool => {
                            match self.np_builtin("flatnonzero", &[Some((Value::Array(a), vs.clone()))], span)? {
                                Value::Array(positions) => positions,
                                _ => return Err(bad_arg("internal: flatnonzero gave no array", &vs)),
                            }
                        }
                        // an empty list indexes nothing, as integers (NumPy's intp)
                        _ if a.size() == 0 => build::cast(&a, DType::I64, Some(&vs)),
                        _ => a,
                    };
                    grids.push(Value::Array(along_axis(&a, k, nd, span)));
                }
                Ok(Value::Tuple(grids))
            }
            "indices" => {
                let dims = self.static_shape(s[0].as_ref().map(|v| &v.0).unwrap_or(&Value::None), &sp(0))?;
                let dt = self.static_dtype(s[1].as_ref())?.unwrap_or(DType::DEFAULT_INT);
                let mut full = vec![dims.len()];
                full.extend(&dims);
                shape::check_size(&full, span)?;
                if dims.is_empty() {
                    return out(build::full(&[0], &build::scalar(dt, 0.0, false), dt, span)?);
                }
                let grids: Vec<Array> = dims
                    .iter()
                    .enumerate()
                    .map(|(k, &d)| {
                        let line = build::arange(0.0, 1.0, d, dt, span);
                        build::broadcast_view(&along_axis(&line, k, dims.len(), span), &dims)
                    })
                    .collect();
                out(build::stack(&grids, &vec![span.clone(); grids.len()], 0, span)?)
            }
            "ravel_multi_index" => {
                let dims = self.static_shape(s[1].as_ref().map(|v| &v.0).unwrap_or(&Value::None), &sp(1))?;
                let coords: Vec<(Array, Span)> = match &s[0] {
                    Some((Value::Tuple(items), vs)) => items
                        .iter()
                        .map(|v| match v {
                            Value::Array(a) => Ok((a.clone(), vs.clone())),
                            other => Err(Diagnostic::new(
                                "E0303",
                                format!(
                                    "ravel_multi_index takes arrays of coordinates, found {}",
                                    other.kind_name()
                                ),
                                vs.clone(),
                            )),
                        })
                        .collect::<R<_>>()?,
                    Some((Value::Array(a), vs)) if a.rank() > 0 => (0..a.shape()[0])
                        .map(|i| (a.with_view(a.view.select_axis(0, i)), vs.clone()))
                        .collect(),
                    Some((other, vs)) => {
                        return Err(bad_arg(
                            format!(
                                "ravel_multi_index takes a tuple or list of coordinate arrays, found {}",
                                other.kind_name()
                            ),
                            vs,
                        ));
                    }
                    None => return Err(Diagnostic::new("E0105", "missing argument `multi_index`", span.clone())),
                };
                if coords.len() != dims.len() {
                    return Err(bad_arg(
                        format!(
                            "ravel_multi_index needs one coordinate array per axis of dims ({}), found {}",
                            dims.len(),
                            coords.len()
                        ),
                        &sp(0),
                    ));
                }
                // row-major: each axis's coordinate times the size of the axes after it
                let mut flat = build::scalar_i64(0, true);
                for ((c, cs), &d) in coords.iter().zip(&dims) {
                    super::npfuncs::require_index_ints(c, "coordinates", cs)?;
                    let host = self.host_of(c, cs)?;
                    if let Some(v) = (0..host.len())
                        .map(|i| host.get_i64(i))
                        .find(|&v| v < 0 || v >= d as i64)
                    {
                        return Err(shape::index_out_of_range(v, d as i64, cs));
                    }
                    let scaled = build::binary(
                        BinOp::Mul,
                        &flat,
                        &build::scalar_i64(d as i64, true),
                        (None, None),
                        span,
                    )?;
                    let c = build::cast(c, DType::I64, Some(cs));
                    flat = build::binary(BinOp::Add, &scaled, &c, (None, Some(cs)), span)?;
                }
                out(build::cast(&flat, DType::I64, Some(span)).with_weak(false))
            }
            "dot" => out(self.dot(&arr(0), &arr(1), (sp(0), sp(1)), span)?),
            "outer" => {
                let (a, b) = (arr(0), arr(1));
                let a = build::reshape(&a, &[a.size()], span);
                let b = build::reshape(&b, &[b.size()], span);
                let a = a.with_view(a.view.insert_axis(1));
                let b = b.with_view(b.view.insert_axis(0));
                out(build::binary(BinOp::Mul, &a, &b, (Some(&sp(0)), Some(&sp(1))), span)?)
            }
            "cross" => out(self.cross(&arr(0), &arr(1), s, span)?),
            "einsum" => {
                let sub = self.static_str(
                    s[0].as_ref().map(|v| &v.0).unwrap_or(&Value::None),
                    &sp(0),
                    "the subscripts",
                )?;
                let mut ops = Vec::with_capacity(rest.len());
                for (v, vs) in rest {
                    match v {
                        Value::Array(a) => ops.push(a.clone()),
                        other => {
                            return Err(Diagnostic::new(
                                "E0303",
                                format!("einsum's operands must be arrays, found {}", other.kind_name()),
                                vs.clone(),
                            ));
                        }
                    }
                }
                let r = einsum(&sub, &ops, &sp(0), span)?;
                match self.static_dtype(s[2].as_ref())? {
                    Some(dt) => out(build::cast(&r, dt, Some(span))),
                    None => out(r),
                }
            }
            "inv" | "det" => {
                let x = arr(0);
                let (n, batch) = square(&x, name, &sp(0))?;
                let count: usize = batch.iter().product();
                let dt = x.dtype().to_float();
                let job = if name == "det" {
                    linalg::LuJob::Det
                } else {
                    linalg::LuJob::Inv
                };
                if let Some(r) = self.device_lu(job, &x, None, (count, n, 0), dt, span)? {
                    let shape = if name == "det" { batch.as_slice() } else { x.shape() };
                    return out(r.with_view(View::contiguous(shape)));
                }
                let host = graph::to_host(&*self.backend, &x).map_err(|d| d.or_span(span))?;
                if name == "det" {
                    let vals: Vec<f64> = (0..count)
                        .map(|b| linalg::det(&matrix(&host, b * n * n, n * n), n))
                        .collect();
                    return out(self.host_result(vals, &batch, dt)?);
                }
                let mut vals = Vec::with_capacity(count * n * n);
                let eye: Vec<f64> = (0..n * n).map(|i| if i / n == i % n { 1.0 } else { 0.0 }).collect();
                for b in 0..count {
                    let mut lu = matrix(&host, b * n * n, n * n);
                    let mut perm = vec![0; n];
                    linalg::lu_factor(&mut lu, n, &mut perm).map_err(|_| singular(span))?;
                    vals.extend(linalg::lu_solve(&lu, n, &perm, &eye, n));
                }
                out(self.host_result(vals, x.shape(), dt)?)
            }
            "matrix_power" => {
                let x = arr(0);
                let (m, _) = square(&x, name, &sp(0))?;
                let n = int_or(self, 1, 1)?;
                if n == 0 {
                    // the identity in a's dtype, one per matrix of the stack
                    let (rows, cols) = index_grids(m, m, span);
                    let eq = build::binary(BinOp::Eq, &rows, &cols, (None, None), span)?;
                    let eye = build::cast(&eq, x.dtype(), Some(span));
                    return out(build::copy(&build::broadcast_view(&eye, x.shape()), Some(span)));
                }
                let x = if n < 0 {
                    match self.run_shape_linalg("inv", &s[..1], &[], span)? {
                        Value::Array(inv) => inv,
                        _ => return Err(Diagnostic::new("E0420", "the inverse is not an array", span.clone())),
                    }
                } else {
                    x
                };
                let mul = |a: &Array, b: &Array| build::matmul(a, b, (None, None), span);
                // NumPy's order: short cuts to 3, then the bits of n from the lowest,
                // the result multiplied by each power of two whose bit is set
                out(match n.unsigned_abs() {
                    1 => build::copy(&x, Some(span)),
                    2 => mul(&x, &x)?,
                    3 => mul(&mul(&x, &x)?, &x)?,
                    mut k => {
                        let (mut z, mut result): (Option<Array>, Option<Array>) = (None, None);
                        while k > 0 {
                            let zk = match &z {
                                None => x.clone(),
                                Some(z) => mul(z, z)?,
                            };
                            if k & 1 == 1 {
                                result = Some(match &result {
                                    None => zk.clone(),
                                    Some(r) => mul(r, &zk)?,
                                });
                            }
                            z = Some(zk);
                            k >>= 1;
                        }
                        result.unwrap_or(x)
                    }
                })
            }
            "solve" => {
                let (a, b) = (arr(0), arr(1));
                // the checker's rule: b fits a, the stacks broadcast
                let full = shape::solve_shape(&dims(a.shape()), &dims(b.shape()), (&sp(0), &sp(1)), span)?;
                let n = a.shape()[a.rank() - 1];
                let vector = b.rank() == 1;
                let k = if vector { 1 } else { b.shape()[b.rank() - 1] };
                let batch: Vec<usize> = full[..full.len() - if vector { 1 } else { 2 }]
                    .iter()
                    .map(|d| d.unwrap_or(0))
                    .collect();
                let mut afull = batch.clone();
                afull.extend([n, n]);
                let mut bfull = batch.clone();
                bfull.extend([n, k]);
                let bview = if vector {
                    b.with_view(b.view.insert_axis(1))
                } else {
                    b.clone()
                };
                let count: usize = batch.iter().product();
                let dt = build::result_dtype(&a, &b).0.to_float();
                // the device takes each right-hand side transposed (column-major)
                let r = bfull.len();
                let mut swap: Vec<usize> = (0..r).collect();
                swap.swap(r - 1, r - 2);
                let bt = build::broadcast_view(&bview, &bfull);
                let bt = bt.with_view(bt.view.permute(&swap));
                if let Some(x) = self.device_lu(
                    linalg::LuJob::Solve,
                    &build::broadcast_view(&a, &afull),
                    Some(&bt),
                    (count, n, k),
                    dt,
                    span,
                )? {
                    // (count, k, n) of transposed solutions: back to batch + (n, k), or (n,)
                    let mut tshape = batch.clone();
                    tshape.extend([k, n]);
                    let x = x.with_view(View::contiguous(&tshape));
                    let x = x.with_view(x.view.permute(&swap));
                    if vector {
                        let mut shape = batch;
                        shape.push(n);
                        return out(build::reshape(&x, &shape, span));
                    }
                    return out(x);
                }
                let ah =
                    graph::to_host(&*self.backend, &build::broadcast_view(&a, &afull)).map_err(|d| d.or_span(span))?;
                let bh = graph::to_host(&*self.backend, &build::broadcast_view(&bview, &bfull))
                    .map_err(|d| d.or_span(span))?;
                let mut vals = Vec::with_capacity(count * n * k);
                for i in 0..count {
                    let mut lu = matrix(&ah, i * n * n, n * n);
                    let mut perm = vec![0; n];
                    linalg::lu_factor(&mut lu, n, &mut perm).map_err(|_| singular(span))?;
                    vals.extend(linalg::lu_solve(&lu, n, &perm, &matrix(&bh, i * n * k, n * k), k));
                }
                let mut shape = batch;
                shape.push(n);
                if !vector {
                    shape.push(k);
                }
                out(self.host_result(vals, &shape, dt)?)
            }
            "time" | "perf_counter" => Ok(Value::Array(build::scalar(DType::F64, self.clock(name), false))),
            _ => Err(Diagnostic::new(
                "E0101",
                format!("the builtin `{name}` is declared but not implemented"),
                span.clone(),
            )),
        }
    }

    /// Seconds: since the Unix epoch for `time`, since the session started for `perf_counter`.
    fn clock(&self, name: &str) -> f64 {
        let _ = START.get_or_init(std::time::Instant::now);
        if name == "time" {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or(0.0)
        } else {
            START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64()
        }
    }

    /// The integers of a static argument: an int, a (nested) tuple of ints or an
    /// integer array of any rank, flattened.
    fn flat_ints(&self, v: Option<&Value>, span: &Span, what: &str) -> R<Vec<i64>> {
        match v {
            Some(Value::Tuple(items)) => {
                let mut out = Vec::new();
                for item in items {
                    out.extend(self.flat_ints(Some(item), span, what)?);
                }
                Ok(out)
            }
            Some(Value::Array(a)) => {
                if !(a.dtype().is_int() || a.dtype() == DType::Bool) {
                    return Err(Diagnostic::new(
                        "E0305",
                        format!("{what} must be integers, found {}", a.dtype()),
                        span.clone(),
                    ));
                }
                let host = graph::to_host(&*self.backend, a).map_err(|d| d.or_span(span))?;
                Ok((0..host.len()).map(|i| host.get_i64(i)).collect())
            }
            Some(other) => Err(Diagnostic::new(
                "E0305",
                format!("{what} must be integers, found {}", other.kind_name()),
                span.clone(),
            )),
            None => Err(Diagnostic::new("E0105", format!("missing {what}"), span.clone())),
        }
    }

    /// The numbers of a static argument, flattened (as `flat_ints`, any dtype).
    fn flat_f64s(&self, v: &Value, span: &Span, what: &str) -> R<Vec<f64>> {
        match v {
            Value::Tuple(items) => {
                let mut out = Vec::new();
                for item in items {
                    out.extend(self.flat_f64s(item, span, what)?);
                }
                Ok(out)
            }
            Value::Array(a) => {
                let host = graph::to_host(&*self.backend, a).map_err(|d| d.or_span(span))?;
                Ok((0..host.len()).map(|i| host.get_f64(i)).collect())
            }
            other => Err(Diagnostic::new(
                "E0305",
                format!("{what} must be numbers, found {}", other.kind_name()),
                span.clone(),
            )),
        }
    }

    /// Gathers `positions` (valid, non-negative) along `axis` of `x`.
    fn take(&self, x: &Array, axis: usize, positions: Vec<i64>, span: &Span) -> R<Array> {
        let len = positions.len();
        let idx = Array::from_buffer(self.backend.adopt(HostData::I64(positions))?, DType::I64, &[len]);
        let mut shape = x.shape().to_vec();
        shape[axis] = len;
        Ok(Array::pending(
            Op::Take { axis },
            vec![x.clone(), idx],
            x.dtype(),
            &shape,
            Some(span.clone()),
        ))
    }

    /// f64 results computed on the host, as an array of `dt`.
    /// `inv`, `solve` or `det` on the backend's device (cuSOLVER on CUDA),
    /// or `None` for the host LU: `a` (and `b`, already transposed per item)
    /// broadcast to the batch, cast to `dt` and copied, each matrix
    /// transposed, into fresh contiguous stacks that the job may overwrite.
    /// `dims` is (count, n, k).
    fn device_lu(
        &self,
        job: linalg::LuJob,
        a: &Array,
        b: Option<&Array>,
        (count, n, k): (usize, usize, usize),
        dt: DType,
        span: &Span,
    ) -> R<Option<Array>> {
        if !matches!(dt, DType::F32 | DType::F64) || count * n == 0 {
            return Ok(None);
        }
        let stack = |x: &Array, rows: usize, cols: usize| {
            let c = build::copy(&build::cast(x, dt, Some(span)), Some(span));
            c.with_view(View::contiguous(&[count, rows, cols]))
        };
        // each matrix transposed: cuSOLVER reads column-major, so it factorises
        // A itself and pivots as the host LU does (the same exact zero pivots)
        let r = a.rank();
        let mut swap: Vec<usize> = (0..r).collect();
        swap.swap(r - 1, r - 2);
        let a3 = stack(&a.with_view(a.view.permute(&swap)), n, n);
        let b3 = b.map(|b| stack(b, k, n));
        match self.backend.lu(job, &a3, b3.as_ref()) {
            None => Ok(None),
            Some(Ok(r)) => Ok(Some(r)),
            Some(Err(d)) if d.code == "E0420" => Err(singular(span)),
            Some(Err(d)) => Err(d.or_span(span)),
        }
    }

    pub(super) fn host_result(&self, vals: Vec<f64>, shape: &[usize], dt: DType) -> R<Array> {
        let a = Array::from_buffer(self.backend.adopt(HostData::F64(vals))?, DType::F64, shape);
        Ok(if dt == DType::F64 { a } else { build::cast(&a, dt, None) })
    }

    /// NumPy's `pad(array, pad_width, mode='constant', constant_values=0)`.
    fn pad(&self, s: &[Slot], span: &Span) -> R<Array> {
        let sp = |k: usize| s[k].as_ref().map(|x| x.1.clone()).unwrap_or(span.clone());
        let x = match &s[0] {
            Some((Value::Array(a), _)) => a.clone(),
            _ => return Err(Diagnostic::new("E0105", "missing argument `array`", span.clone())),
        };
        let r = x.rank();
        let widths = self.flat_ints(s[1].as_ref().map(|v| &v.0), &sp(1), "pad_width")?;
        let pairs = shape::pad_pairs(&widths, r, &sp(1))?;
        let mode = match &s[2] {
            Some((v, vs)) if !matches!(v, Value::None) => self.static_str(v, vs, "mode")?,
            _ => "constant".to_string(),
        };
        let consts = match &s[3] {
            Some((v, vs)) if !matches!(v, Value::None) => {
                let c = self.flat_f64s(v, vs, "constant_values")?;
                shape::per_axis_pairs(&c, r).ok_or_else(|| {
                    bad_arg(
                        format!("constant_values of {} numbers does not fit rank {r}", c.len()),
                        vs,
                    )
                })?
            }
            _ => vec![(0.0, 0.0); r],
        };
        let dt = x.dtype();
        let mut cur = x.clone();
        for ax in 0..r {
            let (before, after) = (pairs[ax].0 as usize, pairs[ax].1 as usize);
            if before == 0 && after == 0 {
                continue;
            }
            let n = cur.shape()[ax];
            let mut grown = cur.shape().to_vec();
            grown[ax] = before
                .checked_add(after)
                .and_then(|w| w.checked_add(n))
                .ok_or_else(|| Diagnostic::new("E0403", "pad's result is too large", span.clone()))?;
            shape::check_size(&grown, span)?;
            // NumPy: only constants pad an empty axis
            if n == 0 && matches!(mode.as_str(), "edge" | "wrap" | "reflect" | "symmetric") {
                return Err(
                    bad_arg(format!("mode '{mode}' cannot pad axis {ax}, which is empty"), &sp(1))
                        .with_hint("pad an empty axis with mode 'constant'"),
                );
            }
            // wider than one copy of the axis: NumPy repeats the pattern, a gather here
            let limit = match mode.as_str() {
                "wrap" | "symmetric" => n,
                "reflect" => n - 1,
                _ => usize::MAX,
            };
            if before.max(after) > limit {
                let positions = (0..grown[ax])
                    .map(|k| periodic_pad_source(&mode, n, k as i64 - before as i64))
                    .collect();
                cur = self.take(&cur, ax, positions, span)?;
                continue;
            }
            // within one copy: views of the axis, joined
            let piece = |len: usize, which: usize| -> R<Array> {
                let mut shape = cur.shape().to_vec();
                shape[ax] = len;
                match mode.as_str() {
                    "constant" => {
                        let c = if which == 0 { consts[ax].0 } else { consts[ax].1 };
                        build::full(&shape, &build::scalar(DType::F64, c, true), dt, span)
                    }
                    "edge" => {
                        let at = if which == 0 { 0 } else { n - 1 };
                        Ok(build::broadcast_view(&slice(&cur, ax, at, 1, 1), &shape))
                    }
                    "wrap" => Ok(if which == 0 {
                        slice(&cur, ax, n - len, len, 1)
                    } else {
                        slice(&cur, ax, 0, len, 1)
                    }),
                    "reflect" => Ok(if which == 0 {
                        slice(&cur, ax, len, len, -1)
                    } else {
                        slice(&cur, ax, n.saturating_sub(2), len, -1)
                    }),
                    "symmetric" => Ok(if which == 0 {
                        slice(&cur, ax, len.saturating_sub(1), len, -1)
                    } else {
                        slice(&cur, ax, n - 1, len, -1)
                    }),
                    other => Err(bad_arg(format!("unknown pad mode '{other}'"), &sp(2))
                        .with_hint("the modes are 'constant', 'edge', 'wrap', 'reflect' and 'symmetric'")),
                }
            };
            let (b, a) = (piece(before, 0)?, piece(after, 1)?);
            cur = join(vec![b, cur.clone(), a], ax, span)?;
        }
        Ok(cur)
    }

    /// NumPy's `dot`: a product for scalars, `@` up to rank 2 (and for a 1-D
    /// operand), else a sum over a's last axis and b's second-to-last.
    fn dot(&self, a: &Array, b: &Array, spans: (Span, Span), span: &Span) -> R<Array> {
        if a.rank() == 0 || b.rank() == 0 {
            return build::binary(BinOp::Mul, a, b, (Some(&spans.0), Some(&spans.1)), span);
        }
        if a.rank() <= 2 && b.rank() <= 2 || a.rank() == 1 || b.rank() == 1 {
            return build::matmul(a, b, (Some(&spans.0), Some(&spans.1)), span);
        }
        let (ra, rb) = (a.rank(), b.rank());
        let k = a.shape()[ra - 1];
        let rows: usize = a.shape()[..ra - 1].iter().product();
        let a2 = build::reshape(a, &[rows, k], span);
        // b's second-to-last axis first: (k, rest..., n)
        let mut perm = vec![rb - 2];
        perm.extend((0..rb).filter(|&x| x != rb - 2));
        let bt = b.with_view(b.view.permute(&perm));
        let cols: usize = bt.shape()[1..].iter().product();
        let b2 = build::reshape(&bt, &[bt.shape()[0], cols], span);
        let c = build::matmul(&a2, &b2, (Some(&spans.0), Some(&spans.1)), span)?;
        let mut shape = a.shape()[..ra - 1].to_vec();
        shape.extend(&b.shape()[..rb - 2]);
        shape.push(b.shape()[rb - 1]);
        Ok(build::reshape(&c, &shape, span))
    }

    /// NumPy's `cross(a, b, axis=-1)` of 3-vectors (or 2-vectors) along `axis`.
    fn cross(&self, a: &Array, b: &Array, s: &[Slot], span: &Span) -> R<Array> {
        let sp = |k: usize| s[k].as_ref().map(|x| x.1.clone()).unwrap_or(span.clone());
        let axis = match &s[2] {
            Some((v, vs)) if !matches!(v, Value::None) => self.static_int(v, vs)?,
            _ => -1,
        };
        let last = |x: &Array, k: usize| -> R<Array> {
            let ax = shape::cross_axis(&dims(x.shape()), axis, &sp(k), &sp(2))?;
            let mut perm: Vec<usize> = (0..x.rank()).filter(|&p| p != ax).collect();
            perm.push(ax);
            Ok(x.with_view(x.view.permute(&perm)))
        };
        let (a, b) = (last(a, 0)?, last(b, 1)?);
        let comp = |x: &Array, i: usize| -> Array {
            let r = x.rank() - 1;
            if i < x.shape()[r] {
                x.with_view(x.view.select_axis(r, i))
            } else {
                build::scalar(x.dtype(), 0.0, true)
            }
        };
        let mul = |x: &Array, y: &Array| build::binary(BinOp::Mul, x, y, (None, None), span);
        let sub = |x: &Array, y: &Array| build::binary(BinOp::Sub, x, y, (None, None), span);
        let (a0, a1, a2) = (comp(&a, 0), comp(&a, 1), comp(&a, 2));
        let (b0, b1, b2) = (comp(&b, 0), comp(&b, 1), comp(&b, 2));
        let z = sub(&mul(&a0, &b1)?, &mul(&a1, &b0)?)?;
        if a.shape()[a.rank() - 1] == 2 && b.shape()[b.rank() - 1] == 2 {
            return Ok(z);
        }
        let x = sub(&mul(&a1, &b2)?, &mul(&a2, &b1)?)?;
        let y = sub(&mul(&a2, &b0)?, &mul(&a0, &b2)?)?;
        let shape = z.shape().to_vec();
        let parts: Vec<Array> = [x, y, z].iter().map(|c| build::broadcast_view(c, &shape)).collect();
        let spans = vec![span.clone(); 3];
        let ax = shape::normalize_axis(axis, shape.len() + 1, &sp(2))?;
        build::stack(&parts, &spans, ax as i64, span)
    }
}

/// The size n of the square matrices of `x` (..., n, n) and the batch shape.
fn square(x: &Array, name: &str, span: &Span) -> R<(usize, Vec<usize>)> {
    shape::check_square(name, &shape::dims(x.shape()), span)?;
    let r = x.rank();
    Ok((x.shape()[r - 1], x.shape()[..r - 2].to_vec()))
}

fn singular(span: &Span) -> Diagnostic {
    Diagnostic::new("E0420", "singular matrix", span.clone())
        .with_hint("the matrix has no inverse (NumPy raises LinAlgError); `det` of it is 0")
}

/// `len` values of `host` from `start`, as f64.
fn matrix(host: &HostData, start: usize, len: usize) -> Vec<f64> {
    (start..start + len).map(|i| host.get_f64(i)).collect()
}

/// NumPy's `einsum` for any subscripts without repeated output labels: each
/// operand's repeated labels become a diagonal view; two operands with a
/// contraction become one (batched) matrix product; anything else is a
/// broadcast product summed over the labels not in the output.
pub fn einsum(sub: &str, ops: &[Array], sub_span: &Span, span: &Span) -> R<Array> {
    let shapes: Vec<Vec<Dim>> = ops.iter().map(|x| dims(x.shape())).collect();
    let refs: Vec<&[Dim]> = shapes.iter().map(Vec::as_slice).collect();
    let spec = einsum::spec(sub, &refs, sub_span, span)?;
    let mut inputs: Vec<(Vec<u32>, Array)> = Vec::with_capacity(ops.len());
    for (labels, x) in spec.terms.iter().zip(ops) {
        let (mut labels, mut x) = (labels.clone(), x.clone());
        // a repeated label takes the diagonal of its two axes (of one size: `spec`)
        while let Some((i, j)) = einsum::repeated(&labels) {
            let mut v = x.view.clone();
            v.strides[i] += v.strides[j];
            v.shape.remove(j);
            v.strides.remove(j);
            labels.remove(j);
            x = x.with_view(v);
        }
        inputs.push((labels, x));
    }
    let (output, all) = (spec.output, spec.all);
    let sizes: Vec<usize> = spec.sizes.iter().map(|d| d.unwrap_or(0)).collect();
    let dt = ops.iter().skip(1).fold(
        ops.first().map(|x| x.dtype()).unwrap_or(DType::DEFAULT_FLOAT),
        |d, x| crate::check::dtype::promote(d, x.dtype()),
    );
    if inputs.len() == 2
        && let Some(r) = einsum_matmul(&inputs, &output, &all, &sizes, span)?
    {
        return Ok(r);
    }
    // each operand as a view over every label (size 1 where it lacks one)
    let mut product: Option<Array> = None;
    for (ls, x) in &inputs {
        let mut v = View {
            shape: Default::default(),
            strides: Default::default(),
            offset: x.view.offset,
        };
        for l in &all {
            match ls.iter().position(|m| m == l) {
                Some(k) => {
                    v.shape.push(x.view.shape[k]);
                    v.strides.push(x.view.strides[k]);
                }
                None => {
                    v.shape.push(1);
                    v.strides.push(0);
                }
            }
        }
        let y = x.with_view(v);
        product = Some(match product {
            None => y,
            Some(p) => build::binary(BinOp::Mul, &p, &y, (None, None), span)?,
        });
    }
    let Some(p) = product else {
        return Err(einsum::einsum_error("einsum needs at least one operand", sub_span));
    };
    let p = build::broadcast_view(&p, &sizes);
    if all.len() == output.len() {
        return Ok(p);
    }
    let summed: Vec<usize> = (output.len()..all.len()).collect();
    let p = if p.dtype() == DType::Bool {
        build::cast(&p, DType::DEFAULT_INT, Some(span))
    } else {
        p
    };
    let r = build::reduce(ReduceOp::Sum, &p, Some(summed), false, span)?;
    Ok(if r.dtype() != dt {
        build::cast(&r, dt, Some(span))
    } else {
        r
    })
}

/// Two operands with a contraction as one matrix product: labels in both and
/// the output are batch axes, in one operand and the output are rows
/// (columns), in both and not the output are contracted. `None` when the
/// pattern does not fit (a label summed within one operand, or broadcast sizes).
fn einsum_matmul(
    inputs: &[(Vec<u32>, Array)],
    output: &[u32],
    all: &[u32],
    sizes: &[usize],
    span: &Span,
) -> R<Option<Array>> {
    let (la, a) = (&inputs[0].0, &inputs[0].1);
    let (lb, b) = (&inputs[1].0, &inputs[1].1);
    let in_out = |l: &u32| output.contains(l);
    let batch: Vec<u32> = output
        .iter()
        .copied()
        .filter(|l| la.contains(l) && lb.contains(l))
        .collect();
    let rows: Vec<u32> = output
        .iter()
        .copied()
        .filter(|l| la.contains(l) && !lb.contains(l))
        .collect();
    let cols: Vec<u32> = output
        .iter()
        .copied()
        .filter(|l| lb.contains(l) && !la.contains(l))
        .collect();
    let contracted: Vec<u32> = la.iter().copied().filter(|l| lb.contains(l) && !in_out(l)).collect();
    let alone = la
        .iter()
        .chain(lb)
        .any(|l| !(in_out(l) || la.contains(l) && lb.contains(l)));
    if contracted.is_empty() || alone {
        return Ok(None);
    }
    let size = |l: &u32| sizes[all.iter().position(|m| m == l).unwrap_or(0)];
    // every axis must have its label's full size (no broadcasting here)
    for (ls, x) in inputs {
        if ls.iter().enumerate().any(|(k, l)| x.shape()[k] != size(l)) {
            return Ok(None);
        }
    }
    let arrange = |ls: &[u32], x: &Array, groups: [&[u32]; 3]| -> Array {
        let groups: &[&[u32]] = if batch.is_empty() { &groups[1..] } else { &groups };
        let perm: Vec<usize> = groups
            .iter()
            .flat_map(|g| g.iter().map(|l| ls.iter().position(|m| m == l).unwrap_or(0)))
            .collect();
        let v = x.with_view(x.view.permute(&perm));
        // one label a group: the permuted view is already the operand (a
        // transposed one reaches cuBLAS through its op flag, not a copy)
        if groups.iter().all(|g| g.len() == 1) {
            return v;
        }
        let flat: Vec<usize> = groups.iter().map(|g| g.iter().map(size).product()).collect();
        build::reshape(&v, &flat, span)
    };
    let a3 = arrange(la, a, [&batch, &rows, &contracted]);
    let b3 = arrange(lb, b, [&batch, &contracted, &cols]);
    let c = build::matmul(&a3, &b3, (None, None), span)?;
    let order: Vec<u32> = batch.iter().chain(&rows).chain(&cols).copied().collect();
    let shape: Vec<usize> = order.iter().map(size).collect();
    let c = build::reshape(&c, &shape, span);
    let perm: Vec<usize> = output
        .iter()
        .map(|l| order.iter().position(|m| m == l).unwrap_or(0))
        .collect();
    Ok(Some(c.with_view(c.view.permute(&perm))))
}

/// The element of an axis of `n > 0` that a periodic pad (`wrap`, `reflect`
/// or `symmetric`) puts at position `i`, counted from the axis's first
/// element (negative before it). Checked against `numpy.pad` for axes of 1
/// to 6 and pads up to 14 on each side.
fn periodic_pad_source(mode: &str, n: usize, i: i64) -> i64 {
    let n = n as i64;
    match mode {
        "wrap" => i.rem_euclid(n),
        "reflect" if n == 1 => 0,
        "reflect" => {
            let j = i.rem_euclid(2 * n - 2);
            if j >= n { 2 * n - 2 - j } else { j }
        }
        _ => {
            let j = i.rem_euclid(2 * n);
            if j >= n { 2 * n - 1 - j } else { j }
        }
    }
}
