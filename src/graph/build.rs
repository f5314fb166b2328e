//! Graph building: array operations that check shapes and dtypes (with the
//! rules in `check`), insert casts and broadcast views, and add pending
//! nodes. Nothing here executes; errors carry the span of what was written.

use super::data::HostData;
use super::op::{BinaryOp, Op, ReduceOp, ScanOp, UnaryOp, accumulate_dtype};
use super::segment_index::SegmentIndex;
use super::view::View;
use super::{Array, Buffer};
use crate::check::dtype::{DType, promote_weak};
use crate::check::prim::{BitOp, UnarySig, bits_sig, unary_sig};
use crate::check::shape::{self, Operand, describe, dims};
use crate::diag::Diagnostic;
use crate::syntax::ast::{BinOp, Span};

/// A realized rank-0 array holding `value`.
pub fn scalar(dtype: DType, value: f64, weak: bool) -> Array {
    Array::from_host(HostData::scalar(dtype, value), &[]).with_weak(weak)
}

pub fn scalar_i64(value: i64, weak: bool) -> Array {
    Array::from_host(HostData::I64(vec![value]), &[]).with_weak(weak)
}

pub fn from_buffer_like(buffer: Buffer, dtype: DType, shape: &[usize]) -> Array {
    Array::from_buffer(buffer, dtype, shape)
}

fn type_of(a: &Array) -> String {
    describe(Some(a.dtype()), &dims(a.shape()))
}

/// The value of a realized rank-0 array held on the host (a literal, a folded scalar).
fn ready_scalar(a: &Array) -> Option<f64> {
    if a.rank() != 0 {
        return None;
    }
    ready_element(a)
}

/// The one element of a realized one-element array held on the host, as an
/// f64 (exact for bools, and what `get_f64` of a read gives otherwise).
pub fn ready_element(a: &Array) -> Option<f64> {
    if a.size() != 1 {
        return None;
    }
    let super::NodeState::Ready(buffer) = &*a.node.state.borrow() else {
        return None;
    };
    match &*buffer.storage() {
        super::Storage::Host(data) if a.view.offset < data.len() => Some(data.get_f64(a.view.offset)),
        _ => None,
    }
}

/// Converts to `dtype` (a no-op when it already is).
pub fn cast(a: &Array, dtype: DType, span: Option<&Span>) -> Array {
    if a.dtype() == dtype {
        return a.clone();
    }
    if let Some(converted) = cast_literal(a, dtype) {
        return converted;
    }
    Array::pending(Op::Cast, vec![a.clone()], dtype, a.shape(), span.cloned()).with_weak(a.weak)
}

/// A literal (a weak scalar on the host) converted now instead of by a cast
/// node: every `2.0 * x` of an f32 `x` converts its literal, and building,
/// folding and dropping a node for that cost more than the rest of a small
/// statement. `HostData::scalar` and `scalar_i64` convert as the cast kernels
/// do (`as`: rounding to nearest, integers wrapping; `tests/literals.rs`
/// compares them); other pairs take the general path.
fn cast_literal(a: &Array, dtype: DType) -> Option<Array> {
    if !a.weak || a.rank() != 0 {
        return None;
    }
    let buffer = a.node.buffer()?;
    let storage = buffer.storage();
    let super::Storage::Host(h) = &*storage else {
        return None;
    };
    let at = a.view.offset;
    let data = match (h, dtype) {
        (HostData::F64(v), DType::F32) => HostData::scalar(dtype, *v.get(at)?),
        (HostData::I64(v), DType::F32 | DType::F64 | DType::I32) => HostData::scalar_i64(dtype, *v.get(at)?),
        _ => return None,
    };
    Some(Array::from_host(data, &[]).with_weak(true))
}

/// `a` converted to `dtype` and seen with `shape`: an operand of an
/// elementwise node, cloned once rather than once per step.
fn operand(a: &Array, dtype: DType, span: Option<&Span>, shape: &[usize]) -> Array {
    let x = cast(a, dtype, span);
    if x.shape() == shape {
        return x;
    }
    let view = x.view.broadcast_to(shape);
    Array { view, ..x }
}

/// Whether every value of `a` fits `dtype` when `a` is a weak (literal)
/// integer about to become a strong integer narrower than i64; values not
/// yet computed count as fitting.
fn weak_int_fits(a: &Array, dtype: DType) -> bool {
    let Some((lo, hi)) = dtype.int_range() else { return true };
    if !(a.weak && a.dtype() == DType::I64 && dtype != DType::I64) {
        return true;
    }
    let Some(buffer) = a.node.buffer() else { return true };
    let storage = buffer.storage();
    let super::Storage::Host(h) = &*storage else {
        return true;
    };
    a.view.offsets().into_iter().all(|o| (lo..=hi).contains(&h.get_i64(o)))
}

/// Converts `a` to the integer (or any) `dtype` it is written into or combined
/// with; a literal integer out of the dtype's range is E0307, as NumPy 2 raises
/// OverflowError for a Python int out of bounds, instead of wrapping silently.
pub fn convert(a: &Array, dtype: DType, span: Option<&Span>) -> Result<Array, Diagnostic> {
    check_fits(a, dtype, span)?;
    Ok(cast(a, dtype, span))
}

/// E0307 when `a` is a literal integer out of `dtype`'s range (`convert`'s check).
fn check_fits(a: &Array, dtype: DType, span: Option<&Span>) -> Result<(), Diagnostic> {
    if !weak_int_fits(a, dtype) {
        let d = shape::int_out_of_range(dtype);
        return Err(match span {
            Some(s) => d.or_span(s),
            None => d,
        });
    }
    Ok(())
}

/// A view of `a` broadcast to `shape` (already checked to be compatible).
pub fn broadcast_view(a: &Array, shape: &[usize]) -> Array {
    if a.shape() == shape {
        return a.clone();
    }
    a.with_view(a.view.broadcast_to(shape))
}

/// A contiguous copy of `a` (a fresh buffer, never a view).
pub fn copy(a: &Array, span: Option<&Span>) -> Array {
    Array::pending(Op::Copy, vec![a.clone()], a.dtype(), a.shape(), span.cloned())
}

/// Broadcasts operands together; `spans` label the operands in errors.
pub fn broadcast_all(
    arrays: &[&Array],
    spans: &[Option<Span>],
    what: &str,
    span: &Span,
) -> Result<Vec<usize>, Diagnostic> {
    // Every operation of every statement comes here: the common case in one
    // allocation, the checker's rules (with their diagnostics) otherwise.
    if let Some(out) = shape::broadcast_known(arrays.iter().map(|a| a.shape())) {
        shape::check_size(&out, span)?;
        return Ok(out);
    }
    let shapes: Vec<Vec<Option<usize>>> = arrays.iter().map(|a| dims(a.shape())).collect();
    let operands: Vec<Operand> = arrays
        .iter()
        .zip(&shapes)
        .enumerate()
        .map(|(k, (a, s))| Operand {
            dtype: Some(a.dtype()),
            shape: s,
            span: spans.get(k).cloned().flatten(),
        })
        .collect();
    let out: Vec<usize> = shape::broadcast(&operands, what, span)?
        .into_iter()
        .map(|d| d.unwrap_or(0))
        .collect();
    shape::check_size(&out, span)?;
    Ok(out)
}

fn dtype_error(op: &str, a: &Array, a_span: Option<&Span>, span: &Span, hint: &str) -> Diagnostic {
    let mut d = Diagnostic::new(
        "E0300",
        format!("`{op}` is not defined for {}", a.dtype()),
        span.clone(),
    )
    .with_hint(hint);
    if let Some(s) = a_span {
        d = d.with_label(s.clone(), format!("this is {}", type_of(a)));
    }
    d
}

/// The common dtype of two operands under NumPy 2 rules with weak scalars.
pub fn result_dtype(a: &Array, b: &Array) -> (DType, bool) {
    promote_weak(a.dtype(), a.weak, b.dtype(), b.weak)
}

/// `a op b` for every infix operator but `@`.
pub fn binary(
    op: BinOp,
    a: &Array,
    b: &Array,
    spans: (Option<&Span>, Option<&Span>),
    span: &Span,
) -> Result<Array, Diagnostic> {
    let (common, weak) = result_dtype(a, b);
    if op == BinOp::MatMul {
        return matmul(a, b, spans, span);
    }
    if op == BinOp::Pow
        && common.is_float()
        && let Some(y) = ready_scalar(b)
    {
        // NumPy's fast scalar powers of a float array: `x ** 0.5` is `sqrt(x)` and
        // `x ** -1` is `1 / x` (so -0.0 ** 0.5 is -0.0, as NumPy gives), instead of a pow
        // per element
        let x = cast(a, common, spans.0).with_weak(weak);
        if y == 0.5 {
            return unary(UnaryOp::Sqrt, "sqrt", &x, spans.0, span);
        }
        if y == -1.0 {
            return binary(BinOp::Div, &scalar(common, 1.0, true), &x, (spans.1, spans.0), span);
        }
    }
    let what = op.noun();
    let shape = broadcast_all(&[a, b], &[spans.0.cloned(), spans.1.cloned()], what, span)?;
    let (graph_op, compute, out) = match op {
        BinOp::And | BinOp::Or => {
            for (x, s) in [(a, spans.0), (b, spans.1)] {
                if x.dtype() != DType::Bool {
                    return Err(dtype_error(
                        op.symbol(),
                        x,
                        s,
                        span,
                        "`and` / `or` combine bools; compare first (`x > 0 and y > 0`)",
                    ));
                }
            }
            let g = if op == BinOp::And { BinaryOp::And } else { BinaryOp::Or };
            (g, DType::Bool, DType::Bool)
        }
        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            let g = match op {
                BinOp::Eq => BinaryOp::Eq,
                BinOp::Ne => BinaryOp::Ne,
                BinOp::Lt => BinaryOp::Lt,
                BinOp::Le => BinaryOp::Le,
                BinOp::Gt => BinaryOp::Gt,
                _ => BinaryOp::Ge,
            };
            // A literal beyond i32 compares exactly against i32 values (as in NumPy 2).
            let c = if weak_int_fits(a, common) && weak_int_fits(b, common) {
                common
            } else {
                DType::I64
            };
            (g, c, DType::Bool)
        }
        BinOp::Div => {
            let f = common.to_float();
            (BinaryOp::Div, f, f)
        }
        _ if let Some(bit) = BitOp::of(op) => {
            let c = bits_sig(
                bit,
                op.symbol(),
                [(Some(a.dtype()), spans.0), (Some(b.dtype()), spans.1)],
                Some(common),
                span,
            )?
            .unwrap_or(common);
            check_fits(a, c, spans.0)?;
            check_fits(b, c, spans.1)?;
            (BinaryOp::Bit(bit), c, c)
        }
        _ => {
            let g = match op {
                BinOp::Add => BinaryOp::Add,
                BinOp::Sub => BinaryOp::Sub,
                BinOp::Mul => BinaryOp::Mul,
                BinOp::Rem => BinaryOp::Rem,
                BinOp::FloorDiv => BinaryOp::FloorDiv,
                _ => BinaryOp::Pow,
            };
            // Arithmetic on bools counts: True + True is 2.
            let c = if common == DType::Bool {
                DType::DEFAULT_INT
            } else {
                common
            };
            check_fits(a, c, spans.0)?;
            check_fits(b, c, spans.1)?;
            (g, c, c)
        }
    };
    let inputs = vec![
        operand(a, compute, spans.0, &shape),
        operand(b, compute, spans.1, &shape),
    ];
    // a comparison's bools are strong, even of literals: `fn f(x) -> f32 { x > 2 }` is E0304
    let weak = weak && !(graph_op.is_comparison() || graph_op.is_logical());
    Ok(Array::pending(Op::Binary(graph_op), inputs, out, &shape, Some(span.clone())).with_weak(weak))
}

/// Elementwise binary function of two arrays (`minimum`, `maximum`, `atan2`).
pub fn binary_fn(
    op: BinaryOp,
    name: &str,
    a: &Array,
    b: &Array,
    spans: (Option<&Span>, Option<&Span>),
    span: &Span,
) -> Result<Array, Diagnostic> {
    let (mut common, weak) = result_dtype(a, b);
    match op {
        BinaryOp::Atan2 | BinaryOp::Hypot => common = common.to_float(),
        // floor_divide of bools counts, as `//` does
        BinaryOp::FloorDiv if common == DType::Bool => common = DType::DEFAULT_INT,
        _ => {}
    }
    let shape = broadcast_all(
        &[a, b],
        &[spans.0.cloned(), spans.1.cloned()],
        &format!("`{name}`"),
        span,
    )?;
    // a literal integer out of the other operand's integer dtype is E0307, as for the operators
    check_fits(a, common, spans.0)?;
    check_fits(b, common, spans.1)?;
    let inputs = vec![operand(a, common, spans.0, &shape), operand(b, common, spans.1, &shape)];
    Ok(Array::pending(Op::Binary(op), inputs, common, &shape, Some(span.clone())).with_weak(weak))
}

/// A literal integer bound of `clip` limited to the range of the integer
/// `dtype` it meets: below the range it clips nothing, above it nothing
/// either, as NumPy 2's `clip` of a Python int out of bounds (where
/// `maximum` and `minimum` raise). Anything else is returned as it is.
pub fn clamp_int_bound(bound: &Array, dtype: DType) -> Array {
    let Some((lo, hi)) = dtype.int_range() else {
        return bound.clone();
    };
    if !(bound.weak && bound.dtype() == DType::I64 && bound.rank() == 0) {
        return bound.clone();
    }
    match ready_i64(bound) {
        Some(v) if !(lo..=hi).contains(&v) => scalar_i64(v.clamp(lo, hi), true),
        _ => bound.clone(),
    }
}

/// The value of a realized rank-0 i64 array held on the host.
fn ready_i64(a: &Array) -> Option<i64> {
    let buffer = a.node.buffer()?;
    let storage = buffer.storage();
    match &*storage {
        super::Storage::Host(HostData::I64(v)) => v.get(a.view.offset).copied(),
        _ => None,
    }
}

/// An elementwise unary primitive, with the dtype rule of its line in the
/// primitive table (`check::prim::unary_sig`, which the checker calls too).
pub fn unary(op: UnaryOp, name: &str, a: &Array, a_span: Option<&Span>, span: &Span) -> Result<Array, Diagnostic> {
    let sig = unary_sig(op, name, a.dtype(), a_span, span)?;
    let op = op.on(a.dtype());
    Ok(match sig {
        UnarySig::Identity => a.clone(),
        UnarySig::Constant(v) => {
            let c = scalar(DType::Bool, if v { 1.0 } else { 0.0 }, false);
            full(a.shape(), &c, DType::Bool, span)?
        }
        UnarySig::Compute { input, out } => {
            let x = cast(a, input, a_span);
            Array::pending(Op::Unary(op), vec![x], out, a.shape(), Some(span.clone())).with_weak(a.weak)
        }
    })
}

/// `where(cond, a, b)` with broadcasting of all three.
pub fn select(c: &Array, a: &Array, b: &Array, spans: [Option<&Span>; 3], span: &Span) -> Result<Array, Diagnostic> {
    let shape = broadcast_all(
        &[c, a, b],
        &[spans[0].cloned(), spans[1].cloned(), spans[2].cloned()],
        "`where`",
        span,
    )?;
    let (dt, weak) = result_dtype(a, b);
    let cond = operand(c, DType::Bool, spans[0], &shape);
    let inputs = vec![cond, operand(a, dt, spans[1], &shape), operand(b, dt, spans[2], &shape)];
    Ok(Array::pending(Op::Where, inputs, dt, &shape, Some(span.clone())).with_weak(weak))
}

/// Adds back reduced axes as size 1 (keepdims), as a view.
fn keep_dims(a: Array, axes: &[usize]) -> Array {
    let mut view = a.view.clone();
    for &ax in axes {
        view = view.insert_axis(ax);
    }
    a.with_view(view)
}

/// A reduction over `axes` (None: all axes).
pub fn reduce(
    op: ReduceOp,
    a: &Array,
    axes: Option<Vec<usize>>,
    keepdims: bool,
    span: &Span,
) -> Result<Array, Diagnostic> {
    let axes = axes.unwrap_or_else(|| (0..a.rank()).collect());
    let input = match op {
        ReduceOp::Sum | ReduceOp::Prod => cast(a, accumulate_dtype(a.dtype()), None),
        ReduceOp::Any | ReduceOp::All => cast(a, DType::Bool, None),
        _ => a.clone(),
    };
    if matches!(op, ReduceOp::ArgMin | ReduceOp::ArgMax) && axes.len() != 1 {
        return Err(Diagnostic::new(
            "E0201",
            "argmin/argmax take exactly one axis",
            span.clone(),
        ));
    }
    let needs_items = matches!(op, ReduceOp::Min | ReduceOp::Max | ReduceOp::ArgMin | ReduceOp::ArgMax);
    if needs_items && axes.iter().any(|&ax| a.shape()[ax] == 0) {
        return Err(shape::empty_reduction(op_name(op), &type_of(a), span));
    }
    let out_shape: Vec<usize> = a
        .shape()
        .iter()
        .enumerate()
        .filter(|(k, _)| !axes.contains(k))
        .map(|(_, &d)| d)
        .collect();
    let out_dtype = match op {
        ReduceOp::ArgMin | ReduceOp::ArgMax => DType::I64,
        _ => input.dtype(),
    };
    let r = Array::pending(
        Op::Reduce { op, axes: axes.clone() },
        vec![input],
        out_dtype,
        &out_shape,
        Some(span.clone()),
    );
    Ok(if keepdims { keep_dims(r, &axes) } else { r })
}

fn op_name(op: ReduceOp) -> &'static str {
    match op {
        ReduceOp::Sum => "sum",
        ReduceOp::Prod => "product",
        ReduceOp::Min => "minimum",
        ReduceOp::Max => "maximum",
        ReduceOp::ArgMin => "argmin",
        ReduceOp::ArgMax => "argmax",
        ReduceOp::Any => "any",
        ReduceOp::All => "all",
    }
}

/// The mean: a float sum divided by the number of reduced elements. A half
/// float's mean is computed in f32 and rounded once, as NumPy's is: its sum
/// and count may exceed the half float's range (65504 for f16) although the
/// mean does not.
pub fn mean(a: &Array, axes: Option<Vec<usize>>, keepdims: bool, span: &Span) -> Result<Array, Diagnostic> {
    let float = a.dtype().to_float();
    let wide = float.compute();
    let axes = axes.unwrap_or_else(|| (0..a.rank()).collect());
    let count: usize = axes.iter().map(|&ax| a.shape()[ax]).product();
    let s = reduce(ReduceOp::Sum, &cast(a, wide, None), Some(axes), keepdims, span)?;
    let m = binary(BinOp::Div, &s, &scalar(wide, count as f64, true), (None, None), span)?;
    Ok(if wide == float { m } else { cast(&m, float, None) })
}

/// An inclusive scan along `axis` (None: over the flattened array).
pub fn scan(op: ScanOp, a: &Array, axis: Option<usize>, span: &Span) -> Result<Array, Diagnostic> {
    let (x, axis) = match axis {
        Some(ax) => (a.clone(), ax),
        None => (reshape(a, &[a.size()], span), 0),
    };
    let input = match op {
        ScanOp::Sum | ScanOp::Prod => cast(&x, accumulate_dtype(x.dtype()), None),
        _ => x,
    };
    let dt = input.dtype();
    let shape = input.shape().to_vec();
    Ok(Array::pending(
        Op::Scan { op, axis },
        vec![input],
        dt,
        &shape,
        Some(span.clone()),
    ))
}

/// The same elements in a new shape (a view when `a` is contiguous, else a copy first).
pub fn reshape(a: &Array, shape: &[usize], span: &Span) -> Array {
    match a.view.reshape(shape) {
        Some(view) => a.with_view(view),
        None => {
            let c = copy(a, Some(span));
            c.with_view(View::contiguous(shape))
        }
    }
}

/// `a @ b` (NumPy matmul: stacks of matrices broadcast, see `linalg`).
pub fn matmul(a: &Array, b: &Array, spans: (Option<&Span>, Option<&Span>), span: &Span) -> Result<Array, Diagnostic> {
    if a.dtype() == DType::Bool && b.dtype() == DType::Bool {
        // NumPy's bool @ bool is bool: whether any of the ands holds, that is
        // whether their count is nonzero (every backend's integer product, then a compare)
        let counts = matmul(
            &cast(a, DType::DEFAULT_INT, spans.0),
            &cast(b, DType::DEFAULT_INT, spans.1),
            spans,
            span,
        )?;
        return binary(BinOp::Ne, &counts, &scalar_i64(0, true), (None, None), span);
    }
    let (sa, sb) = (dims(a.shape()), dims(b.shape()));
    let out = shape::matmul_shape(
        &Operand {
            dtype: Some(a.dtype()),
            shape: &sa,
            span: spans.0.cloned(),
        },
        &Operand {
            dtype: Some(b.dtype()),
            shape: &sb,
            span: spans.1.cloned(),
        },
        span,
    )?;
    let (mut dt, _) = result_dtype(a, b);
    if dt == DType::Bool {
        dt = DType::DEFAULT_INT;
    }
    let a2 = cast(a, dt, spans.0);
    let b2 = cast(b, dt, spans.1);
    let a2 = if a.rank() == 1 {
        a2.with_view(a2.view.insert_axis(0))
    } else {
        a2
    };
    let b2 = if b.rank() == 1 {
        b2.with_view(b2.view.insert_axis(1))
    } else {
        b2
    };
    let out: Vec<usize> = out.into_iter().map(|d| d.unwrap_or(0)).collect();
    if a2.rank() > 2 || b2.rank() > 2 {
        let r = super::linalg::batched_matmul(&a2, &b2, dt, span)?;
        return Ok(reshape(&r, &out, span));
    }
    let (m, n) = (a2.shape()[0], b2.shape()[1]);
    let r = Array::pending(Op::MatMul, vec![a2, b2], dt, &[m, n], Some(span.clone()));
    Ok(r.with_view(r.view.reshape(&out).unwrap_or_else(|| View::contiguous(&out))))
}

/// Joins arrays along an existing axis (dtypes promoted).
pub fn concat(arrays: &[Array], spans: &[Span], axis: i64, span: &Span) -> Result<Array, Diagnostic> {
    let Some(first) = arrays.first() else {
        return Err(Diagnostic::new(
            "E0206",
            "concat needs at least one array",
            span.clone(),
        ));
    };
    let rank = first.rank();
    if rank == 0 {
        return Err(
            Diagnostic::new("E0206", "rank-0 arrays cannot be concatenated", span.clone())
                .with_hint("use `stack` to make a new axis, or write an array literal"),
        );
    }
    let ax = shape::normalize_axis(axis, rank, span)?;
    let mut dt = first.dtype();
    let mut weak = first.weak;
    for (k, a) in arrays.iter().enumerate() {
        let same_except_axis = a.rank() == rank && (0..rank).all(|i| i == ax || a.shape()[i] == first.shape()[i]);
        if !same_except_axis {
            let d = Diagnostic::new(
                "E0206",
                format!("cannot join {} and {} along axis {ax}", type_of(first), type_of(a)),
                span.clone(),
            )
            .with_hint("all arrays must have the same rank and the same sizes on every other axis");
            return Err(label_pair(d, spans, k, first, a));
        }
        (dt, weak) = promote_weak(dt, weak, a.dtype(), a.weak);
    }
    let mut shape = first.shape().to_vec();
    shape[ax] = arrays.iter().map(|a| a.shape()[ax]).sum();
    let inputs = arrays.iter().zip(spans).map(|(a, s)| cast(a, dt, Some(s))).collect();
    Ok(Array::pending(
        Op::Concat { axis: ax },
        inputs,
        dt,
        &shape,
        Some(span.clone()),
    ))
}

/// Joins arrays of one shape along a new axis.
pub fn stack(arrays: &[Array], spans: &[Span], axis: i64, span: &Span) -> Result<Array, Diagnostic> {
    let Some(first) = arrays.first() else {
        return Err(Diagnostic::new("E0206", "stack needs at least one array", span.clone()));
    };
    let ax = shape::normalize_axis(axis, first.rank() + 1, span)?;
    for (k, a) in arrays.iter().enumerate() {
        if a.shape() != first.shape() {
            let d = Diagnostic::new(
                "E0206",
                format!("cannot stack {} and {}", type_of(first), type_of(a)),
                span.clone(),
            )
            .with_hint("stacked arrays must all have the same shape");
            return Err(label_pair(d, spans, k, first, a));
        }
    }
    let expanded: Vec<Array> = arrays.iter().map(|a| a.with_view(a.view.insert_axis(ax))).collect();
    concat(&expanded, spans, ax as i64, span)
}

/// Labels the first and the k-th of several joined arrays, when they were written apart.
fn label_pair(d: Diagnostic, spans: &[Span], k: usize, first: &Array, other: &Array) -> Diagnostic {
    if spans[0] == spans[k] {
        return d;
    }
    d.with_label(spans[0].clone(), format!("this is {}", type_of(first)))
        .with_label(spans[k].clone(), format!("this is {}", type_of(other)))
}

/// A bad `lengths` or `offsets` argument of a segmented reduction (E0211).
fn segment_error(message: String, arg: Option<&Span>, span: &Span, hint: &str) -> Diagnostic {
    let mut d = Diagnostic::new("E0211", message, arg.cloned().unwrap_or_else(|| span.clone())).with_hint(hint);
    if arg.is_some() {
        d = d.with_label(span.clone(), "in this segmented reduction");
    }
    d
}

/// Offsets (`lengths.len() + 1` of them) from segment lengths that must be
/// non-negative and add up to the number of values.
pub fn segment_offsets_from_lengths(
    lengths: &[i64],
    n_values: usize,
    arg: Option<&Span>,
    span: &Span,
) -> Result<Vec<i64>, Diagnostic> {
    let mut offsets = Vec::with_capacity(lengths.len() + 1);
    let mut total: i128 = 0;
    offsets.push(0);
    for (k, &l) in lengths.iter().enumerate() {
        if l < 0 {
            return Err(segment_error(
                format!("segment lengths must not be negative: lengths[{k}] is {l}"),
                arg,
                span,
                "a segment may be empty (length 0), never negative",
            ));
        }
        total += l as i128;
        offsets.push(total.min(i64::MAX as i128) as i64);
    }
    if total != n_values as i128 {
        return Err(segment_error(
            format!("the segment lengths add up to {total}, but there are {n_values} values"),
            arg,
            span,
            "every value belongs to exactly one segment: the lengths must sum to len(values)",
        ));
    }
    Ok(offsets)
}

/// Checks offsets given directly: start at 0, never decrease, end at the number of values.
pub fn check_segment_offsets(
    offsets: &[i64],
    n_values: usize,
    arg: Option<&Span>,
    span: &Span,
) -> Result<(), Diagnostic> {
    let hint = "offsets are 0, then each segment's end: [0, 3, 3, 7] is segments of 3, 0 and 4 values";
    match (offsets.first(), offsets.last()) {
        (None, _) => {
            return Err(segment_error(
                "offsets need at least one entry (0 for no segments)".into(),
                arg,
                span,
                hint,
            ));
        }
        (Some(&first), _) if first != 0 => {
            return Err(segment_error(
                format!("offsets must start at 0, not {first}"),
                arg,
                span,
                hint,
            ));
        }
        (_, Some(&last)) if last != n_values as i64 => {
            return Err(segment_error(
                format!("the offsets end at {last}, but there are {n_values} values"),
                arg,
                span,
                hint,
            ));
        }
        _ => {}
    }
    if let Some(k) = offsets.windows(2).position(|w| w[1] < w[0]) {
        return Err(segment_error(
            format!(
                "offsets must not decrease: offsets[{}] = {} follows {}",
                k + 1,
                offsets[k + 1],
                offsets[k]
            ),
            arg,
            span,
            hint,
        ));
    }
    Ok(())
}

/// Segmented reductions take 1-D values (E0211 otherwise).
pub fn check_segment_values(values: &Array, values_span: Option<&Span>, span: &Span) -> Result<(), Diagnostic> {
    if values.rank() == 1 {
        return Ok(());
    }
    let mut d = Diagnostic::new(
        "E0211",
        format!("segmented reductions take 1-D values, not {}", type_of(values)),
        values_span.cloned().unwrap_or_else(|| span.clone()),
    )
    .with_hint("flatten the values first: segsum(flatten(x), lengths)");
    if values_span.is_some() {
        d = d.with_label(span.clone(), "in this segmented reduction");
    }
    Err(d)
}

/// A ragged segmented reduction of 1-D `values` over the segments of
/// `index` (sum, prod, min or max); empty segments give the identity.
pub fn segment(
    op: ReduceOp,
    values: &Array,
    index: &SegmentIndex,
    values_span: Option<&Span>,
    span: &Span,
) -> Result<Array, Diagnostic> {
    check_segment_values(values, values_span, span)?;
    let input = match op {
        ReduceOp::Sum | ReduceOp::Prod => cast(values, accumulate_dtype(values.dtype()), None),
        _ => values.clone(),
    };
    let dt = input.dtype();
    Ok(Array::pending(
        Op::Segment {
            op,
            layout: index.layout,
        },
        vec![input, index.offsets.clone(), index.table.clone()],
        dt,
        &[index.segments()],
        Some(span.clone()),
    ))
}

/// The mean of each segment: a float sum over the segment lengths (NaN for an empty segment).
pub fn segment_mean(
    values: &Array,
    index: &SegmentIndex,
    values_span: Option<&Span>,
    span: &Span,
) -> Result<Array, Diagnostic> {
    let float = values.dtype().to_float();
    let s = segment(ReduceOp::Sum, &cast(values, float, None), index, values_span, span)?;
    let (ends, starts) = index.ends_and_starts();
    let counts = cast(&binary(BinOp::Sub, &ends, &starts, (None, None), span)?, float, None);
    binary(BinOp::Div, &s, &counts, (None, None), span)
}

/// `start + i * step` for i in 0..n.
pub fn arange(start: f64, step: f64, n: usize, dtype: DType, span: &Span) -> Array {
    Array::pending(Op::Arange { start, step }, vec![], dtype, &[n], Some(span.clone()))
}

/// A fresh array of `shape` filled with a scalar.
pub fn full(shape: &[usize], value: &Array, dtype: DType, span: &Span) -> Result<Array, Diagnostic> {
    // The value broadcasts to the shape (NumPy's `full` does the same), one way only.
    crate::check::shape::check_fill(value.shape(), shape, span)?;
    // a literal integer out of an integer dtype's range is E0307 (NumPy 2's OverflowError)
    let v = convert(value, dtype, None).map_err(|d| d.or_span(span))?;
    Ok(copy(&broadcast_view(&v, shape), Some(span)))
}

/// A weak (literal-like) scalar of `dtype`'s kind.
fn weak(dtype: DType, v: f64) -> Array {
    scalar(if dtype.is_float() { DType::F64 } else { DType::I64 }, v, true)
}

fn un(op: UnaryOp, a: &Array, span: &Span) -> Result<Array, Diagnostic> {
    unary(op, op.name(), a, None, span)
}

fn bin(op: BinOp, a: &Array, b: &Array, span: &Span) -> Result<Array, Diagnostic> {
    binary(op, a, b, (None, None), span)
}

/// NumPy's `nan_to_num`: NaN, +inf and -inf replaced (by default 0 and the
/// dtype's extreme finite values); integers and bools unchanged (a copy).
pub fn nan_to_num(
    x: &Array,
    nan: f64,
    posinf: Option<f64>,
    neginf: Option<f64>,
    span: &Span,
) -> Result<Array, Diagnostic> {
    let dt = x.dtype();
    if !dt.is_float() {
        return Ok(copy(x, Some(span)));
    }
    let big = if dt == DType::F32 { f32::MAX as f64 } else { f64::MAX };
    let none = [None, None, None];
    let r = select(&un(UnaryOp::IsNan, x, span)?, &weak(dt, nan), x, none, span)?;
    let pos = bin(BinOp::Eq, x, &weak(dt, f64::INFINITY), span)?;
    let r = select(&pos, &weak(dt, posinf.unwrap_or(big)), &r, none, span)?;
    let neg = bin(BinOp::Eq, x, &weak(dt, f64::NEG_INFINITY), span)?;
    let r = select(&neg, &weak(dt, neginf.unwrap_or(-big)), &r, none, span)?;
    Ok(cast(&r, dt, Some(span)))
}

/// NumPy's `isclose` (broadcasting): `|a - b| <= atol + rtol * |b|` where b
/// is finite, else `a == b`; NaNs close to each other only with `equal_nan`.
/// Computed in the operands' float dtype, as NumPy does.
#[allow(clippy::too_many_arguments)]
pub fn isclose(
    a: &Array,
    b: &Array,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
    spans: (Option<&Span>, Option<&Span>),
    span: &Span,
) -> Result<Array, Diagnostic> {
    broadcast_all(&[a, b], &[spans.0.cloned(), spans.1.cloned()], "`isclose`", span)?;
    let (common, _) = result_dtype(a, b);
    let f = common.to_float();
    let (x, y) = (cast(a, f, spans.0), cast(b, f, spans.1));
    let diff = un(UnaryOp::Abs, &bin(BinOp::Sub, &x, &y, span)?, span)?;
    let tol = bin(
        BinOp::Add,
        &weak(f, atol),
        &bin(BinOp::Mul, &weak(f, rtol), &un(UnaryOp::Abs, &y, span)?, span)?,
        span,
    )?;
    let within = bin(BinOp::Le, &diff, &tol, span)?;
    let finite = bin(BinOp::And, &within, &un(UnaryOp::IsFinite, &y, span)?, span)?;
    let mut r = bin(BinOp::Or, &finite, &bin(BinOp::Eq, &x, &y, span)?, span)?;
    if equal_nan {
        let both = bin(
            BinOp::And,
            &un(UnaryOp::IsNan, &x, span)?,
            &un(UnaryOp::IsNan, &y, span)?,
            span,
        )?;
        r = bin(BinOp::Or, &r, &both, span)?;
    }
    Ok(r)
}

/// NumPy's `array_equal`: false for different shapes (never an error),
/// else whether every element is equal (NaNs equal only with `equal_nan`).
pub fn array_equal(a: &Array, b: &Array, equal_nan: bool, span: &Span) -> Result<Array, Diagnostic> {
    if a.shape() != b.shape() {
        return Ok(scalar(DType::Bool, 0.0, false));
    }
    let mut eq = bin(BinOp::Eq, a, b, span)?;
    if equal_nan {
        let both = bin(
            BinOp::And,
            &un(UnaryOp::IsNan, a, span)?,
            &un(UnaryOp::IsNan, b, span)?,
            span,
        )?;
        eq = bin(BinOp::Or, &eq, &both, span)?;
    }
    reduce(ReduceOp::All, &eq, None, false, span)
}

/// Which NaN-ignoring reduction (`nansum`, `nanmean`, `nanmin`, `nanmax`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NanReduce {
    Sum,
    Mean,
    Min,
    Max,
}

/// A reduction that skips NaNs, as NumPy's `nan*` functions: a NaN counts as
/// the identity; an all-NaN slice gives NaN for min, max and mean, 0 for sum.
/// On integers and bools (no NaNs) it is the plain reduction.
pub fn nan_reduce(
    which: NanReduce,
    a: &Array,
    axes: Option<Vec<usize>>,
    keepdims: bool,
    span: &Span,
) -> Result<Array, Diagnostic> {
    let plain = match which {
        NanReduce::Sum => ReduceOp::Sum,
        NanReduce::Min => ReduceOp::Min,
        NanReduce::Max => ReduceOp::Max,
        NanReduce::Mean => return nan_mean(a, axes, keepdims, span),
    };
    let dt = a.dtype();
    if !dt.is_float() {
        return reduce(plain, a, axes, keepdims, span);
    }
    let none = [None, None, None];
    let nan = un(UnaryOp::IsNan, a, span)?;
    let fill = match which {
        NanReduce::Min => f64::INFINITY,
        NanReduce::Max => f64::NEG_INFINITY,
        _ => 0.0,
    };
    let masked = select(&nan, &weak(dt, fill), a, none, span)?;
    let r = reduce(plain, &masked, axes.clone(), keepdims, span)?;
    if which == NanReduce::Sum {
        return Ok(r);
    }
    let all_nan = reduce(ReduceOp::All, &nan, axes, keepdims, span)?;
    let r = select(&all_nan, &weak(dt, f64::NAN), &r, none, span)?;
    Ok(cast(&r, dt, Some(span)))
}

fn nan_mean(a: &Array, axes: Option<Vec<usize>>, keepdims: bool, span: &Span) -> Result<Array, Diagnostic> {
    if !a.dtype().is_float() {
        return mean(a, axes, keepdims, span);
    }
    let dt = a.dtype();
    let nan = un(UnaryOp::IsNan, a, span)?;
    let s = nan_reduce(NanReduce::Sum, a, axes.clone(), keepdims, span)?;
    let count = reduce(ReduceOp::Sum, &un(UnaryOp::Not, &nan, span)?, axes, keepdims, span)?;
    let r = bin(BinOp::Div, &s, &cast(&count, dt, None), span)?;
    Ok(cast(&r, dt, Some(span)))
}

/// NumPy's `where=` and `initial=` of a reduction, each with its argument's span.
#[derive(Clone, Default)]
pub struct ReduceExtras {
    /// Which elements take part: a mask that broadcasts to the operand's shape.
    pub mask: Option<(Array, Span)>,
    /// A scalar folded into every result.
    pub initial: Option<(Array, Span)>,
}

impl ReduceExtras {
    pub fn is_empty(&self) -> bool {
        self.mask.is_none() && self.initial.is_none()
    }
}

/// `where=`'s mask as bools broadcast to `a`'s shape (`shape::check_reduce_mask`).
fn reduce_mask(mask: &(Array, Span), a: &Array) -> Result<Array, Diagnostic> {
    let (m, at) = mask;
    shape::check_reduce_mask(&dims(m.shape()), Some(m.dtype()), &dims(a.shape()), at)?;
    Ok(broadcast_view(&cast(m, DType::Bool, None), a.shape()))
}

/// `initial=` as a scalar of `dtype` (converted as NumPy converts it to the
/// reduction's dtype; `shape::check_reduce_initial`).
fn reduce_initial(initial: &(Array, Span), dtype: DType) -> Result<Array, Diagnostic> {
    let (v, at) = initial;
    shape::check_reduce_initial(&dims(v.shape()), Some(v.dtype()), at)?;
    Ok(cast(&reshape(v, &[], at), dtype, None).with_weak(false))
}

/// `reduce` with NumPy's `where=` and `initial=`: the masked-out elements
/// count as the identity (as `initial` for min and max, which need it with a
/// mask), and `initial` is folded into every result, so a zero-length axis
/// gives it. `name` is the function's, for the error of a mask without
/// `initial`.
pub fn reduce_with(
    op: ReduceOp,
    name: &str,
    a: &Array,
    axes: Option<Vec<usize>>,
    keepdims: bool,
    extras: &ReduceExtras,
    span: &Span,
) -> Result<Array, Diagnostic> {
    if extras.is_empty() {
        return reduce(op, a, axes, keepdims, span);
    }
    let axes = axes.unwrap_or_else(|| (0..a.rank()).collect());
    let extreme = matches!(op, ReduceOp::Min | ReduceOp::Max);
    let out_dtype = match op {
        ReduceOp::Sum | ReduceOp::Prod => accumulate_dtype(a.dtype()),
        ReduceOp::Any | ReduceOp::All => DType::Bool,
        _ => a.dtype(),
    };
    let initial = match &extras.initial {
        Some(i) => Some(reduce_initial(i, out_dtype)?),
        None => None,
    };
    let none = [None, None, None];
    let x = match &extras.mask {
        None => a.clone(),
        Some(mask) => {
            let m = reduce_mask(mask, a)?;
            let fill = match (op, &initial) {
                (ReduceOp::Sum, _) => weak(a.dtype(), 0.0),
                (ReduceOp::Prod, _) => weak(a.dtype(), 1.0),
                (ReduceOp::Any, _) => scalar(DType::Bool, 0.0, true),
                (ReduceOp::All, _) => scalar(DType::Bool, 1.0, true),
                (_, Some(init)) if extreme => cast(init, a.dtype(), None),
                _ => return Err(shape::mask_needs_initial(name, span)),
            };
            let picked = select(&m, a, &fill, none, span)?;
            // the fill must not change the operand's dtype (a float fill of ints)
            cast(&picked, a.dtype(), None)
        }
    };
    let Some(init) = initial else {
        return reduce(op, &x, Some(axes), keepdims, span);
    };
    if extreme && axes.iter().any(|&ax| a.shape()[ax] == 0) {
        return full(&reduced_shape(a, &axes, keepdims), &init, out_dtype, span);
    }
    let r = reduce(op, &x, Some(axes), keepdims, span)?;
    let folded = match op {
        ReduceOp::Sum => bin(BinOp::Add, &r, &init, span)?,
        ReduceOp::Prod => bin(BinOp::Mul, &r, &init, span)?,
        ReduceOp::Min => binary_fn(BinaryOp::Min, "min", &r, &init, (None, None), span)?,
        ReduceOp::Max => binary_fn(BinaryOp::Max, "max", &r, &init, (None, None), span)?,
        _ => r,
    };
    Ok(cast(&folded, out_dtype, None))
}

/// `a`'s shape without `axes` (as 1 with `keepdims`).
fn reduced_shape(a: &Array, axes: &[usize], keepdims: bool) -> Vec<usize> {
    (0..a.rank())
        .filter_map(|k| match axes.contains(&k) {
            true => keepdims.then_some(1),
            false => Some(a.shape()[k]),
        })
        .collect()
}

/// `mean` of the elements where `where=`'s mask is true: their sum over
/// their count (NaN where there are none, as NumPy's 0/0).
pub fn mean_with(
    a: &Array,
    axes: Option<Vec<usize>>,
    keepdims: bool,
    mask: Option<&(Array, Span)>,
    span: &Span,
) -> Result<Array, Diagnostic> {
    let Some(mask) = mask else {
        return mean(a, axes, keepdims, span);
    };
    let float = a.dtype().to_float();
    let wide = float.compute();
    let m = reduce_mask(mask, a)?;
    let picked = cast(
        &select(&m, &cast(a, wide, None), &weak(wide, 0.0), [None, None, None], span)?,
        wide,
        None,
    );
    let s = reduce(ReduceOp::Sum, &picked, axes.clone(), keepdims, span)?;
    let count = reduce(ReduceOp::Sum, &m, axes, keepdims, span)?;
    let r = bin(BinOp::Div, &s, &cast(&count, wide, None), span)?;
    Ok(cast(&r, float, None))
}

/// `nan_reduce` with `where=` and `initial=`: a masked-out element counts as
/// a NaN (skipped), and `initial` is folded in as NumPy's `fmax`/`fmin`
/// fold it, so an all-NaN slice gives `initial` rather than NaN.
pub fn nan_reduce_with(
    which: NanReduce,
    name: &str,
    a: &Array,
    axes: Option<Vec<usize>>,
    keepdims: bool,
    extras: &ReduceExtras,
    span: &Span,
) -> Result<Array, Diagnostic> {
    if extras.is_empty() {
        return nan_reduce(which, a, axes, keepdims, span);
    }
    let plain = match which {
        NanReduce::Sum => ReduceOp::Sum,
        NanReduce::Min => ReduceOp::Min,
        NanReduce::Max => ReduceOp::Max,
        NanReduce::Mean => return mean_with_nan(a, axes, keepdims, extras.mask.as_ref(), span),
    };
    let dt = a.dtype();
    if !dt.is_float() {
        return reduce_with(plain, name, a, axes, keepdims, extras, span);
    }
    let axes = axes.unwrap_or_else(|| (0..a.rank()).collect());
    let none = [None, None, None];
    let x = match &extras.mask {
        Some(mask) if extras.initial.is_some() || which == NanReduce::Sum => {
            let m = reduce_mask(mask, a)?;
            cast(&select(&m, a, &weak(dt, f64::NAN), none, span)?, dt, None)
        }
        Some(_) => return Err(shape::mask_needs_initial(name, span)),
        None => a.clone(),
    };
    let Some(initial) = &extras.initial else {
        return nan_reduce(which, &x, Some(axes), keepdims, span);
    };
    let init = reduce_initial(initial, dt)?;
    if which != NanReduce::Sum && axes.iter().any(|&ax| a.shape()[ax] == 0) {
        return full(&reduced_shape(a, &axes, keepdims), &init, dt, span);
    }
    let r = nan_reduce(which, &x, Some(axes), keepdims, span)?;
    let folded = match which {
        NanReduce::Sum => bin(BinOp::Add, &r, &init, span)?,
        _ => {
            let op = if which == NanReduce::Min {
                BinaryOp::Min
            } else {
                BinaryOp::Max
            };
            let m = binary_fn(op, name, &r, &init, (None, None), span)?;
            select(&un(UnaryOp::IsNan, &r, span)?, &init, &m, none, span)?
        }
    };
    Ok(cast(&folded, dt, None))
}

/// `nanmean` of the elements where `mask` is true (each masked-out one a NaN).
fn mean_with_nan(
    a: &Array,
    axes: Option<Vec<usize>>,
    keepdims: bool,
    mask: Option<&(Array, Span)>,
    span: &Span,
) -> Result<Array, Diagnostic> {
    let Some(mask) = mask else {
        return nan_mean(a, axes, keepdims, span);
    };
    if !a.dtype().is_float() {
        return mean_with(a, axes, keepdims, Some(mask), span);
    }
    let m = reduce_mask(mask, a)?;
    let x = cast(
        &select(&m, a, &weak(a.dtype(), f64::NAN), [None, None, None], span)?,
        a.dtype(),
        None,
    );
    nan_mean(&x, axes, keepdims, span)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpu::CpuBackend;

    #[test]
    fn weak_scalar_keeps_dtype() {
        let a = Array::from_host(HostData::F32(vec![1.0, 2.0]), &[2]);
        let r = binary(BinOp::Mul, &a, &scalar(DType::F32, 2.0, true), (None, None), &(0..1)).unwrap();
        assert_eq!(r.dtype(), DType::F32);
        let i = Array::from_host(HostData::I32(vec![1, 2]), &[2]);
        let r = binary(BinOp::Div, &i, &scalar_i64(2, true), (None, None), &(0..1)).unwrap();
        assert!(r.dtype().is_float());
    }

    #[test]
    fn broadcast_mismatch_is_e0200() {
        let a = Array::from_host(HostData::F32(vec![0.0; 12]), &[3, 4]);
        let b = Array::from_host(HostData::F32(vec![0.0; 5]), &[5]);
        let e = binary(BinOp::Add, &a, &b, (Some(&(0..1)), Some(&(4..5))), &(0..5))
            .err()
            .unwrap();
        assert_eq!(e.code, "E0200");
    }

    #[test]
    fn graph_is_lazy_until_realized() {
        let a = Array::from_host(HostData::F32(vec![1.0, 2.0, 3.0]), &[3]);
        let s = reduce(ReduceOp::Sum, &a, None, false, &(0..1)).unwrap();
        assert!(!s.is_ready());
        let _ = CpuBackend::new();
    }
}
