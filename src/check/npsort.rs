//! Static checks and result types of the indexing, sorting, searching and
//! counting builtins (`interp::npfuncs`) and of advanced indices (`a[mask]`,
//! `a[[1, 4]]`): what does not depend on the data (dtypes of masks, indices
//! and counted values, axes, ranks, constant quantiles) is reported before
//! the program runs, with the same codes the run gives.

use super::checker::Ty;
use super::dtype::DType;
use super::shape::{self, Dim};
use crate::diag::Diagnostic;
use crate::syntax::ast::Span;

/// The builtins whose checks live here (and whose run-time behaviour is `interp::npfuncs`).
pub const NAMES: &[&str] = &[
    "sort",
    "argsort",
    "partition",
    "argpartition",
    "unique",
    "unique_counts",
    "searchsorted",
    "interp",
    "median",
    "percentile",
    "quantile",
    "bincount",
    "histogram",
    "histogram_bin_edges",
    "nonzero",
    "flatnonzero",
    "argwhere",
    "count_nonzero",
    "take",
    "unravel_index",
];

type Slots<'a> = &'a [Option<(Ty, Span)>];

fn arg<'a>(slots: Slots<'a>, k: usize) -> Option<&'a (Ty, Span)> {
    slots.get(k).and_then(|s| s.as_ref())
}

fn value_of(t: &Ty) -> Option<f64> {
    match t {
        Ty::Array { value, .. } => *value,
        _ => None,
    }
}

fn array_parts(t: &Ty) -> Option<(Option<DType>, Option<&Vec<Dim>>)> {
    match t {
        Ty::Array { dtype, shape, .. } => Some((*dtype, shape.as_ref())),
        _ => None,
    }
}

fn array(dtype: Option<DType>, shape: Option<Vec<Dim>>) -> Ty {
    Ty::Array {
        dtype,
        shape,
        weak: false,
        value: None,
    }
}

/// A constant axis argument checked against a known rank; `Ok(None)` when
/// absent, `none`, or not known.
fn axis(slots: Slots, k: usize, rank: Option<usize>) -> Result<Option<usize>, Diagnostic> {
    let (Some((t, span)), Some(rank)) = (arg(slots, k), rank) else {
        return Ok(None);
    };
    match value_of(t) {
        Some(v) => shape::normalize_axis(v as i64, rank, span).map(Some),
        None => Ok(None),
    }
}

/// The result of one of these builtins, or the first error found.
pub fn builtin_result(name: &str, slots: Slots, span: &Span) -> Result<Ty, Diagnostic> {
    let Some((x, x_span)) = arg(slots, 0) else {
        return Ok(Ty::Unknown);
    };
    let indices_at = if name == "unravel_index" { 0 } else { 1 };
    if matches!(name, "take" | "unravel_index")
        && let Some((idx, is)) = arg(slots, indices_at)
        && let Some((Some(dt), idx_shape)) = array_parts(idx)
        && !dt.is_int()
        && !idx_shape.is_some_and(|s| s.contains(&Some(0)))
    {
        return Err(
            Diagnostic::new("E0300", format!("indices must be integers, not {dt}"), is.clone())
                .with_hint("cast with `indices as i64`"),
        );
    }
    let (dtype, shape) = array_parts(x).unwrap_or((None, None));
    let rank = shape.map(|s| s.len());
    let size: Option<usize> = shape.and_then(|s| s.iter().copied().product::<Option<usize>>());
    let not_bool = |what: &str| -> Result<(), Diagnostic> {
        if dtype == Some(DType::Bool) {
            return Err(
                Diagnostic::new("E0300", format!("`{what}` of bools is not defined"), x_span.clone())
                    .with_hint("cast first: `x as f32`"),
            );
        }
        Ok(())
    };
    match name {
        "sort" | "argsort" => {
            let out_dt = if name == "sort" { dtype } else { Some(DType::I64) };
            if matches!(arg(slots, 1), Some((Ty::None, _))) {
                return Ok(array(out_dt, Some(vec![size])));
            }
            let default_axis = rank.map(|r| shape::normalize_axis(-1, r, x_span)).transpose()?;
            let _ = axis(slots, 1, rank)?.or(default_axis);
            Ok(array(out_dt, shape.cloned()))
        }
        "partition" | "argpartition" => {
            let out_dt = if name == "partition" { dtype } else { Some(DType::I64) };
            if let Some((kth, ks)) = arg(slots, 1)
                && let Some((kdt, kshape)) = array_parts(kth)
            {
                if let Some(dt) = kdt {
                    kth_dtype(dt, ks)?;
                }
                if let Some(s) = kshape {
                    kth_rank(s.len(), ks)?;
                }
            }
            if matches!(arg(slots, 2), Some((Ty::None, _))) {
                return Ok(array(out_dt, Some(vec![size])));
            }
            let default_axis = rank.map(|r| shape::normalize_axis(-1, r, x_span)).transpose()?;
            let _ = axis(slots, 2, rank)?.or(default_axis);
            Ok(array(out_dt, shape.cloned()))
        }
        "take" => {
            axis(slots, 2, rank)?;
            Ok(array(dtype, None))
        }
        "bincount" => {
            if let Some(dt) = dtype
                && dt.is_float()
            {
                return Err(Diagnostic::new(
                    "E0300",
                    format!("`x` of bincount must be integers, not {dt}"),
                    x_span.clone(),
                )
                .with_hint("cast with `x as i64`"));
            }
            if let Some(r) = rank
                && r != 1
            {
                return Err(Diagnostic::new(
                    "E0212",
                    format!("`bincount` needs a 1-D `x`, not one of rank {r}"),
                    x_span.clone(),
                ));
            }
            // weights of another length than `x`, where both are known (the run's rule)
            let known = |s: Option<&Vec<Dim>>| s.and_then(|s| s.iter().copied().collect::<Option<Vec<usize>>>());
            if let (Some(xs), Some((w, ws))) = (known(shape), arg(slots, 1))
                && let Some(wsh) = array_parts(w).and_then(|(_, s)| known(s))
            {
                check_weights(&xs, &wsh, "x", ws)?;
            }
            let dt = if arg(slots, 1).is_some() {
                DType::F64
            } else {
                DType::I64
            };
            Ok(array(Some(dt), Some(vec![None])))
        }
        "interp" => {
            let xp = arg(slots, 1).and_then(|(t, s)| Some((array_parts(t)?, s)));
            let fp = arg(slots, 2).and_then(|(t, s)| Some((array_parts(t)?, s)));
            for (what, part) in [("xp", xp), ("fp", fp)] {
                if let Some(((_, Some(sh)), sp)) = part
                    && sh.len() != 1
                {
                    return Err(Diagnostic::new(
                        "E0212",
                        format!("`interp` needs a 1-D `{what}`, not one of rank {}", sh.len()),
                        sp.clone(),
                    ));
                }
            }
            if let (Some(((_, Some(a)), _)), Some(((_, Some(b)), bs))) = (xp, fp)
                && let (Some(Some(n)), Some(Some(m))) = (a.first(), b.first())
                && n != m
            {
                return Err(Diagnostic::new(
                    "E0212",
                    format!("`xp` has {n} points but `fp` has {m} values"),
                    bs.clone(),
                ));
            }
            Ok(array(None, shape.cloned()))
        }
        "searchsorted" => {
            if let Some(r) = rank
                && r != 1
            {
                return Err(Diagnostic::new(
                    "E0212",
                    format!("`searchsorted` needs a 1-D `a`, not one of rank {r}"),
                    x_span.clone(),
                ));
            }
            let v_shape = arg(slots, 1)
                .and_then(|(t, _)| array_parts(t))
                .and_then(|(_, s)| s.cloned());
            Ok(array(Some(DType::I64), v_shape))
        }
        "median" | "percentile" | "quantile" => {
            not_bool(name)?;
            let axis_k = if name == "median" { 1 } else { 2 };
            if let Some((Ty::Array { .. }, _)) = arg(slots, axis_k) {
                axis(slots, axis_k, rank)?;
            }
            if name != "median"
                && let Some((q, qs)) = arg(slots, 1)
                && let Some(v) = value_of(q)
            {
                quantile_fractions(name, &[v], qs)?;
            }
            let picks = matches!(arg(slots, 4), Some((Ty::Str(Some(m)), _)) if quantile_picks(m));
            Ok(array(if picks { dtype } else { dtype.map(|d| d.to_float()) }, None))
        }
        "histogram" | "histogram_bin_edges" => {
            not_bool(name)?;
            match arg(slots, 1) {
                Some((Ty::Array { shape: Some(s), .. }, bs)) if s.len() > 1 => return Err(histogram_bins_rank(bs)),
                Some((
                    t @ Ty::Array {
                        shape: Some(s),
                        dtype: Some(d),
                        ..
                    },
                    bs,
                )) if s.is_empty() && d.is_int() => {
                    if let Some(n) = value_of(t) {
                        histogram_bins(n as i64, bs)?;
                    }
                }
                _ => {}
            }
            if let Some((Ty::Tuple(items), rs)) = arg(slots, 2)
                && let [lo, hi] = &items[..]
                && let (Some(lo), Some(hi)) = (value_of(lo), value_of(hi))
            {
                histogram_range(lo, hi, rs)?;
            }
            Ok(Ty::Unknown)
        }
        "count_nonzero" => {
            if let Some((Ty::Array { .. }, _)) = arg(slots, 1) {
                axis(slots, 1, rank)?;
            }
            Ok(array(Some(DType::I64), None))
        }
        "nonzero" => match rank {
            Some(0) => Err(Diagnostic::new(
                "E0212",
                "`nonzero` of a 0-d array is not defined (NumPy raises too)",
                x_span.clone(),
            )),
            Some(r) => Ok(Ty::Tuple(vec![array(Some(DType::I64), Some(vec![None])); r])),
            None => Ok(Ty::Unknown),
        },
        "flatnonzero" => Ok(array(Some(DType::I64), Some(vec![None]))),
        "argwhere" => Ok(array(Some(DType::I64), Some(vec![None, rank]))),
        _ => {
            let _ = span;
            Ok(Ty::Unknown)
        }
    }
}

/// The names `percentile`'s and `quantile`'s `method=` takes, in NumPy's order
/// (`kernels::sort::QuantileMethod::named`).
pub const QUANTILE_METHODS: &[&str] = &[
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "linear",
    "median_unbiased",
    "normal_unbiased",
    "lower",
    "higher",
    "midpoint",
    "nearest",
];

/// Whether `method` picks one of the values rather than interpolating
/// between two: the result then keeps the input's dtype, as NumPy's does.
pub fn quantile_picks(method: &str) -> bool {
    matches!(
        method,
        "lower" | "higher" | "nearest" | "inverted_cdf" | "closest_observation"
    )
}

/// `percentile`'s or `quantile`'s `q`, as given, as fractions of the data:
/// E0413 for one outside [0, 100] or [0, 1] (compared as `q / 100`, as NumPy
/// does). The run asks here with the values it reads, the checker with
/// constant ones.
pub fn quantile_fractions(name: &str, qs: &[f64], span: &Span) -> Result<Vec<f64>, Diagnostic> {
    let (scale, hi) = if name == "percentile" { (100.0, 100) } else { (1.0, 1) };
    let mut out = Vec::with_capacity(qs.len());
    for &q in qs {
        let f = q / scale;
        if !(0.0..=1.0).contains(&f) {
            return Err(Diagnostic::new(
                "E0413",
                format!("`q` must lie in [0, {hi}], found {q}"),
                span.clone(),
            ));
        }
        out.push(f);
    }
    Ok(out)
}

/// E0300 unless `partition`'s or `argpartition`'s `kth` holds integers
/// (NumPy refuses floats and bools alike).
pub fn kth_dtype(dt: DType, span: &Span) -> Result<(), Diagnostic> {
    if dt.is_int() {
        return Ok(());
    }
    Err(
        Diagnostic::new("E0300", format!("`kth` must be integers, not {dt}"), span.clone())
            .with_hint("cast with `kth as i64`"),
    )
}

/// E0212 unless `kth` is one integer or a 1-D list of them.
pub fn kth_rank(rank: usize, span: &Span) -> Result<(), Diagnostic> {
    if rank <= 1 {
        return Ok(());
    }
    Err(Diagnostic::new(
        "E0212",
        format!("`kth` must be an integer or a 1-D list of integers, not an array of {rank} axes"),
        span.clone(),
    ))
}

/// `partition`'s `kth` along an axis of `n` elements as positions,
/// ascending and without repeats: a negative one counts from the end, and
/// one outside `-n..n` is E0204 (NumPy's "kth out of bounds"). The run asks
/// here with the values it reads, the checker with constant ones. (NumPy
/// does not look at `kth` when the array is empty; neither do the callers.)
pub fn kth_positions(kth: &[i64], n: usize, span: &Span) -> Result<Vec<usize>, Diagnostic> {
    let len = n as i64;
    let mut out = Vec::with_capacity(kth.len());
    for &k in kth {
        let at = if k < 0 { k + len } else { k };
        if at < 0 || at >= len {
            return Err(Diagnostic::new(
                "E0204",
                format!("`kth` {k} is out of range for an axis of size {n}"),
                span.clone(),
            )
            .with_hint(if n == 0 {
                "the axis has no elements".to_string()
            } else {
                format!("valid values are {} to {}", -len, len - 1)
            }));
        }
        out.push(at as usize);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// `histogram`'s count of equal bins: E0413 below one. The run asks here
/// with the count it reads, the checker with a constant one.
pub fn histogram_bins(n: i64, span: &Span) -> Result<(), Diagnostic> {
    if n < 1 {
        return Err(Diagnostic::new(
            "E0413",
            format!("`bins` must be at least 1, not {n}"),
            span.clone(),
        ));
    }
    Ok(())
}

/// E0212: `histogram`'s `bins` an array of more than one axis.
pub fn histogram_bins_rank(span: &Span) -> Diagnostic {
    Diagnostic::new(
        "E0212",
        "`bins` must be an integer or a 1-D array of edges",
        span.clone(),
    )
}

/// `histogram`'s `range=(lo, hi)`: E0413 unless finite with lo <= hi.
pub fn histogram_range(lo: f64, hi: f64, span: &Span) -> Result<(f64, f64), Diagnostic> {
    if !lo.is_finite() || !hi.is_finite() || lo > hi {
        return Err(Diagnostic::new(
            "E0413",
            format!("`range` must be finite with start <= end, not ({lo}, {hi})"),
            span.clone(),
        ));
    }
    Ok((lo, hi))
}

/// One item of an index, as the checker sees it.
pub enum IndexTy {
    /// A slice: consumes one axis.
    Slice,
    /// `newaxis`, `none`, `None`: consumes none.
    NewAxis,
    /// `...`: the axes after it are no longer known.
    Ellipsis,
    /// An expression: an integer, an index array or a mask.
    Expr(Ty),
}

/// Checks the advanced items of `base[items]`: an index array must be
/// integers (or bools, a mask), and a mask's shape must match the axes it
/// indexes where both are known.
pub fn check_index(base: &Ty, items: &[(IndexTy, Span)]) -> Option<Diagnostic> {
    let base_shape = array_parts(base).and_then(|(_, s)| s.cloned());
    let mut axis = Some(0usize);
    // the shapes the index arrays (a mask as its unknown count of positions) broadcast to together
    let mut advanced: Vec<(Option<DType>, Vec<Dim>, Span)> = Vec::new();
    for (item, span) in items {
        let t = match item {
            IndexTy::Slice => {
                axis = axis.map(|a| a + 1);
                continue;
            }
            IndexTy::NewAxis => continue,
            IndexTy::Ellipsis => {
                axis = None;
                continue;
            }
            IndexTy::Expr(t) => t,
        };
        let Some((dt, shape)) = array_parts(t) else {
            axis = None;
            continue;
        };
        match (dt, shape) {
            (Some(DType::Bool), _) => advanced.push((dt, vec![None], span.clone())),
            (dt, Some(s)) if !s.is_empty() => advanced.push((dt, s.clone(), span.clone())),
            _ => {}
        }
        match (dt, shape) {
            // `a[1.0]`: the run's `static_int_named` refuses a float scalar the same way
            (Some(dt), Some(s)) if dt.is_float() && s.is_empty() => {
                return Some(super::shape::not_an_integer("an index", dt, span));
            }
            (Some(dt), Some(s)) if dt.is_float() && !s.is_empty() => {
                return Some(
                    Diagnostic::new("E0300", format!("arrays of {dt} cannot index"), span.clone())
                        .with_hint("index with integers, or with a boolean mask (`a[a > 0]`)"),
                );
            }
            (Some(DType::Bool), Some(ms)) => {
                if let (Some(at), Some(bs)) = (axis, &base_shape)
                    && at + ms.len() <= bs.len()
                {
                    let want = &bs[at..at + ms.len()];
                    let differs = want
                        .iter()
                        .zip(ms)
                        .any(|(a, b)| matches!((a, b), (Some(x), Some(y)) if x != y));
                    if differs {
                        return Some(
                            Diagnostic::new("E0212", "a boolean mask does not match the indexed axes", span.clone())
                                .with_hint("a mask has the shape of the array or of its leading axes"),
                        );
                    }
                }
                axis = axis.map(|a| a + ms.len());
            }
            (Some(DType::Bool), None) => axis = None,
            _ => axis = axis.map(|a| a + 1),
        }
    }
    let whole = items
        .first()
        .zip(items.last())
        .map(|(a, b)| a.1.start..b.1.end)
        .unwrap_or_default();
    index_arrays_broadcast(&advanced, &whole).err()
}

/// The shape several index arrays of one subscript broadcast to (NumPy takes
/// them together), or E0200 naming the two that do not: shared by `arr check`
/// and the run, which passes the concrete shapes (a mask's count of positions).
pub fn index_arrays_broadcast(arrays: &[(Option<DType>, Vec<Dim>, Span)], span: &Span) -> Result<Vec<Dim>, Diagnostic> {
    let operands: Vec<shape::Operand> = arrays
        .iter()
        .map(|(dtype, shape, span)| shape::Operand {
            dtype: *dtype,
            shape,
            span: Some(span.clone()),
        })
        .collect();
    shape::broadcast(&operands, "an index", span)
}

/// `weights` of the shape of the values they weigh (`of`: their parameter's
/// name), as `bincount` and `histogram` need (E0212).
pub fn check_weights(x: &[usize], w: &[usize], of: &str, span: &Span) -> Result<(), Diagnostic> {
    if x == w {
        return Ok(());
    }
    Err(Diagnostic::new(
        "E0212",
        format!("`weights` must have the shape of `{of}`: {x:?}, not {w:?}"),
        span.clone(),
    ))
}
