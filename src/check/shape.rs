//! Shape rules shared by the static checker and the graph builder, so that a
//! mistake gets the same diagnostic whether it is found before running or
//! while building the graph. A dimension is `None` when only the static
//! checker is asking and the size is not known yet.

use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::syntax::ast::{Pattern, Span};

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

/// `broadcast` of shapes whose sizes are all known, without building
/// operands or diagnostics (the graph builder calls it for every operation);
/// `None` where `broadcast` would report an error.
pub fn broadcast_known<'s>(shapes: impl Iterator<Item = &'s [usize]> + Clone) -> Option<Vec<usize>> {
    let rank = shapes.clone().map(<[usize]>::len).max().unwrap_or(0);
    let mut out = vec![1usize; rank];
    for shape in shapes {
        for (o, &d) in out[rank - shape.len()..].iter_mut().zip(shape) {
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                return None;
            }
        }
    }
    Some(out)
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

/// The widest element (f64, i64) in bytes: the nominal size is checked at this width,
/// so that no dtype a shape may later be cast to can overflow a byte count.
const WIDEST_ELEMENT: u128 = 8;

/// The product of the non-zero sizes, saturating: NumPy's "nominal" size, which must
/// fit the address space even when a zero-length axis makes the array empty (its
/// strides are computed from it).
pub fn nominal_size(shape: &[usize]) -> u128 {
    shape
        .iter()
        .filter(|&&d| d != 0)
        .fold(1u128, |acc, &d| acc.saturating_mul(d as u128))
}

/// The element count, or `None` when it does not fit a `usize`.
pub fn checked_size(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

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

/// E0403 for shapes whose element count no machine could hold, and (as NumPy's
/// "array is too big") for shapes whose nominal size times the element width
/// overflows the address space even though a zero-length axis leaves them empty.
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
    let nominal = nominal_size(shape);
    if nominal.saturating_mul(WIDEST_ELEMENT) > isize::MAX as u128 {
        return Err(Diagnostic::new(
            "E0403",
            format!("an array of shape {shape:?} is too big: its sizes multiply past the address space"),
            span.clone(),
        )
        .with_hint(
            "even with a zero-length axis, the other sizes times 8 bytes must fit in 2^63 bytes \
             (NumPy refuses such shapes too: \"array is too big\")",
        ));
    }
    Ok(())
}

/// A bound or step of `arange`, as written: an integer or a float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RangeNum {
    Int(i64),
    Float(f64),
}

impl RangeNum {
    fn as_f64(self) -> f64 {
        match self {
            RangeNum::Int(i) => i as f64,
            RangeNum::Float(f) => f,
        }
    }
}

/// The elements of an `arange`: `start + i * step` for `i < len`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArangeRange {
    /// All of start, stop and step were integers: computed in integer arithmetic.
    Ints { start: i64, step: i64, len: usize },
    /// Some bound was a float: NumPy's float rule, whose step is the difference of
    /// the first two elements as rounded (`(start + step) - start`).
    Floats { start: f64, delta: f64, len: usize },
}

impl ArangeRange {
    pub fn len(&self) -> usize {
        match *self {
            ArangeRange::Ints { len, .. } | ArangeRange::Floats { len, .. } => len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether every element, the start and the step are integers f64 holds exactly
    /// (so a generator computing `start + i * step` in f64 is exact too).
    pub fn exact_in_f64(&self) -> bool {
        const EXACT: u128 = 1 << 53;
        match *self {
            ArangeRange::Ints { start, step, len } => {
                let last = start as i128 + (len.max(1) as i128 - 1) * step as i128;
                [start as i128, step as i128, last]
                    .iter()
                    .all(|v| v.unsigned_abs() <= EXACT)
            }
            ArangeRange::Floats { .. } => true,
        }
    }
}

/// A count too large for memory, as a message shows it: whole below 10^15, else
/// `about 1.0e301` rather than hundreds of digits.
fn element_count(n: f64) -> String {
    if n < 1e15 {
        format!("{n}")
    } else {
        format!("about {n:.1e}")
    }
}

/// The length and elements of `arange(start, stop, step)`, as NumPy computes them:
/// integer bounds in exact integer arithmetic (`ceil((stop - start) / step)`),
/// float bounds in f64 with NumPy's edge rules (an infinite step gives one element
/// when it points towards `stop`; a NaN length is an error). `step_span` is where
/// the step was written.
pub fn arange_range(
    start: RangeNum,
    stop: RangeNum,
    step: RangeNum,
    span: &Span,
    step_span: &Span,
) -> Result<ArangeRange, Diagnostic> {
    let zero_step = || Diagnostic::new("E0210", "arange's step cannot be zero", step_span.clone());
    let too_many = |n: String| {
        Diagnostic::new("E0403", format!("arange would make {n} elements"), span.clone())
            .with_hint("that is more memory than any machine has; work on smaller pieces")
    };
    if let (RangeNum::Int(a), RangeNum::Int(b), RangeNum::Int(d)) = (start, stop, step) {
        if d == 0 {
            return Err(zero_step());
        }
        let (a, b, d) = (a as i128, b as i128, d as i128);
        let span_len = if d > 0 { b - a } else { a - b };
        let len = if span_len > 0 {
            (span_len + d.abs() - 1) / d.abs()
        } else {
            0
        };
        if len as u128 > max_elements() {
            return Err(too_many(element_count(len as f64)));
        }
        return Ok(ArangeRange::Ints {
            start: a as i64,
            step: d as i64,
            len: len as usize,
        });
    }
    let (a, b, d) = (start.as_f64(), stop.as_f64(), step.as_f64());
    if d == 0.0 {
        return Err(zero_step());
    }
    let delta = b - a;
    let ratio = delta / d;
    let len = if ratio == 0.0 && delta != 0.0 {
        // An infinite step: one element if it points from start towards stop.
        if ratio.is_sign_negative() { 0.0 } else { 1.0 }
    } else {
        ratio.ceil()
    };
    if len.is_nan() {
        return Err(Diagnostic::new(
            "E0210",
            "arange's range is not finite: its length (stop - start) / step is nan",
            span.clone(),
        )
        .with_hint("a bound or the step is nan, or both bounds are infinite"));
    }
    if len > max_elements() as f64 {
        return Err(too_many(if len.is_finite() {
            element_count(len)
        } else {
            "infinitely many".to_string()
        }));
    }
    let len = len.max(0.0) as usize;
    // NumPy fills `start + i * delta` with delta the rounded difference of the first two
    // elements; with at most one element the step is never used (and may be infinite).
    let delta = if len > 1 { (a + d) - a } else { 0.0 };
    Ok(ArangeRange::Floats { start: a, delta, len })
}

/// Whether an argument of `ix_` of this rank is a 1-D sequence; E0210
/// otherwise, in the words of the checker and the run alike.
pub fn check_ix_rank(rank: usize, span: &Span) -> Result<(), Diagnostic> {
    if rank == 1 {
        return Ok(());
    }
    Err(Diagnostic::new(
        "E0210",
        format!("ix_ takes 1-D sequences, found one of rank {rank}"),
        span.clone(),
    ))
}

/// The rank a function of matrices (`diagonal`, `trace`, `tril`, `triu`:
/// at least 2) or `diag` (1 or 2) takes; E0201 otherwise. The checker and
/// the interpreter both ask here, so the words are the same.
pub fn check_matrix_rank(name: &str, rank: usize, span: &Span) -> Result<(), Diagnostic> {
    match name {
        "diag" if !(1..=2).contains(&rank) => Err(Diagnostic::new(
            "E0201",
            format!("diag needs a 1-D or 2-D array, not rank {rank}"),
            span.clone(),
        )),
        "diagonal" | "trace" | "tril" | "triu" | "qr" | "svd" | "svdvals" | "pinv" | "cond" if rank < 2 => {
            Err(Diagnostic::new(
                "E0201",
                format!("{name} needs an array of rank 2 or more, not rank {rank}"),
                span.clone(),
            ))
        }
        "lstsq" if rank != 2 => Err(Diagnostic::new(
            "E0201",
            format!("lstsq needs a 2-D a, not rank {rank}"),
            span.clone(),
        )),
        _ => Ok(()),
    }
}

/// `split`'s N equal parts of an axis of `len`; E0210 when they cannot be
/// equal. The checker and the interpreter both ask here.
pub fn check_equal_sections(len: usize, n: usize, axis: usize, span: &Span) -> Result<(), Diagnostic> {
    if n == 0 || len.is_multiple_of(n) {
        return Ok(());
    }
    Err(Diagnostic::new(
        "E0210",
        format!("{len} elements along axis {axis} do not split into {n} equal parts"),
        span.clone(),
    )
    .with_hint("array_split allows parts of unequal lengths"))
}

/// A stack of square matrices `(..., n, n)` for `inv`, `det`, `solve` and
/// `matrix_power`; E0221 otherwise. Unknown sizes pass (the run decides).
pub fn check_square(name: &str, shape: &[Dim], span: &Span) -> Result<(), Diagnostic> {
    let r = shape.len();
    let square = r >= 2 && (shape[r - 1].is_none() || shape[r - 2].is_none() || shape[r - 1] == shape[r - 2]);
    if square {
        return Ok(());
    }
    let dims: Vec<String> = shape
        .iter()
        .map(|d| d.map_or("?".to_string(), |n| n.to_string()))
        .collect();
    Err(Diagnostic::new(
        "E0221",
        format!(
            "`{name}` needs square matrices (..., n, n), not shape [{}]",
            dims.join(", ")
        ),
        span.clone(),
    )
    .with_hint("the last two axes must have the same size"))
}

/// `pad`'s `pad_width` (its integers, flattened) as one (before, after)
/// pair per axis of an array of rank `rank`: an int, one pair for every
/// axis, or a pair per axis (NumPy's broadcasting of `pad_width`); E0210
/// for another count or a negative width.
pub fn pad_pairs(widths: &[i64], rank: usize, span: &Span) -> Result<Vec<(i64, i64)>, Diagnostic> {
    let pairs = per_axis_pairs(widths, rank).ok_or_else(|| {
        Diagnostic::new(
            "E0210",
            format!(
                "pad_width of {} numbers does not fit an array of rank {rank}",
                widths.len()
            ),
            span.clone(),
        )
        .with_hint("give an int, (before, after), or one (before, after) per axis")
    })?;
    if let Some(&w) = widths.iter().find(|&&w| w < 0) {
        return Err(Diagnostic::new(
            "E0210",
            format!("pad widths may not be negative, found {w}"),
            span.clone(),
        ));
    }
    Ok(pairs)
}

/// `v` as one pair per axis of rank `rank`: one number for every side, one
/// pair for every axis, or a pair per axis (how `pad` broadcasts
/// `pad_width` and `constant_values`).
pub fn per_axis_pairs<T: Copy>(v: &[T], rank: usize) -> Option<Vec<(T, T)>> {
    match v.len() {
        1 => Some(vec![(v[0], v[0]); rank]),
        2 => Some(vec![(v[0], v[1]); rank]),
        n if n == 2 * rank => Some((0..rank).map(|k| (v[2 * k], v[2 * k + 1])).collect()),
        _ if rank == 0 => Some(vec![]),
        _ => None,
    }
}

/// `solve(a, b)`'s result shape: `a` square matrices (..., n, n) (see
/// `check_square`), `b` a vector of n or a stack (..., n, k), the stacks'
/// axes broadcast together; E0221 where b does not fit a.
pub fn solve_shape(a: &[Dim], b: &[Dim], spans: (&Span, &Span), span: &Span) -> Result<Vec<Dim>, Diagnostic> {
    check_square("solve", a, spans.0)?;
    let (ra, rb) = (a.len(), b.len());
    let n = a[ra - 1];
    let (bm, k, bbatch) = match rb {
        0 => {
            return Err(Diagnostic::new(
                "E0221",
                "solve needs b of rank 1 or more",
                spans.1.clone(),
            ));
        }
        1 => (b[0], None, &b[..0]),
        _ => (b[rb - 2], Some(b[rb - 1]), &b[..rb - 2]),
    };
    if let (Some(n), Some(bm)) = (n, bm)
        && n != bm
    {
        let shown: Vec<String> = b.iter().map(|d| d.map_or("?".to_string(), |x| x.to_string())).collect();
        return Err(Diagnostic::new(
            "E0221",
            format!("solve of a {n} x {n} system with b of shape [{}]", shown.join(", ")),
            spans.1.clone(),
        )
        .with_hint("b's first axis (its second-to-last when it is a stack) must match a's size"));
    }
    let operand = |shape, span: &Span| Operand {
        dtype: None,
        shape,
        span: Some(span.clone()),
    };
    let mut out = broadcast(
        &[operand(&a[..ra - 2], spans.0), operand(bbatch, spans.1)],
        "solve's batch axes",
        span,
    )?;
    out.push(n.or(bm));
    out.extend(k);
    Ok(out)
}

/// E0306 for a tuple pattern of `names` names given an array that does not
/// unpack into them along its first axis (`rows`; `None` for a scalar).
pub fn unpack_array(arity: &Arity, rows: Option<usize>, span: &Span) -> Diagnostic {
    let message = match rows {
        None => format!("expected a tuple of {} values, found a scalar", arity.count()),
        Some(n) => format!(
            "this pattern {} but the array has {n} along its first axis",
            arity.names()
        ),
    };
    Diagnostic::new("E0306", message, span.clone())
}

/// E0306 for a tuple of `len` values that a tuple pattern of `arity` does not take.
pub fn unpack_tuple(arity: &Arity, len: usize, pattern: &Span, value: &Span) -> Diagnostic {
    Diagnostic::new(
        "E0306",
        format!("this pattern {} but the value is a tuple of {len}", arity.names()),
        pattern.clone(),
    )
    .with_label(value.clone(), format!("a tuple of {len}"))
}

/// How many values a tuple pattern takes: one per name, or, with a starred
/// name (`let (a, *rest) = t`), at least one per other name. The checker and
/// the interpreter both unpack through it.
pub struct Arity {
    /// The names other than the starred one.
    fixed: usize,
    /// Where the starred name stands among the items.
    star: Option<usize>,
}

impl Arity {
    pub fn of(items: &[Pattern]) -> Arity {
        let star = items.iter().position(|p| matches!(p, Pattern::Rest(_)));
        Arity {
            fixed: items.len() - usize::from(star.is_some()),
            star,
        }
    }

    pub fn takes(&self, len: usize) -> bool {
        match self.star {
            Some(_) => len >= self.fixed,
            None => len == self.fixed,
        }
    }

    /// "2" or "at least 2".
    pub fn count(&self) -> String {
        match self.star {
            Some(_) => format!("at least {}", self.fixed),
            None => self.fixed.to_string(),
        }
    }

    /// "has 2 names", or "takes at least 2 values" with a starred name.
    fn names(&self) -> String {
        match self.star {
            Some(_) => format!("takes at least {} values", self.fixed),
            None => format!("has {} names", self.fixed),
        }
    }

    /// `values` (which the pattern takes) one per item: the starred item gets
    /// those the others leave, gathered by `gather`.
    pub fn distribute<T>(&self, mut values: Vec<T>, gather: impl FnOnce(Vec<T>) -> T) -> Vec<T> {
        if let Some(at) = self.star {
            let after = self.fixed - at;
            let rest: Vec<T> = values.drain(at..values.len() - after).collect();
            values.insert(at, gather(rest));
        }
        values
    }
}

/// E0204 for the first of flat `indices` outside an array of `size` elements
/// (`unravel_index`; negative ones count too, as NumPy's).
pub fn check_flat_indices(mut indices: impl Iterator<Item = i64>, size: i64, span: &Span) -> Result<(), Diagnostic> {
    match indices.find(|&v| v < 0 || v >= size) {
        Some(v) => Err(Diagnostic::new(
            "E0204",
            format!("index {v} is out of range for an array of size {size}"),
            span.clone(),
        )),
        None => Ok(()),
    }
}

/// Python's slice rules: the first index, the count and the step.
pub fn resolve_slice(n: usize, start: Option<i64>, stop: Option<i64>, step: i64) -> (usize, usize) {
    let n = n as i64;
    // A step longer than the axis takes at most one element; clamping keeps the arithmetic in range.
    let step = step.clamp(-(n + 1), n + 1);
    let clamp = |v: i64, lo: i64, hi: i64| v.max(lo).min(hi);
    let norm = |v: i64| if v < 0 { v + n } else { v };
    if step > 0 {
        let s = clamp(start.map(norm).unwrap_or(0), 0, n);
        let e = clamp(stop.map(norm).unwrap_or(n), 0, n);
        let len = if e > s { (e - s + step - 1) / step } else { 0 };
        (s as usize, len as usize)
    } else {
        let s = clamp(start.map(norm).unwrap_or(n - 1), -1, n - 1);
        let e = clamp(stop.map(norm).unwrap_or(-1), -1, n - 1);
        let len = if s > e { (s - e + (-step) - 1) / (-step) } else { 0 };
        (s.max(0) as usize, len as usize)
    }
}

/// Whether a value of shape `value` broadcasts to `target`; unknown sizes fit anything.
fn broadcasts_to(value: &[Dim], target: &[Dim]) -> bool {
    value.len() <= target.len()
        && value
            .iter()
            .rev()
            .zip(target.iter().rev())
            .all(|(&v, &t)| v == Some(1) || v.is_none() || t.is_none() || v == t)
}

/// Whether two shapes are the same; unknown sizes match anything.
fn same_shape(a: &[Dim], b: &[Dim]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| x.is_none() || y.is_none() || x == y)
}

/// E0307 (spanless) for a literal integer outside the narrower integer
/// `dtype`'s range: NumPy 2 raises OverflowError for a Python int out of
/// bounds rather than wrapping it silently.
pub fn int_out_of_range(dtype: DType) -> Diagnostic {
    let (lo, hi) = dtype.int_range().unwrap_or((i64::MIN, i64::MAX));
    Diagnostic::spanless(
        "E0307",
        format!("this integer does not fit in {dtype} (from {lo} to {hi})"),
    )
    .with_hint(format!(
        "make the array i64 first (`as i64`), or cast the value (`as {dtype}`) to wrap on purpose"
    ))
}

/// NumPy's "same_kind" casting of a result written into an existing array
/// (`x op= e`, `out=`): a float into an integer or bool array, or a number
/// into a bool array, is refused. Also what a literal may not be converted
/// to by an annotation (`fn f(x: i32)` called with 2.5).
pub fn same_kind_refuses(result: DType, target: DType) -> bool {
    (result.is_float() && !target.is_float()) || (target == DType::Bool && result != DType::Bool)
}

/// A slice assignment's value against the slice it writes (E0208 unless it
/// broadcasts to the slice); unknown sizes fit anything.
pub fn check_assign_fits(
    target: (DType, &[Dim]),
    value: (DType, &[Dim]),
    spans: (&Span, &Span, &Span),
) -> Result<(), Diagnostic> {
    if broadcasts_to(value.1, target.1) {
        return Ok(());
    }
    let ts = describe(Some(target.0), target.1);
    let vs = describe(Some(value.0), value.1);
    let (target_span, value_span, span) = spans;
    Err(Diagnostic::new(
        "E0208",
        format!("cannot assign {vs} to a slice of shape {ts}"),
        span.clone(),
    )
    .with_label(target_span.clone(), format!("this slice is {ts}"))
    .with_label(value_span.clone(), format!("this is {vs}"))
    .with_hint("the value must have the slice's shape or broadcast to it"))
}

/// `f(..., out=o)`: as NumPy's, the result is written into `o` and is `o`, so
/// its shape must be `o`'s (E0208; an elementwise builtin's, a ufunc's, may
/// broadcast to it, `broadcasts`) and its dtype cast to `o`'s by NumPy's
/// "same_kind" rule (E0300): a float result does not go into an integer or
/// bool array, nor a number into a bool array. `result` is the call's dtype
/// and shape where known.
pub fn check_out(
    func: &str,
    out: (Option<DType>, &[Dim]),
    result: (Option<DType>, Option<&[Dim]>),
    broadcasts: bool,
    spans: (&Span, &Span),
) -> Result<(), Diagnostic> {
    let (out_span, span) = spans;
    let os = describe(out.0, out.1);
    if let Some(rs) = result.1
        && !(if broadcasts {
            broadcasts_to(rs, out.1)
        } else {
            same_shape(rs, out.1)
        })
    {
        let vs = describe(result.0, rs);
        let (does, hint) = if broadcasts {
            (
                "does not broadcast to",
                "`out=` must have the result's shape, or one the result broadcasts to",
            )
        } else {
            (
                "is not the shape of",
                "`out=` must have the result's shape (with `keepdims=true` where it keeps them)",
            )
        };
        return Err(Diagnostic::new(
            "E0208",
            format!("`{func}` gives {vs}, which {does} `out`, {os}"),
            span.clone(),
        )
        .with_primary_label(format!("this gives {vs}"))
        .with_label(out_span.clone(), format!("this is {os}"))
        .with_hint(hint));
    }
    if let (Some(rd), Some(od)) = (result.0, out.0)
        && same_kind_refuses(rd, od)
    {
        return Err(Diagnostic::new(
            "E0300",
            format!("`{func}` gives {rd} values, which cannot be written into the {od} array `out`"),
            span.clone(),
        )
        .with_primary_label(format!("this gives {rd} values"))
        .with_label(out_span.clone(), format!("this is {os}"))
        .with_hint(format!(
            "NumPy's `out=` takes a result of the same kind (\"same_kind\" casting): give an `out` of a dtype that holds {rd} values, or convert the result with `astype`"
        )));
    }
    Ok(())
}

/// `x op= e` on an array `x` of rank 1 or more: as NumPy's in-place operators, the
/// result is written into `x`, so it keeps `x`'s shape (E0208 when `x op e` broadcasts
/// to more) and its dtype, which cannot turn an integer or bool array into floats
/// (E0300, NumPy's "cannot cast ufunc output"). `result` is `x op e`'s dtype and shape
/// where known.
pub fn check_update(
    name: &str,
    op: &str,
    target: (Option<DType>, &[Dim]),
    result: (Option<DType>, Option<&[Dim]>),
    spans: (&Span, &Span, &Span),
) -> Result<(), Diagnostic> {
    let (target_span, value_span, span) = spans;
    let ts = describe(target.0, target.1);
    if let Some(rs) = result.1
        && !same_shape(rs, target.1)
    {
        let vs = describe(result.0, rs);
        return Err(Diagnostic::new(
            "E0208",
            format!("`{name}` is {ts}, and the result written into it would be {vs}"),
            span.clone(),
        )
        .with_primary_label("updated in place here")
        .with_label(target_span.clone(), format!("this is {ts}"))
        .with_label(value_span.clone(), "this does not broadcast to its shape")
        .with_hint(format!(
            "`{name} {op}= e` writes into `{name}`'s memory, as NumPy's; write `{name} = {name} {op} e` for a new array"
        )));
    }
    if let (Some(rd), Some(td)) = (result.0, target.0)
        && same_kind_refuses(rd, td)
    {
        let kind = if rd.is_float() { "a float" } else { "an integer" };
        return Err(Diagnostic::new(
            "E0300",
            format!("cannot write {rd} results into the {td} array `{name}` in place"),
            span.clone(),
        )
        .with_primary_label("updated in place here")
        .with_label(target_span.clone(), format!("this is {ts}"))
        .with_label(value_span.clone(), format!("this makes the result {rd}"))
        .with_hint(format!(
            "`{name} {op}= e` keeps `{name}`'s dtype, as NumPy's; write `{name} = {name} {op} e` for {kind} array"
        )));
    }
    Ok(())
}

/// Python's `float(x)`, `int(x)`, `bool(x)`: `x` must hold one element (E0212, as
/// Python's "only length-1 arrays can be converted to Python scalars").
pub fn check_scalar_conversion(
    name: &str,
    (dtype, shape): (Option<DType>, &[Dim]),
    span: &Span,
) -> Result<(), Diagnostic> {
    match shape.iter().try_fold(1usize, |n, d| d.map(|d| n * d)) {
        Some(1) | None => Ok(()),
        Some(_) => Err(Diagnostic::new(
            "E0212",
            format!("`{name}()` needs one element, found {}", describe(dtype, shape)),
            span.clone(),
        )
        .with_hint(format!(
            "`{name}(x)` makes a scalar, as Python's; write `x as {}` to convert every element",
            crate::check::dtype::dtype_call(name, DType::F32).0
        ))),
    }
}

/// `eye(n, m)`: E0210 for a negative size.
pub fn check_eye_sizes(n: i64, m: i64, span: &Span) -> Result<(), Diagnostic> {
    if n < 0 || m < 0 {
        return Err(Diagnostic::new("E0210", "eye needs non-negative sizes", span.clone()));
    }
    Ok(())
}

/// `identity`'s size: E0210 when negative.
pub fn check_identity_size(n: i64, span: &Span) -> Result<(), Diagnostic> {
    if n < 0 {
        return Err(Diagnostic::new(
            "E0210",
            "identity needs a non-negative size",
            span.clone(),
        ));
    }
    Ok(())
}

/// `diff`'s order `n` (E0210 when negative) of an array of rank `rank`
/// (E0201 for a 0-d one), either where known.
pub fn check_diff(n: Option<i64>, rank: Option<usize>, n_span: &Span, x_span: &Span) -> Result<(), Diagnostic> {
    if let Some(n) = n
        && n < 0
    {
        return Err(Diagnostic::new(
            "E0210",
            format!("order must be non-negative but got {n}"),
            n_span.clone(),
        ));
    }
    if rank == Some(0) {
        return Err(Diagnostic::new(
            "E0201",
            "diff requires input that is at least one dimensional",
            x_span.clone(),
        ));
    }
    Ok(())
}

/// `linspace`'s `num`: E0210 when negative.
pub fn check_linspace_num(num: i64, span: &Span) -> Result<(), Diagnostic> {
    if num < 0 {
        return Err(Diagnostic::new(
            "E0210",
            "linspace needs a non-negative number of points",
            span.clone(),
        ));
    }
    Ok(())
}

/// `squeeze` of axis `axis` (normalised) of `shape`: E0201 unless its size is
/// 1 (or unknown, for the checker).
pub fn check_squeezable(shape: &[Dim], axis: usize, span: &Span) -> Result<(), Diagnostic> {
    match shape.get(axis).copied().flatten() {
        Some(n) if n != 1 => Err(Diagnostic::new(
            "E0201",
            format!("cannot squeeze axis {axis}: its size is {n}, not 1"),
            span.clone(),
        )),
        _ => Ok(()),
    }
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

/// `normalize_axis_index`'s `ndim` as a rank: E0210 when negative.
pub fn check_ndim(ndim: i64, span: &Span) -> Result<usize, Diagnostic> {
    usize::try_from(ndim).map_err(|_| {
        Diagnostic::new("E0210", format!("an array cannot have {ndim} axes"), span.clone())
            .with_hint("`ndim` counts axes: 0 or more")
    })
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

/// `expand_dims(x, axes)`: the result's new size-1 axes (sorted), each of
/// `axes` counted in the result's rank (`x`'s plus one an axis), as NumPy.
pub fn expand_dims_axes(axes: &[i64], rank: usize, span: &Span) -> Result<Vec<usize>, Diagnostic> {
    normalize_axes(axes, rank + axes.len(), span)
}

/// `shape` with a size-1 axis at each of `new` (sorted positions in the result).
pub fn expanded_shape(shape: &[Dim], new: &[usize]) -> Vec<Dim> {
    let mut rest = shape.iter();
    (0..shape.len() + new.len())
        .map(|k| {
            if new.contains(&k) {
                Some(1)
            } else {
                rest.next().copied().flatten()
            }
        })
        .collect()
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
    // u128 products never wrap (at most 2^64 per factor, saturating beyond): a target
    // whose true product differs from the source size is a mismatch, never a match by
    // wrap-around.
    let known: Option<u128> = from
        .iter()
        .try_fold(1u128, |acc, d| d.map(|v| acc.saturating_mul(v as u128)));
    let holes = to.iter().filter(|&&d| d == -1).count();
    if holes > 1 || to.iter().any(|&d| d < -1) {
        return Err(Diagnostic::new(
            "E0210",
            "a reshape target may contain one -1 and no other negative size",
            span.clone(),
        ));
    }
    let fixed: u128 = to
        .iter()
        .filter(|&&d| d >= 0)
        .fold(1u128, |acc, &d| acc.saturating_mul(d as u128));
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
                *d = Some((total / fixed) as usize);
            }
        }
    } else if fixed != total {
        return Err(mismatch());
    }
    let resolved: Vec<usize> = out.iter().map(|d| d.unwrap_or(0)).collect();
    check_size(&resolved, span)?;
    Ok(out)
}

/// The shape of `concat` (or `stack`, `new_axis`) of arrays of these dtypes
/// and shapes along `axis`: E0206 when they do not fit together (the
/// messages of `graph::build::concat` and `stack`), E0201 for a bad axis.
pub fn join_shapes(
    items: &[(Option<DType>, Vec<Dim>)],
    axis: i64,
    new_axis: bool,
    span: &Span,
) -> Result<Vec<Dim>, Diagnostic> {
    let what = if new_axis { "stack" } else { "concat" };
    let Some((d0, first)) = items.first() else {
        return Err(Diagnostic::new(
            "E0206",
            format!("{what} needs at least one array"),
            span.clone(),
        ));
    };
    if !new_axis && first.is_empty() {
        return Err(
            Diagnostic::new("E0206", "rank-0 arrays cannot be concatenated", span.clone())
                .with_hint("use `stack` to make a new axis, or write an array literal"),
        );
    }
    let rank = first.len() + new_axis as usize;
    let ax = normalize_axis(axis, rank, span)?;
    for (d, s) in items {
        let fits = if new_axis {
            s.len() == first.len() && s.iter().zip(first).all(|(a, b)| a.is_none() || b.is_none() || a == b)
        } else {
            s.len() == first.len()
                && (0..s.len()).all(|i| i == ax || s[i].is_none() || first[i].is_none() || s[i] == first[i])
        };
        if !fits {
            let (a, b) = (describe(*d0, first), describe(*d, s));
            let (msg, hint) = if new_axis {
                (
                    format!("cannot stack {a} and {b}"),
                    "stacked arrays must all have the same shape",
                )
            } else {
                (
                    format!("cannot join {a} and {b} along axis {ax}"),
                    "all arrays must have the same rank and the same sizes on every other axis",
                )
            };
            return Err(Diagnostic::new("E0206", msg, span.clone()).with_hint(hint));
        }
    }
    let mut out = first.clone();
    if new_axis {
        out.insert(ax, Some(items.len()));
    } else {
        out[ax] = items.iter().try_fold(0usize, |acc, (_, s)| s[ax].map(|v| acc + v));
    }
    Ok(out)
}

/// Builtins whose first argument is a sequence of arrays (a list literal
/// there is a list of arrays, not one array).
pub fn is_join(name: &str) -> bool {
    matches!(
        super::builtins::canonical(name),
        "concat" | "stack" | "vstack" | "hstack" | "column_stack"
    )
}

/// NumPy's `vstack`, `hstack` and `column_stack` as a `concat`: for arrays
/// of these ranks, the axes to insert into each (in order) and the axis they
/// are joined along; `None` for no arrays (`concat` reports it).
pub fn ranks_for_stack(name: &str, ranks: &[usize]) -> Option<(Vec<Vec<usize>>, usize)> {
    let first = *ranks.first()?;
    let insert = |r: usize| -> Vec<usize> {
        match (name, r) {
            // at least 2-D, a vector as a row
            ("vstack", 0) => vec![0, 0],
            ("vstack", 1) => vec![0],
            // at least 1-D
            ("hstack", 0) => vec![0],
            // at least 2-D, a vector as a column
            ("column_stack", 0) => vec![0, 0],
            ("column_stack", 1) => vec![1],
            _ => vec![],
        }
    };
    let axis = match name {
        "vstack" => 0,
        "hstack" if first <= 1 => 0,
        _ => 1,
    };
    Some((ranks.iter().map(|&r| insert(r)).collect(), axis))
}

/// E0204 for index `i` of an axis of `n` (an index, `take`'s indices; the
/// checker's constant ones too).
pub fn index_out_of_range(i: i64, n: i64, span: &Span) -> Diagnostic {
    Diagnostic::new(
        "E0204",
        format!("index {i} is out of range for an axis of size {n}"),
        span.clone(),
    )
    .with_hint(if n == 0 {
        "the axis is empty: no index is valid".to_string()
    } else {
        format!("valid indices are {} to {}", -n, n - 1)
    })
}

/// The axis `split`, `array_split`, `hsplit` or `vsplit` cuts (`axis` is
/// `split`'s argument, unused by the other two): E0201 for `vsplit` of fewer
/// than 2 axes, any of them of a scalar, or an axis out of range.
pub fn split_axis(name: &str, rank: usize, axis: i64, x_span: &Span, axis_span: &Span) -> Result<usize, Diagnostic> {
    let axis = match name {
        "hsplit" if rank == 1 => 0,
        "hsplit" => 1,
        "vsplit" => 0,
        _ => axis,
    };
    let least = if name == "vsplit" { 2 } else { 1 };
    if rank < least {
        return Err(Diagnostic::new(
            "E0201",
            format!("{name} needs an array of at least {least} axes, found rank {rank}"),
            x_span.clone(),
        ));
    }
    normalize_axis(axis, rank, axis_span)
}

/// A number of sections `n` of an axis of `len` (unknown to the checker):
/// E0210 unless positive, and for `equal` parts (`split`, not `array_split`)
/// unless they divide the axis.
pub fn check_sections(len: Dim, n: i64, axis: usize, equal: bool, span: &Span) -> Result<usize, Diagnostic> {
    if n <= 0 {
        return Err(Diagnostic::new(
            "E0210",
            format!("the number of sections must be positive, found {n}"),
            span.clone(),
        ));
    }
    if equal && let Some(len) = len {
        check_equal_sections(len, n as usize, axis, span)?;
    }
    Ok(n as usize)
}

/// Counts of `repeat` or `tile` (`what` names them as the argument does):
/// E0210 for a negative one.
pub fn check_counts(what: &str, counts: &[i64], span: &Span) -> Result<(), Diagnostic> {
    match counts.iter().find(|&&r| r < 0) {
        Some(r) => Err(Diagnostic::new(
            "E0210",
            format!("{what} may not be negative, found {r}"),
            span.clone(),
        )),
        None => Ok(()),
    }
}

/// `repeat`'s counts for an axis of `n` elements (unknown to the checker):
/// non-negative, and one count (`scalar`, or a list of one) or one per element.
pub fn check_repeats(reps: &[i64], scalar: bool, n: Dim, span: &Span) -> Result<(), Diagnostic> {
    check_counts("repeats", reps, span)?;
    match n {
        Some(n) if !scalar && reps.len() != 1 && reps.len() != n => Err(Diagnostic::new(
            "E0210",
            format!("repeats has {} entries for an axis of length {n}", reps.len()),
            span.clone(),
        )),
        _ => Ok(()),
    }
}

/// The permutation `transpose(x, axes)` makes of an array of `rank` axes:
/// E0201 for an axis out of range, a repeated one, or too few of them.
pub fn permutation(axes: &[i64], rank: usize, span: &Span) -> Result<Vec<usize>, Diagnostic> {
    let sorted = normalize_axes(axes, rank, span)?;
    if sorted.len() != rank {
        return Err(Diagnostic::new(
            "E0201",
            format!("a permutation of {rank} axes needs {rank} entries"),
            span.clone(),
        ));
    }
    axes.iter().map(|&ax| normalize_axis(ax, rank, span)).collect()
}

/// `broadcast_to` of `x` to `target`: E0200 where they do not broadcast or the
/// result would not be `target` (more axes than it, or a size it would
/// stretch). Unknown sizes pass.
pub fn check_broadcast_to(x: &Operand, target: (&[Dim], Option<Span>), span: &Span) -> Result<(), Diagnostic> {
    let joined = broadcast(
        &[
            Operand {
                dtype: x.dtype,
                shape: x.shape,
                span: x.span.clone(),
            },
            Operand {
                dtype: None,
                shape: target.0,
                span: target.1,
            },
        ],
        "`broadcast_to`",
        span,
    )?;
    let known = |s: &[Dim]| s.iter().copied().collect::<Option<Vec<usize>>>();
    if let (Some(xs), Some(ts)) = (known(x.shape), known(target.0))
        && known(&joined).as_ref() != Some(&ts)
    {
        return Err(Diagnostic::new(
            "E0200",
            format!("cannot broadcast shape {xs:?} to {ts:?}"),
            span.clone(),
        ));
    }
    Ok(())
}

/// `cross`'s operand of shape `shape` along `axis`: E0201 for a scalar or an
/// axis out of range, E0221 unless its vectors have 2 or 3 components
/// (unknown sizes pass). The normalised axis.
pub fn cross_axis(shape: &[Dim], axis: i64, x_span: &Span, axis_span: &Span) -> Result<usize, Diagnostic> {
    if shape.is_empty() {
        return Err(Diagnostic::new(
            "E0201",
            "cross needs arrays of vectors, not scalars",
            x_span.clone(),
        ));
    }
    let ax = normalize_axis(axis, shape.len(), axis_span)?;
    match shape[ax] {
        Some(len) if len != 2 && len != 3 => Err(Diagnostic::new(
            "E0221",
            format!("incompatible dimensions for cross product: vectors of length {len}"),
            x_span.clone(),
        )
        .with_hint("the vectors must have 2 or 3 components")),
        _ => Ok(ax),
    }
}

/// The elements of an array literal (their dtypes, shapes and spans) must
/// have one shape: E0206 naming the first and the first that differs.
/// Unknown sizes pass.
pub fn check_literal_parts(parts: &[(Option<DType>, &[Dim])], spans: &[Span], span: &Span) -> Result<(), Diagnostic> {
    let Some((d0, first)) = parts.first() else {
        return Ok(());
    };
    for (k, (d, s)) in parts.iter().enumerate() {
        let same = s.len() == first.len()
            && s.iter()
                .zip(first.iter())
                .all(|(a, b)| a.is_none() || b.is_none() || a == b);
        if !same {
            let (a, b) = (describe(*d0, first), describe(*d, s));
            return Err(Diagnostic::new(
                "E0206",
                "the elements of an array literal must all have one shape",
                span.clone(),
            )
            .with_label(spans[0].clone(), format!("this is {a}"))
            .with_label(spans[k].clone(), format!("this is {b}")));
        }
    }
    Ok(())
}

/// A reduction's `where=` mask must broadcast to the reduced array's shape
/// without widening it (NumPy's rule): E0200 otherwise. Unknown sizes pass.
pub fn check_reduce_mask(
    mask: &[Dim],
    mask_dtype: Option<DType>,
    shape: &[Dim],
    span: &Span,
) -> Result<(), Diagnostic> {
    let fits = mask.len() <= shape.len()
        && mask
            .iter()
            .rev()
            .zip(shape.iter().rev())
            .all(|(m, s)| m.is_none() || s.is_none() || m == s || *m == Some(1));
    if fits {
        return Ok(());
    }
    Err(Diagnostic::new(
        "E0200",
        format!(
            "the `where=` mask {} does not broadcast to the reduced array's shape {}",
            describe(mask_dtype, mask),
            describe(None, shape).trim_start_matches('?')
        ),
        span.clone(),
    )
    .with_hint("the mask must have the array's shape or broadcast to it"))
}

/// A reduction's `initial=` must be one value: E0212 for a known size other than 1.
pub fn check_reduce_initial(shape: &[Dim], dtype: Option<DType>, span: &Span) -> Result<(), Diagnostic> {
    match shape.iter().copied().collect::<Option<Vec<usize>>>() {
        Some(known) if known.iter().product::<usize>() != 1 => Err(Diagnostic::new(
            "E0212",
            format!("`initial=` must be a scalar, found {}", describe(dtype, shape)),
            span.clone(),
        )),
        _ => Ok(()),
    }
}

/// `where=` given to a minimum or maximum without `initial=` (E0105: NumPy
/// requires it, since the extreme of no elements has no value).
pub fn mask_needs_initial(name: &str, span: &Span) -> Diagnostic {
    Diagnostic::new("E0105", format!("`{name}` with `where=` needs `initial=`"), span.clone()).with_hint(
        "the minimum or maximum of no elements has no value: give `initial=`, a value every result starts from (NumPy requires it too)",
    )
}

/// The minimum, maximum or arg-extreme (`what`: "maximum", ...) of an array
/// of type `ty` over a zero-length axis (E0402).
pub fn empty_reduction(what: &str, ty: &str, span: &Span) -> Diagnostic {
    let d = Diagnostic::new(
        "E0402",
        format!("cannot take the {what} of an empty array: it has no identity"),
        span.clone(),
    )
    .with_primary_label(format!("this reduces {ty} over a zero-length axis"));
    match what {
        "minimum" | "maximum" => {
            d.with_hint("`initial=` gives every result a value to start from, an empty slice included")
        }
        _ => d,
    }
}

/// `full`'s value against its shape: it broadcasts to the shape one way only,
/// as NumPy's `full` (the run's `graph::build::full`, the checker's `full`).
pub fn check_fill(value: &[usize], shape: &[usize], span: &Span) -> Result<(), Diagnostic> {
    let fits = value.len() <= shape.len()
        && value
            .iter()
            .rev()
            .zip(shape.iter().rev())
            .all(|(&v, &s)| v == s || v == 1);
    if fits {
        return Ok(());
    }
    Err(Diagnostic::new(
        "E0200",
        format!("a value of shape {value:?} does not broadcast to the shape {shape:?}"),
        span.clone(),
    )
    .with_hint("the value must be a scalar or broadcast to the shape"))
}

/// `lstsq`'s right-hand side for an `m` x `n` system: `(m,)` or `(m, k)`.
pub fn lstsq_rhs(m: usize, n: usize, b: &[usize], span: &Span) -> Result<(), Diagnostic> {
    if (1..=2).contains(&b.len()) && b[0] == m {
        return Ok(());
    }
    Err(Diagnostic::new(
        "E0221",
        format!("lstsq of a {m} x {n} system with b of shape {b:?}"),
        span.clone(),
    )
    .with_hint("b is (m,) or (m, k), m the rows of a"))
}

/// A value as the run's static arguments describe it in their errors.
pub fn describe_found(dtype: DType, shape: &[usize]) -> String {
    format!("an array of shape {shape:?} ({dtype})")
}

/// A dtype parameter given something else; `found` as `describe_found` or a
/// kind's name words it (the run's `static_dtype`). A number there is most
/// often NumPy's `rand(3, 4)` habit, a shape's second axis.
pub fn not_a_dtype(found: &str, span: &Span) -> Diagnostic {
    Diagnostic::new(
        "E0302",
        format!("expected a dtype such as f32, found {found}"),
        span.clone(),
    )
    .with_hint("a dtype is a name such as f32 or i64; a shape of several axes is one argument, a list: `zeros([3, 4])`")
}

/// A flag (`keepdims`, `endpoint`, ...) given something other than one bool;
/// `found` as `describe_found` or a kind's name words it (the run's `static_bool`).
pub fn not_a_flag(found: &str, span: &Span) -> Diagnostic {
    Diagnostic::new(
        "E0305",
        format!("expected `true` or `false`, found {found}"),
        span.clone(),
    )
}

/// An integer argument (a count, an order, a power) given numbers of another dtype.
pub fn not_an_integer(what: &str, dtype: DType, span: &Span) -> Diagnostic {
    Diagnostic::new(
        "E0305",
        format!("{what} must be an integer, found {dtype}"),
        span.clone(),
    )
    .with_hint("convert it with `as i64`")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(shape: &[usize]) -> (Vec<Dim>, DType) {
        (dims(shape), DType::F32)
    }

    #[test]
    fn broadcast_known_agrees_with_broadcast() {
        let sizes = [0usize, 1, 2, 3];
        let mut shapes: Vec<Vec<usize>> = vec![vec![]];
        for &a in &sizes {
            shapes.push(vec![a]);
            for &b in &sizes {
                shapes.push(vec![a, b]);
                for &c in &sizes[1..] {
                    shapes.push(vec![c, a, b]);
                }
            }
        }
        for x in &shapes {
            for y in &shapes {
                let (dx, dy) = (dims(x), dims(y));
                let operand = |shape| Operand {
                    dtype: None,
                    shape,
                    span: None,
                };
                let checked = broadcast(&[operand(&dx), operand(&dy)], "`+`", &(0..1))
                    .ok()
                    .map(|out| out.into_iter().map(|d| d.unwrap_or(0)).collect::<Vec<_>>());
                let known = broadcast_known([x.as_slice(), y.as_slice()].into_iter());
                assert_eq!(known, checked, "{x:?} with {y:?}");
            }
        }
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
    fn reshape_products_do_not_wrap() {
        // 8589934595 * 6148914685509894146 is 6 modulo 2^64.
        let err = reshape_target(&dims(&[6]), &[8589934595, 6148914685509894146], &(0..1)).unwrap_err();
        assert_eq!(err.code, "E0203");
        // Zero elements into a shape whose other sizes overflow: NumPy's "array is too big".
        let err = reshape_target(&dims(&[0]), &[0, 1 << 62, 1 << 62], &(0..1)).unwrap_err();
        assert_eq!(err.code, "E0403");
        assert_eq!(
            reshape_target(&dims(&[0]), &[1 << 40, 0], &(0..1)).unwrap(),
            dims(&[1 << 40, 0])
        );
    }

    #[test]
    fn sizes_follow_numpy_nominal_rule() {
        let span = 0..1;
        assert!(check_size(&[1 << 40, 0], &span).is_ok());
        assert!(check_size(&[1 << 59, 0], &span).is_ok());
        // np.zeros((2**62, 0)) and np.zeros((2**62, 0, 2**62)): "array is too big".
        assert_eq!(check_size(&[1 << 62, 0], &span).unwrap_err().code, "E0403");
        assert_eq!(check_size(&[1 << 62, 0, 1 << 62], &span).unwrap_err().code, "E0403");
        assert_eq!(check_size(&[0, 1 << 62, 1 << 62], &span).unwrap_err().code, "E0403");
        assert_eq!(check_size(&[1 << 25, 1 << 24], &span).unwrap_err().code, "E0403");
        assert_eq!(checked_size(&[usize::MAX, 2]), None);
        assert_eq!(checked_size(&[usize::MAX, 0]), Some(0));
    }

    #[test]
    fn axes_normalise() {
        assert_eq!(normalize_axis(-1, 3, &(0..1)).unwrap(), 2);
        assert_eq!(normalize_axis(3, 3, &(0..1)).unwrap_err().code, "E0201");
        assert_eq!(normalize_axes(&[-1, 0], 3, &(0..1)).unwrap(), vec![0, 2]);
    }
}
