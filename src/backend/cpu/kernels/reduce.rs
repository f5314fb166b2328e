//! Reductions over any set of axes, and inclusive scans along one axis.
//! Float sums and products accumulate in f64; min/max propagate NaN.

use super::{CHUNK, Elem, Layout, Num, PAR_THRESHOLD, Val, fill, internal};
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::{ReduceOp, ScanOp};
use crate::graph::view::{View, contiguous_strides};
use rayon::prelude::*;

/// A view split into the kept axes (one output each) and the reduced ones.
struct Split {
    outer: Layout,
    inner: Layout,
    n_out: usize,
    n_red: usize,
}

impl Split {
    fn new(view: &View, axes: &[usize]) -> Split {
        let (mut keep_shape, mut keep_strides, mut red_shape, mut red_strides) = (vec![], vec![], vec![], vec![]);
        for (k, (&d, &s)) in view.shape.iter().zip(&view.strides).enumerate() {
            if axes.contains(&k) {
                red_shape.push(d);
                red_strides.push(s);
            } else {
                keep_shape.push(d);
                keep_strides.push(s);
            }
        }
        Split {
            outer: Layout::new(&keep_shape, &keep_strides, view.offset as isize),
            inner: Layout::new(&red_shape, &red_strides, 0),
            n_out: keep_shape.iter().product(),
            n_red: red_shape.iter().product(),
        }
    }
}

/// Folds the reduced elements of each output with `step(acc, x, position in
/// the reduced range)`. Huge reduced ranges are cut into `CHUNK`s folded in
/// parallel and `merge`d in order, so results never depend on thread count.
fn fold<T: Elem, A: Copy + Send + Sync, O: Elem>(
    data: &[T],
    s: &Split,
    init: A,
    step: impl Fn(A, T, usize) -> A + Sync + Send,
    merge: impl Fn(A, A) -> A + Sync + Send,
    finish: impl Fn(A) -> O + Sync + Send,
) -> Vec<O> {
    let range = |base: isize, start: usize, len: usize| {
        let mut acc = init;
        let mut pos = start;
        s.inner.walk_at(base, start, len, |off| {
            acc = step(acc, data[off as usize], pos);
            pos += 1;
        });
        acc
    };
    if s.n_red >= PAR_THRESHOLD {
        let chunks = s.n_red.div_ceil(CHUNK);
        let mut out = Vec::with_capacity(s.n_out);
        s.outer.walk(0, s.n_out, |base| {
            let parts: Vec<A> = (0..chunks)
                .into_par_iter()
                .map(|c| range(base, c * CHUNK, CHUNK.min(s.n_red - c * CHUNK)))
                .collect();
            out.push(finish(parts.into_iter().fold(init, &merge)));
        });
        out
    } else {
        let per_chunk = CHUNK / s.n_red.max(1);
        fill(s.n_out, per_chunk, s.n_out * s.n_red >= PAR_THRESHOLD, |start, out| {
            let mut k = 0;
            s.outer.walk(start, out.len(), |base| {
                out[k] = finish(range(base, 0, s.n_red));
                k += 1;
            });
        })
    }
}

fn merge_with<T: Copy>(f: impl Fn(T, T) -> T) -> impl Fn(Option<T>, Option<T>) -> Option<T> {
    move |a, b| match (a, b) {
        (Some(x), Some(y)) => Some(f(x, y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// First index of the extreme along the single reduced axis; NaN (per `is_nan`) beats everything.
fn arg_extreme<T: Elem>(x: &[T], s: &Split, max: bool, is_nan: fn(T) -> bool) -> HostData {
    let pick = move |best: Option<(T, usize)>, cand: (T, usize)| match best {
        None => Some(cand),
        Some(b) if is_nan(b.0) => Some(b),
        Some(_) if is_nan(cand.0) => Some(cand),
        Some(b) if (max && cand.0 > b.0) || (!max && cand.0 < b.0) => Some(cand),
        keep => keep,
    };
    HostData::I64(fold(
        x,
        s,
        None,
        |acc, v, i| pick(acc, (v, i)),
        |a, b| match b {
            Some(cand) => pick(a, cand),
            None => a,
        },
        |a| a.map_or(0, |(_, i)| i as i64),
    ))
}

/// Reduces `a` (seen through `va`) over `axes` into `dtype`. A sum of bools into
/// i64 counts the trues straight from the bools: the graph does not widen them
/// first, so no full-size i64 copy exists.
pub(super) fn reduce(
    op: ReduceOp,
    axes: &[usize],
    a: &HostData,
    va: &View,
    dtype: crate::check::dtype::DType,
) -> Result<HostData, Diagnostic> {
    if axes.windows(2).any(|w| w[0] >= w[1]) || axes.iter().any(|&ax| ax >= va.rank()) {
        return Err(internal(format!(
            "reduction axes {axes:?} of a rank-{} array",
            va.rank()
        )));
    }
    let s = Split::new(va, axes);
    let name = match op {
        ReduceOp::Min => "min",
        ReduceOp::Max => "max",
        ReduceOp::ArgMin => "argmin",
        ReduceOp::ArgMax => "argmax",
        _ => "",
    };
    if matches!(op, ReduceOp::ArgMin | ReduceOp::ArgMax) && axes.len() != 1 {
        return Err(internal(format!("{name} over {} axes", axes.len())));
    }
    if !name.is_empty() && s.n_red == 0 {
        return Err(Diagnostic::spanless(
            "E0402",
            format!("zero-size array to reduction operation {name}, which has no identity"),
        )
        .with_hint("the reduced axes are empty; check the array's size before reducing"));
    }
    Ok(match a {
        crate::storage_only_data!() => {
            return Err(internal(
                "storage-only dtypes are computed wide (kernels::eval_storage)",
            ));
        }
        HostData::F32(x) => num_reduce(op, x, &s),
        HostData::F64(x) => num_reduce(op, x, &s),
        HostData::I32(x) => num_reduce(op, x, &s),
        HostData::I64(x) => num_reduce(op, x, &s),
        HostData::Bool(x) if op == ReduceOp::Sum && dtype == crate::check::dtype::DType::I64 => {
            HostData::I64(fold(x, &s, 0i64, |acc, v, _| acc + i64::from(v), |a, b| a + b, |a| a))
        }
        HostData::Bool(x) => bool_reduce(op, x, &s),
    })
}

fn num_reduce<T: Num>(op: ReduceOp, x: &[T], s: &Split) -> HostData {
    let zero = <T::Acc as Num>::ZERO;
    let one = <T::Acc as Num>::ONE;
    match op {
        ReduceOp::Sum => T::wrap(fold(x, s, zero, |acc, v, _| acc.add(v.to_acc()), Num::add, T::from_acc)),
        ReduceOp::Prod => T::wrap(fold(x, s, one, |acc, v, _| acc.mul(v.to_acc()), Num::mul, T::from_acc)),
        ReduceOp::Min => T::wrap(fold(
            x,
            s,
            None,
            |acc: Option<T>, v, _| Some(acc.map_or(v, |a| a.minimum(v))),
            merge_with(T::minimum),
            |a| a.unwrap_or(T::ZERO),
        )),
        ReduceOp::Max => T::wrap(fold(
            x,
            s,
            None,
            |acc: Option<T>, v, _| Some(acc.map_or(v, |a| a.maximum(v))),
            merge_with(T::maximum),
            |a| a.unwrap_or(T::ZERO),
        )),
        ReduceOp::ArgMin => arg_extreme(x, s, false, T::is_nan),
        ReduceOp::ArgMax => arg_extreme(x, s, true, T::is_nan),
        ReduceOp::Any => HostData::Bool(fold(x, s, false, |acc, v, _| acc || v != T::ZERO, |a, b| a || b, |a| a)),
        ReduceOp::All => HostData::Bool(fold(x, s, true, |acc, v, _| acc && v != T::ZERO, |a, b| a && b, |a| a)),
    }
}

fn bool_reduce(op: ReduceOp, x: &[bool], s: &Split) -> HostData {
    match op {
        // bool arithmetic is logic: sum/max are `any`, prod/min are `all`
        ReduceOp::Any | ReduceOp::Sum | ReduceOp::Max => {
            HostData::Bool(fold(x, s, false, |acc, v, _| acc || v, |a, b| a || b, |a| a))
        }
        ReduceOp::All | ReduceOp::Prod | ReduceOp::Min => {
            HostData::Bool(fold(x, s, true, |acc, v, _| acc && v, |a, b| a && b, |a| a))
        }
        ReduceOp::ArgMin => arg_extreme(x, s, false, |_| false),
        ReduceOp::ArgMax => arg_extreme(x, s, true, |_| false),
    }
}

pub(super) fn scan(op: ScanOp, axis: usize, a: &HostData, va: &View) -> Result<HostData, Diagnostic> {
    let rank = va.rank();
    if axis >= rank {
        return Err(internal(format!("scan along axis {axis} of a rank-{rank} array")));
    }
    // scan along the last axis of a permuted view, so each line is contiguous in the result
    let mut perm: Vec<usize> = (0..rank).filter(|&k| k != axis).collect();
    perm.push(axis);
    let pv = va.permute(&perm);
    let (lay, n, len) = (Layout::of(&pv), va.size(), va.shape[axis]);
    let lines = match a {
        crate::storage_only_data!() => {
            return Err(internal(
                "storage-only dtypes are computed wide (kernels::eval_storage)",
            ));
        }
        HostData::F32(x) => num_scan(op, x, &lay, n, len),
        HostData::F64(x) => num_scan(op, x, &lay, n, len),
        HostData::I32(x) => num_scan(op, x, &lay, n, len),
        HostData::I64(x) => num_scan(op, x, &lay, n, len),
        HostData::Bool(x) => HostData::Bool(match op {
            ScanOp::Sum | ScanOp::Max => scan_lines(x, &lay, n, len, false, |acc, v| acc || v, |a| a),
            ScanOp::Prod | ScanOp::Min => scan_lines(x, &lay, n, len, true, |acc, v| acc && v, |a| a),
        }),
    };
    if axis == rank - 1 {
        return Ok(lines);
    }
    let permuted_strides = contiguous_strides(&pv.shape);
    let mut strides = vec![0isize; rank];
    for (k, &p) in perm.iter().enumerate() {
        strides[p] = permuted_strides[k];
    }
    Ok(super::gather(
        &lines,
        &View {
            shape: va.shape.clone(),
            strides: strides.into(),
            offset: 0,
        },
    ))
}

fn num_scan<T: Num>(op: ScanOp, x: &[T], lay: &Layout, n: usize, len: usize) -> HostData {
    let zero = <T::Acc as Num>::ZERO;
    let one = <T::Acc as Num>::ONE;
    T::wrap(match op {
        ScanOp::Sum => scan_lines(x, lay, n, len, zero, |acc, v| acc.add(v.to_acc()), T::from_acc),
        ScanOp::Prod => scan_lines(x, lay, n, len, one, |acc, v| acc.mul(v.to_acc()), T::from_acc),
        ScanOp::Min => scan_lines(
            x,
            lay,
            n,
            len,
            None,
            |acc: Option<T>, v| Some(acc.map_or(v, |a| a.minimum(v))),
            |a| a.unwrap_or(T::ZERO),
        ),
        ScanOp::Max => scan_lines(
            x,
            lay,
            n,
            len,
            None,
            |acc: Option<T>, v| Some(acc.map_or(v, |a| a.maximum(v))),
            |a| a.unwrap_or(T::ZERO),
        ),
    })
}

/// Scans each line of `len` elements (the layout's row-major order) independently.
fn scan_lines<T: Elem, A: Copy + Send + Sync>(
    x: &[T],
    lay: &Layout,
    n: usize,
    len: usize,
    init: A,
    step: impl Fn(A, T) -> A + Sync + Send,
    out: impl Fn(A) -> T + Sync + Send,
) -> Vec<T> {
    if n == 0 {
        return Vec::new();
    }
    let per_chunk = (CHUNK / len).max(1) * len;
    fill(n, per_chunk, n >= PAR_THRESHOLD, |start, chunk| {
        let xs = lay.load(x, start, chunk.len());
        for (line, src) in chunk.chunks_mut(len).zip(xs.chunks(len)) {
            let mut acc = init;
            for (o, &v) in line.iter_mut().zip(src) {
                acc = step(acc, v);
                *o = out(acc);
            }
        }
    })
}

/// Ragged segmented reduction: output k reduces the values (a 1-D view)
/// between offsets[k] and offsets[k + 1]; an empty segment gives the identity.
pub(super) fn segment(
    op: ReduceOp,
    (a, va): (&HostData, &View),
    (o, vo): (&HostData, &View),
) -> Result<HostData, Diagnostic> {
    let offs = match super::gather(o, vo) {
        HostData::I64(v) => v,
        other => return Err(internal(format!("segment offsets of dtype {}", other.dtype()))),
    };
    let total = va.size() as i64;
    let valid = va.rank() == 1
        && offs.first() == Some(&0)
        && offs.last() == Some(&total)
        && offs.windows(2).all(|w| w[0] <= w[1]);
    if !valid {
        return Err(internal("segment offsets do not cover the values in order"));
    }
    let lay = Layout::of(va);
    Ok(match a {
        crate::storage_only_data!() => {
            return Err(internal(
                "storage-only dtypes are computed wide (kernels::eval_storage)",
            ));
        }
        HostData::F32(x) => num_segment(op, x, &lay, &offs)?,
        HostData::F64(x) => num_segment(op, x, &lay, &offs)?,
        HostData::I32(x) => num_segment(op, x, &lay, &offs)?,
        HostData::I64(x) => num_segment(op, x, &lay, &offs)?,
        HostData::Bool(x) => HostData::Bool(match op {
            ReduceOp::Sum | ReduceOp::Max | ReduceOp::Any => seg_fold(x, &lay, &offs, false, |acc, v| acc || v, |a| a),
            ReduceOp::Prod | ReduceOp::Min | ReduceOp::All => seg_fold(x, &lay, &offs, true, |acc, v| acc && v, |a| a),
            ReduceOp::ArgMin | ReduceOp::ArgMax => return Err(internal("segmented argmin/argmax")),
        }),
    })
}

fn num_segment<T: Num>(op: ReduceOp, x: &[T], lay: &Layout, offs: &[i64]) -> Result<HostData, Diagnostic> {
    let zero = <T::Acc as Num>::ZERO;
    let one = <T::Acc as Num>::ONE;
    // the identities of min and max: +-inf for floats, saturating to the integer limits
    let (top, bottom) = (
        T::from_val(Val::F(f64::INFINITY)),
        T::from_val(Val::F(f64::NEG_INFINITY)),
    );
    Ok(match op {
        ReduceOp::Sum => T::wrap(seg_fold(x, lay, offs, zero, |acc, v| acc.add(v.to_acc()), T::from_acc)),
        ReduceOp::Prod => T::wrap(seg_fold(x, lay, offs, one, |acc, v| acc.mul(v.to_acc()), T::from_acc)),
        ReduceOp::Min => T::wrap(seg_fold(
            x,
            lay,
            offs,
            None,
            |acc: Option<T>, v| Some(acc.map_or(v, |a| a.minimum(v))),
            |a| a.unwrap_or(top),
        )),
        ReduceOp::Max => T::wrap(seg_fold(
            x,
            lay,
            offs,
            None,
            |acc: Option<T>, v| Some(acc.map_or(v, |a| a.maximum(v))),
            |a| a.unwrap_or(bottom),
        )),
        ReduceOp::Any => HostData::Bool(seg_fold(x, lay, offs, false, |acc, v| acc || v != T::ZERO, |a| a)),
        ReduceOp::All => HostData::Bool(seg_fold(x, lay, offs, true, |acc, v| acc && v != T::ZERO, |a| a)),
        ReduceOp::ArgMin | ReduceOp::ArgMax => return Err(internal("segmented argmin/argmax")),
    })
}

/// Folds each segment in order; segments are spread over threads in chunks
/// of about `CHUNK` values, so results never depend on the thread count.
fn seg_fold<T: Elem, A: Copy + Send + Sync, O: Elem>(
    x: &[T],
    lay: &Layout,
    offs: &[i64],
    init: A,
    step: impl Fn(A, T) -> A + Sync + Send,
    finish: impl Fn(A) -> O + Sync + Send,
) -> Vec<O> {
    let n = offs.len().saturating_sub(1);
    let total = offs.last().copied().unwrap_or(0) as usize;
    let per_chunk = (CHUNK / (total / n.max(1)).max(1)).max(1);
    fill(n, per_chunk, total >= PAR_THRESHOLD && n > 1, |start, out| {
        for (k, o) in out.iter_mut().enumerate() {
            let (lo, hi) = (offs[start + k] as usize, offs[start + k + 1] as usize);
            let xs = lay.load(x, lo, hi - lo);
            let mut acc = init;
            for &v in xs.iter() {
                acc = step(acc, v);
            }
            *o = finish(acc);
        }
    })
}
