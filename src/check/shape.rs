//! Shape rules shared by the static checker and the graph builder, so that a
//! mistake gets the same diagnostic whether it is found before running or
//! while building the graph. A dimension is `None` when only the static
//! checker is asking and the size is not known yet.

use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::syntax::ast::Span;

pub type Dim = Option<usize>;

/// Known dims as `Dim`s.
pub fn dims(shape: &[usize]) -> Vec<Dim> {
    shape.iter().map(|&d| Some(d)).collect()
}

/// `f32[3, 4]`, with `?` for unknown sizes.
pub fn describe(dtype: Option<DType>, shape: &[Dim]) -> String {
    let dt = dtype.map(|d| d.name()).unwrap_or("?");
    let inner: Vec<String> = shape
        .iter()
        .map(|d| d.map(|v| v.to_string()).unwrap_or_else(|| "?".into()))
        .collect();
    format!("{dt}[{}]", inner.join(", "))
}

/// One operand of a broadcast: its type, and where it was written.
pub struct Operand<'a> {
    pub dtype: Option<DType>,
    pub shape: &'a [Dim],
    pub span: Option<Span>,
}

/// NumPy broadcasting of several operands: trailing axes align, a size 1
/// stretches. The error names the operands, their shapes and the axis.
pub fn broadcast(operands: &[Operand], what: &str, span: &Span) -> Result<Vec<Dim>, Diagnostic> {
    let rank = operands.iter().map(|o| o.shape.len()).max().unwrap_or(0);
    let mut out: Vec<Dim> = vec![Some(1); rank];
    // which operand fixed each output axis, for the error message
    let mut fixed_by: Vec<Option<usize>> = vec![None; rank];
    for (k, op) in operands.iter().enumerate() {
        let extra = rank - op.shape.len();
        for (j, &d) in op.shape.iter().enumerate() {
            let axis = extra + j;
            match (out[axis], d) {
                (_, Some(1)) => {}
                (Some(1), d) => {
                    out[axis] = d;
                    fixed_by[axis] = Some(k);
                }
                (None, Some(v)) => {
                    out[axis] = Some(v);
                    fixed_by[axis] = Some(k);
                }
                (_, None) => {}
                (Some(a), Some(b)) if a == b => {}
                (Some(a), Some(b)) => {
                    let other = fixed_by[axis].unwrap_or(0);
                    return Err(broadcast_error(operands, other, k, axis, rank, a, b, what, span));
                }
            }
        }
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn broadcast_error(
    operands: &[Operand],
    first: usize,
    second: usize,
    axis: usize,
    rank: usize,
    a: usize,
    b: usize,
    what: &str,
    span: &Span,
) -> Diagnostic {
    let (x, y) = (&operands[first], &operands[second]);
    let (dx, dy) = (describe(x.dtype, x.shape), describe(y.dtype, y.shape));
    let from_end = rank - axis;
    let mut diag = Diagnostic::new(
        "E0200",
        format!("shapes {dx} and {dy} do not broadcast in {what}"),
        span.clone(),
    )
    .with_hint(format!(
        "axis -{from_end} (counting from the end) has size {a} in one operand and {b} in the other; \
             sizes must be equal or 1. Add an axis with `[:, newaxis]` or reshape to align them"
    ));
    match (&x.span, &y.span) {
        (Some(sx), Some(sy)) => {
            diag = diag
                .with_label(sx.clone(), format!("this is {dx}"))
                .with_label(sy.clone(), format!("this is {dy}"))
                .with_primary_label("");
        }
        _ => diag = diag.with_primary_label(format!("{dx} vs {dy}")),
    }
    diag
}

/// The most elements one array may have: far beyond any memory, small enough
/// that sizes, strides and byte counts never overflow.
pub const MAX_ELEMENTS: u128 = 1 << 48;

/// A lower cap than `MAX_ELEMENTS` set by `Session::set_element_limit`
/// (process-wide): a fuzzer or a sandbox bounds the memory a program may take.
static ELEMENT_LIMIT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(MAX_ELEMENTS as u64);

/// The most elements one array may have now (`MAX_ELEMENTS` unless lowered).
pub fn max_elements() -> u128 {
    ELEMENT_LIMIT.load(std::sync::atomic::Ordering::Relaxed) as u128
}

/// Sets the cap `max_elements` returns (at most `MAX_ELEMENTS`).
pub fn set_max_elements(n: u64) {
    ELEMENT_LIMIT.store(n.min(MAX_ELEMENTS as u64), std::sync::atomic::Ordering::Relaxed);
}

/// E0403 for shapes whose element count no machine could hold.
pub fn check_size(shape: &[usize], span: &Span) -> Result<(), Diagnostic> {
    let n = shape.iter().fold(1u128, |acc, &d| acc.saturating_mul(d as u128));
    if n > max_elements() {
        return Err(Diagnostic::new(
            "E0403",
            format!("an array of shape {shape:?} would have {n} elements"),
            span.clone(),
        )
        .with_hint("that is more memory than any machine has; work on smaller pieces"));
    }
    Ok(())
}

/// Turns a possibly negative axis into an index; E0201 when out of range.
pub fn normalize_axis(axis: i64, rank: usize, span: &Span) -> Result<usize, Diagnostic> {
    let r = rank as i64;
    if axis >= -r && axis < r {
        Ok(if axis < 0 { (axis + r) as usize } else { axis as usize })
    } else {
        let valid = if rank == 0 {
            "a rank-0 array has no axes".to_string()
        } else {
            format!("valid axes are {} to {}", -r, r - 1)
        };
        Err(Diagnostic::new(
            "E0201",
            format!("axis {axis} is out of range for an array of rank {rank}"),
            span.clone(),
        )
        .with_hint(valid))
    }
}

/// Normalises a list of axes, sorted, rejecting repeats.
pub fn normalize_axes(axes: &[i64], rank: usize, span: &Span) -> Result<Vec<usize>, Diagnostic> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = normalize_axis(a, rank, span)?;
        if out.contains(&n) {
            return Err(Diagnostic::new("E0201", format!("axis {a} is repeated"), span.clone()));
        }
        out.push(n);
    }
    out.sort_unstable();
    Ok(out)
}

/// Shape after reducing `axes` (sorted).
pub fn reduce_shape(shape: &[Dim], axes: &[usize], keepdims: bool) -> Vec<Dim> {
    shape
        .iter()
        .enumerate()
        .filter_map(|(k, &d)| {
            if axes.contains(&k) {
                if keepdims { Some(Some(1)) } else { None }
            } else {
                Some(d)
            }
        })
        .collect()
}

/// Matrix product shapes, NumPy `matmul` rules (1-D operands are promoted and
/// the added axis removed; leading axes broadcast).
pub fn matmul_shape(a: &Operand, b: &Operand, span: &Span) -> Result<Vec<Dim>, Diagnostic> {
    let (ra, rb) = (a.shape.len(), b.shape.len());
    if ra == 0 || rb == 0 {
        let which = if ra == 0 { a } else { b };
        let mut d = Diagnostic::new("E0202", "matrix product needs arrays of rank 1 or more", span.clone())
            .with_hint("use `*` to multiply by a scalar");
        if let Some(s) = &which.span {
            d = d.with_label(s.clone(), "this is a scalar");
        }
        return Err(d);
    }
    let a2: Vec<Dim> = if ra == 1 {
        vec![Some(1), a.shape[0]]
    } else {
        a.shape.to_vec()
    };
    let b2: Vec<Dim> = if rb == 1 {
        vec![b.shape[0], Some(1)]
    } else {
        b.shape.to_vec()
    };
    let (k1, k2) = (a2[a2.len() - 1], b2[b2.len() - 2]);
    if let (Some(x), Some(y)) = (k1, k2)
        && x != y
    {
        let (da, db) = (describe(a.dtype, a.shape), describe(b.dtype, b.shape));
        let mut d = Diagnostic::new(
            "E0202",
            format!("matrix product of {da} and {db}: inner sizes {x} and {y} differ"),
            span.clone(),
        )
        .with_hint(
            "the last axis of the left operand must match the second-to-last of the right one; transpose one of them?",
        );
        if let (Some(sa), Some(sb)) = (&a.span, &b.span) {
            d = d
                .with_label(sa.clone(), format!("this is {da}"))
                .with_label(sb.clone(), format!("this is {db}"));
        }
        return Err(d);
    }
    let batch_a = &a2[..a2.len() - 2];
    let batch_b = &b2[..b2.len() - 2];
    let batch = broadcast(
        &[
            Operand {
                dtype: a.dtype,
                shape: batch_a,
                span: a.span.clone(),
            },
            Operand {
                dtype: b.dtype,
                shape: batch_b,
                span: b.span.clone(),
            },
        ],
        "matrix product's batch axes",
        span,
    )?;
    let mut out = batch;
    if ra > 1 {
        out.push(a2[a2.len() - 2]);
    }
    if rb > 1 {
        out.push(b2[b2.len() - 1]);
    }
    Ok(out)
}

/// Resolves a reshape target (one `-1` allowed) against the number of elements.
pub fn reshape_target(from: &[Dim], to: &[i64], span: &Span) -> Result<Vec<Dim>, Diagnostic> {
    let known: Option<usize> = from.iter().copied().product::<Option<usize>>();
    let holes = to.iter().filter(|&&d| d == -1).count();
    if holes > 1 || to.iter().any(|&d| d < -1) {
        return Err(Diagnostic::new(
            "E0210",
            "a reshape target may contain one -1 and no other negative size",
            span.clone(),
        ));
    }
    let fixed: usize = to.iter().filter(|&&d| d >= 0).map(|&d| d as usize).product();
    let mut out: Vec<Dim> = to
        .iter()
        .map(|&d| if d >= 0 { Some(d as usize) } else { None })
        .collect();
    let Some(total) = known else { return Ok(out) };
    let mismatch = || {
        Diagnostic::new(
            "E0203",
            format!("cannot reshape {} elements into shape {:?}", total, to),
            span.clone(),
        )
        .with_hint(format!(
            "the source shape is [{}]",
            from.iter()
                .map(|d| d.map_or("?".to_string(), |v| v.to_string()))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    };
    if holes == 1 {
        if fixed == 0 || total % fixed != 0 {
            return Err(mismatch());
        }
        for d in out.iter_mut() {
            if d.is_none() {
                *d = Some(total / fixed);
            }
        }
    } else if fixed != total {
        return Err(mismatch());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(shape: &[usize]) -> (Vec<Dim>, DType) {
        (dims(shape), DType::F32)
    }

    #[test]
    fn broadcasting_aligns_trailing_axes() {
        let (a, _) = op(&[3, 1, 5]);
        let (b, _) = op(&[4, 5]);
        let out = broadcast(
            &[
                Operand {
                    dtype: None,
                    shape: &a,
                    span: None,
                },
                Operand {
                    dtype: None,
                    shape: &b,
                    span: None,
                },
            ],
            "addition",
            &(0..1),
        )
        .unwrap();
        assert_eq!(out, dims(&[3, 4, 5]));
    }

    #[test]
    fn broadcast_error_names_axis() {
        let (a, _) = op(&[3, 4]);
        let (b, _) = op(&[5]);
        let err = broadcast(
            &[
                Operand {
                    dtype: Some(DType::F32),
                    shape: &a,
                    span: Some(0..1),
                },
                Operand {
                    dtype: Some(DType::F32),
                    shape: &b,
                    span: Some(4..5),
                },
            ],
            "addition",
            &(0..5),
        )
        .unwrap_err();
        assert_eq!(err.code, "E0200");
        assert!(
            err.message.contains("f32[3, 4]") && err.message.contains("f32[5]"),
            "{}",
            err.message
        );
        assert!(err.hint.unwrap().contains("axis -1"));
    }

    #[test]
    fn unknown_dims_are_not_errors() {
        let a = vec![None, Some(4)];
        let b = dims(&[7, 4]);
        let out = broadcast(
            &[
                Operand {
                    dtype: None,
                    shape: &a,
                    span: None,
                },
                Operand {
                    dtype: None,
                    shape: &b,
                    span: None,
                },
            ],
            "x",
            &(0..1),
        )
        .unwrap();
        assert_eq!(out, vec![Some(7), Some(4)]);
    }

    #[test]
    fn matmul_shapes() {
        let a = dims(&[2, 3]);
        let b = dims(&[3]);
        let out = matmul_shape(
            &Operand {
                dtype: None,
                shape: &a,
                span: None,
            },
            &Operand {
                dtype: None,
                shape: &b,
                span: None,
            },
            &(0..1),
        )
        .unwrap();
        assert_eq!(out, dims(&[2]));
        let c = dims(&[4, 5]);
        let err = matmul_shape(
            &Operand {
                dtype: None,
                shape: &a,
                span: None,
            },
            &Operand {
                dtype: None,
                shape: &c,
                span: None,
            },
            &(0..1),
        )
        .unwrap_err();
        assert_eq!(err.code, "E0202");
    }

    #[test]
    fn reshape_with_hole() {
        assert_eq!(
            reshape_target(&dims(&[4, 6]), &[-1, 3], &(0..1)).unwrap(),
            dims(&[8, 3])
        );
        assert_eq!(
            reshape_target(&dims(&[4, 6]), &[5, 5], &(0..1)).unwrap_err().code,
            "E0203"
        );
    }

    #[test]
    fn axes_normalise() {
        assert_eq!(normalize_axis(-1, 3, &(0..1)).unwrap(), 2);
        assert_eq!(normalize_axis(3, 3, &(0..1)).unwrap_err().code, "E0201");
        assert_eq!(normalize_axes(&[-1, 0], 3, &(0..1)).unwrap(), vec![0, 2]);
    }
}
