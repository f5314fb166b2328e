//! Run-time behaviour of the builtins declared in `check::builtins`.

use super::value::Value;
use super::{Interp, R};
use crate::check::builtins::{Builtin, ParamKind};
use crate::check::dtype::DType;
use crate::check::shape::{self, Operand, dims};
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::{BinaryOp, Distribution, Op, ReduceOp, ScanOp, UnaryOp};
use crate::graph::segment_index::{SegmentIndex, SegmentsGiven};
use crate::graph::{self, Array, build};
use crate::syntax::ast::{Arg, BinOp, Span};
use std::rc::Rc;

type Slot = Option<(Value, Span)>;

/// The slot of builtin `name`'s parameter `param`, if it has one and it was given.
fn named_slot<'s>(slots: &'s [Slot], name: &str, param: &str) -> Option<&'s (Value, Span)> {
    let b = crate::check::builtins::find(name)?;
    let k = b.params.iter().position(|p| p.name == param)?;
    slots.get(k)?.as_ref()
}

impl Interp {
    pub(super) fn call_builtin(&mut self, b: &'static Builtin, args: &[Arg], span: &Span) -> R<Value> {
        let sequence = shape::is_join(b.name);
        let values = self.eval_args(args, sequence)?;
        let (mut slots, rest) = b.bind(values, span)?;
        // `array(shape(x))`, `prod(shape(x)[1:])`: a tuple of arrays of one shape given
        // for an array is the array of them, as NumPy takes a tuple for an array
        for (p, slot) in b.params.iter().zip(slots.iter_mut()) {
            if p.kind == ParamKind::Array
                && !sequence
                && let Some((Value::Tuple(items), s)) = slot
                && let Some(stacked) = self.tuple_array(items, s)?
            {
                *slot = Some((Value::Array(stacked), s.clone()));
            }
        }
        for (p, slot) in b.params.iter().zip(slots.iter_mut()) {
            // `none` for an optional array is the array left out, as NumPy's `None`
            if p.kind == ParamKind::Array && !p.required && matches!(slot, Some((Value::None, _))) {
                *slot = None;
            }
        }
        for (k, slot) in slots.iter().enumerate() {
            match slot {
                Some((Value::Str(v), s)) => b.check_choice(k, v, s)?,
                Some((Value::Tuple(_), s)) => b.one_integer(k, s)?,
                Some((Value::Array(a), s)) if a.rank() > 0 => b.one_integer(k, s)?,
                _ => {}
            }
        }
        for (p, slot) in b.params.iter().zip(&slots) {
            if p.kind == ParamKind::Array
                && !sequence
                && let Some((v, s)) = slot
                && !matches!(v, Value::Array(_))
            {
                return Err(b.not_an_array(p, v.kind_name(), s));
            }
        }
        // `out=`: the result is written into that array, which is the call's value
        let out = b.out_param().and_then(|k| slots[k].take());
        let result = self.run_builtin(b.name, slots, rest, span)?;
        match out {
            None => Ok(result),
            Some((Value::Array(out), out_span)) => self.write_out(b, out, result, &out_span, span),
            Some((v, at)) => Err(Diagnostic::new(
                "E0499",
                format!("internal: `out` is {}", v.kind_name()),
                at,
            )),
        }
    }

    /// `f(..., out=out)`, as NumPy's: `result` (which must have `out`'s shape,
    /// or broadcast to it for an elementwise builtin, and cast to its dtype by
    /// NumPy's "same_kind" rule, `shape::check_out`) is
    /// written into `out`'s memory, so every other name for it sees the values,
    /// and the call's value is `out` itself.
    fn write_out(&mut self, b: &Builtin, out: Array, result: Value, out_span: &Span, span: &Span) -> R<Value> {
        let result = self.expect_array(result, span)?;
        shape::check_out(
            b.name,
            (Some(out.dtype()), &dims(out.shape())),
            (Some(result.dtype()), Some(&dims(result.shape()))),
            b.out_broadcasts(),
            (out_span, span),
        )?;
        super::writable(&out, out_span)?;
        graph::realize(&*self.backend, &[&out])?;
        self.write_into(&out, result, span, span)?;
        Ok(Value::Array(out))
    }

    fn arr(&self, slot: &Slot) -> Array {
        match slot {
            Some((Value::Array(a), _)) => a.clone(),
            // bind() and call_builtin() guarantee required array slots are arrays
            _ => build::scalar(DType::Bool, 0.0, true),
        }
    }

    fn run_builtin(&mut self, name: &str, s: Vec<Slot>, rest: Vec<(Value, Span)>, span: &Span) -> R<Value> {
        let name = crate::check::builtins::canonical(name);
        let sp = |k: usize| s[k].as_ref().map(|x| x.1.clone());
        let val = |k: usize| s[k].as_ref().map(|x| &x.0);
        let a = |this: &Self, k: usize| this.arr(&s[k]);
        let out = |x: Array| Ok(Value::Array(x));
        // the unary primitives, from their lines in `check::prim`
        if name == "round"
            && let Some((d, ds)) = s.get(1).and_then(|d| d.as_ref())
            && !matches!(d, Value::None)
        {
            let decimals = self.static_int(d, ds)?;
            return out(round_to(&a(self, 0), decimals, sp(0).as_ref(), span)?);
        }
        if let Some(op) = UnaryOp::from_name(name) {
            // the NumPy function takes numbers too (the operator `not` only bools)
            let x = if name == "logical_not" {
                truth(a(self, 0), sp(0), span)?
            } else {
                a(self, 0)
            };
            return out(build::unary(op, name, &x, sp(0).as_ref(), span)?);
        }
        if let Some(op) = crate::check::builtins::operator_function(name) {
            let spans = (sp(0), sp(1));
            return out(build::binary(
                op,
                &a(self, 0),
                &a(self, 1),
                (spans.0.as_ref(), spans.1.as_ref()),
                span,
            )?);
        }
        match name {
            // ---- creation
            "zeros" | "ones" | "rand" | "randn" => {
                let (v, vs) = s[0].as_ref().map(|x| (&x.0, &x.1)).ok_or_else(|| missing(span))?;
                let shape = self.static_shape(v, vs)?;
                let dt = self.static_dtype(s[1].as_ref())?.unwrap_or(DType::DEFAULT_FLOAT);
                match name {
                    "zeros" => out(build::full(&shape, &build::scalar(dt, 0.0, false), dt, span)?),
                    "ones" => out(build::full(&shape, &build::scalar(dt, 1.0, false), dt, span)?),
                    _ => {
                        if !dt.is_float() {
                            return Err(Diagnostic::new(
                                "E0300",
                                format!("`{name}` makes floats, not {dt}"),
                                sp(1).unwrap_or(span.clone()),
                            )
                            .with_hint("use f32 or f64, and cast afterwards if needed"));
                        }
                        let dist = if name == "rand" {
                            Distribution::Uniform
                        } else {
                            Distribution::Normal
                        };
                        let key = self.next_random_key();
                        out(Array::pending(
                            Op::Random { key, dist },
                            vec![],
                            dt,
                            &shape,
                            Some(span.clone()),
                        ))
                    }
                }
            }
            "full" => {
                let shape = self.static_shape(val(0).unwrap_or(&Value::None), &sp(0).unwrap_or(span.clone()))?;
                let v = a(self, 1);
                let dt = self.static_dtype(s[2].as_ref())?.unwrap_or_else(|| default_dtype(&v));
                out(build::full(&shape, &v, dt, span)?)
            }
            "zeros_like" | "ones_like" | "full_like" => {
                let x = a(self, 0);
                let (v, dslot) = match name {
                    "zeros_like" => (build::scalar(DType::F64, 0.0, true), 1),
                    "ones_like" => (build::scalar(DType::F64, 1.0, true), 1),
                    _ => (a(self, 1), 2),
                };
                let dt = self.static_dtype(s[dslot].as_ref())?.unwrap_or(x.dtype());
                out(build::full(x.shape(), &v, dt, span)?)
            }
            "array" | "asarray" => {
                let x = a(self, 0);
                // an array, unlike a literal, keeps its dtype beside numbers (`array([1], dtype=i32) + 1` is i32)
                let made = match self.static_dtype(s[1].as_ref())? {
                    // a list of literal integers out of an integer dtype is E0307, as NumPy 2 raises
                    Some(dt) if dt != x.dtype() => build::convert(&x, dt, Some(span))?,
                    _ if name == "array" => build::copy(&x, Some(span)),
                    _ => x,
                };
                out(made.with_weak(false))
            }
            "copy" => out(build::copy(&a(self, 0), Some(span))),
            "realize" => {
                let x = a(self, 0);
                graph::realize(&*self.backend, &[&x]).map_err(|d| d.or_span(span))?;
                out(x)
            }
            "seed" => {
                let n = self.static_int(val(0).unwrap_or(&Value::None), &sp(0).unwrap_or(span.clone()))?;
                self.set_seed(n as u64);
                Ok(Value::Unit)
            }
            "arange" => {
                let nums: Vec<Option<shape::RangeNum>> = (0..3)
                    .map(|k| match &s[k] {
                        None | Some((Value::None, _)) => Ok(None),
                        Some((v, vs)) => {
                            // Integer bounds stay integers: f64 cannot hold every i64 (2^53 + 1).
                            if matches!(v, Value::Array(x) if !x.dtype().is_float()) {
                                self.static_int_named(v, vs, "an arange bound")
                                    .map(|i| Some(shape::RangeNum::Int(i)))
                            } else {
                                self.static_f64(v, vs, "an arange bound")
                                    .map(|f| Some(shape::RangeNum::Float(f)))
                            }
                        }
                    })
                    .collect::<R<_>>()?;
                let (start, stop) = match (nums[0], nums[1]) {
                    (Some(a), Some(b)) => (a, b),
                    (Some(a), None) => (shape::RangeNum::Int(0), a),
                    _ => return Err(missing(span)),
                };
                let step = nums[2].unwrap_or(shape::RangeNum::Int(1));
                let step_span = sp(2).unwrap_or(span.clone());
                let range = shape::arange_range(start, stop, step, span, &step_span)?;
                let dt = self.static_dtype(s[3].as_ref())?.unwrap_or(match range {
                    shape::ArangeRange::Ints { .. } => DType::DEFAULT_INT,
                    shape::ArangeRange::Floats { .. } => DType::DEFAULT_FLOAT,
                });
                match range {
                    shape::ArangeRange::Ints { start, step, len } if dt.is_int() && !range.exact_in_f64() => {
                        // The generator computes in f64; past 2^53 the elements are made here, exactly.
                        let mut values: Vec<i64> =
                            crate::backend::memory::try_vec(len, "arange's elements", Some(span))?;
                        values.extend((0..len as i128).map(|i| (start as i128 + i * step as i128) as i64));
                        let made = Array::from_buffer(self.backend.adopt(HostData::I64(values))?, DType::I64, &[len]);
                        out(if dt == DType::I64 {
                            made
                        } else {
                            build::cast(&made, dt, Some(span))
                        })
                    }
                    shape::ArangeRange::Ints { start, step, len } => {
                        out(build::arange(start as f64, step as f64, len, dt, span))
                    }
                    shape::ArangeRange::Floats { start, delta, len } => out(build::arange(start, delta, len, dt, span)),
                }
            }
            "linspace" => {
                let lo = self.static_f64(
                    val(0).unwrap_or(&Value::None),
                    &sp(0).unwrap_or(span.clone()),
                    "linspace's start",
                )?;
                let hi = self.static_f64(
                    val(1).unwrap_or(&Value::None),
                    &sp(1).unwrap_or(span.clone()),
                    "linspace's stop",
                )?;
                let num = match &s[2] {
                    Some((v, vs)) => self.static_int(v, vs)?,
                    None => 50,
                };
                shape::check_linspace_num(num, &sp(2).unwrap_or(span.clone()))?;
                shape::check_size(&[num as usize], span)?;
                let endpoint = self.static_bool(s[3].as_ref(), true)?;
                let dt = self.static_dtype(s[5].as_ref())?.unwrap_or(DType::DEFAULT_FLOAT);
                let div = if endpoint { num - 1 } else { num };
                let step = if div > 0 { (hi - lo) / div as f64 } else { f64::NAN };
                let values = if dt.is_int() {
                    // NumPy 2 computes in floats, ends on `stop` exactly, then floors
                    // into the integer dtype (`linspace(-1, 1, 5, dtype=i64)` has -1 twice)
                    let at = |i: i64| {
                        if endpoint && num > 1 && i == num - 1 {
                            hi
                        } else {
                            lo + i as f64 * if num > 1 { step } else { 0.0 }
                        }
                    };
                    let floors: Vec<i64> = (0..num).map(|i| at(i).floor() as i64).collect();
                    build::cast(
                        &Array::from_host(HostData::I64(floors), &[num as usize]),
                        dt,
                        Some(span),
                    )
                } else {
                    build::arange(lo, if num > 1 { step } else { 0.0 }, num as usize, dt, span)
                };
                if self.static_bool(s[4].as_ref(), false)? {
                    return Ok(Value::Tuple(vec![
                        Value::Array(values),
                        Value::Array(build::scalar(DType::F64, step, false)),
                    ]));
                }
                out(values)
            }
            "eye" => {
                let n = self.static_int(val(0).unwrap_or(&Value::None), &sp(0).unwrap_or(span.clone()))?;
                let m = match &s[1] {
                    Some((Value::None, _)) | None => n,
                    Some((v, vs)) => self.static_int(v, vs)?,
                };
                let k = match &s[2] {
                    Some((Value::None, _)) | None => 0,
                    Some((v, vs)) => self.static_int(v, vs)?,
                };
                shape::check_eye_sizes(n, m, span)?;
                shape::check_size(&[n as usize, m as usize], span)?;
                let dt = self.static_dtype(s[3].as_ref())?.unwrap_or(DType::DEFAULT_FLOAT);
                if n == 0 || m == 0 {
                    // No diagonal: the row and column indices below would be allocated for nothing.
                    return out(build::full(
                        &[n as usize, m as usize],
                        &build::scalar(dt, 0.0, false),
                        dt,
                        span,
                    )?);
                }
                // element (i, j) is one where j - i == k: the rows counted from k
                let rows = build::arange(k as f64, 1.0, n as usize, DType::I64, span);
                let cols = build::arange(0.0, 1.0, m as usize, DType::I64, span);
                let rows = rows.with_view(rows.view.insert_axis(1));
                let cols = cols.with_view(cols.view.insert_axis(0));
                let eq = build::binary(BinOp::Eq, &rows, &cols, (None, None), span)?;
                out(build::cast(&eq, dt, Some(span)))
            }
            // ---- shape
            "reshape" => {
                let x = a(self, 0);
                let target = self.static_int_list(
                    val(1).unwrap_or(&Value::None),
                    &sp(1).unwrap_or(span.clone()),
                    "a shape",
                )?;
                let resolved = shape::reshape_target(&dims(x.shape()), &target, span)?;
                let shape: Vec<usize> = resolved.into_iter().map(|d| d.unwrap_or(0)).collect();
                out(build::reshape(&x, &shape, span))
            }
            "ravel" => {
                let x = a(self, 0);
                out(build::reshape(&x, &[x.size()], span))
            }
            "logical_and" | "logical_or" | "logical_xor" => {
                let (x, y) = (truth(a(self, 0), sp(0), span)?, truth(a(self, 1), sp(1), span)?);
                let op = match name {
                    "logical_and" => BinOp::And,
                    "logical_or" => BinOp::Or,
                    _ => BinOp::Ne,
                };
                out(build::binary(op, &x, &y, (sp(0).as_ref(), sp(1).as_ref()), span)?)
            }
            "flatten" => {
                // A copy, as NumPy's `flatten`: writing into it leaves `x` alone.
                let x = a(self, 0);
                out(build::copy(&build::reshape(&x, &[x.size()], span), Some(span)))
            }
            "transpose" | "permute" => {
                let x = a(self, 0);
                let perm: Vec<usize> = match self.static_axes(s[1].as_ref())? {
                    None => (0..x.rank()).rev().collect(),
                    Some(axes) => shape::permutation(&axes, x.rank(), &sp(1).unwrap_or(span.clone()))?,
                };
                out(x.with_view(x.view.permute(&perm)))
            }
            "expand_dims" => {
                let x = a(self, 0);
                let at = sp(1).unwrap_or(span.clone());
                let axes = self.static_int_list(val(1).unwrap_or(&Value::None), &at, "an axis")?;
                let mut view = x.view.clone();
                // in increasing order, each inserted where the result has it
                for ax in shape::expand_dims_axes(&axes, x.rank(), &at)? {
                    view = view.insert_axis(ax);
                }
                out(x.with_view(view))
            }
            "squeeze" => {
                let x = a(self, 0);
                let axes = match self.static_axes(s[1].as_ref())? {
                    None => (0..x.rank()).filter(|&k| x.shape()[k] == 1).collect(),
                    Some(axes) => {
                        let axes = shape::normalize_axes(&axes, x.rank(), &sp(1).unwrap_or(span.clone()))?;
                        let dims = shape::dims(x.shape());
                        for &k in &axes {
                            shape::check_squeezable(&dims, k, &sp(1).unwrap_or(span.clone()))?;
                        }
                        axes
                    }
                };
                let mut view = x.view.clone();
                for &ax in axes.iter().rev() {
                    view = view.remove_axis(ax);
                }
                out(x.with_view(view))
            }
            "broadcast_to" => {
                let x = a(self, 0);
                let target = self.static_shape(val(1).unwrap_or(&Value::None), &sp(1).unwrap_or(span.clone()))?;
                let xs = dims(x.shape());
                let operand = Operand {
                    dtype: Some(x.dtype()),
                    shape: &xs,
                    span: sp(0),
                };
                shape::check_broadcast_to(&operand, (&dims(&target), sp(1)), span)?;
                out(build::broadcast_view(&x, &target).read_only())
            }
            "flip" => {
                let x = a(self, 0);
                let axes: Vec<usize> = match self.static_axes(s[1].as_ref())? {
                    None => (0..x.rank()).collect(),
                    Some(axes) => shape::normalize_axes(&axes, x.rank(), &sp(1).unwrap_or(span.clone()))?,
                };
                let mut view = x.view.clone();
                for ax in axes {
                    let n = view.shape[ax];
                    view = view.slice_axis(ax, n.saturating_sub(1), n, -1);
                }
                out(x.with_view(view))
            }
            "concat" | "stack" => {
                let (items, spans) = self.sequence(&s[0], span)?;
                let axis = match &s[1] {
                    None => 0,
                    // NumPy's `concatenate(..., axis=None)` joins the arrays flattened
                    Some((Value::None, _)) if name == "concat" => {
                        let flat: Vec<Array> = items.iter().map(|x| build::reshape(x, &[x.size()], span)).collect();
                        return out(build::concat(&flat, &spans, 0, span)?);
                    }
                    Some((Value::None, vs)) => {
                        return Err(Diagnostic::new("E0303", "`stack` needs an integer axis", vs.clone())
                            .with_hint("`axis=none` flattens only in `concat`; stack along `axis=0`"));
                    }
                    Some((v, vs)) => self.static_int(v, vs)?,
                };
                if name == "concat" {
                    out(build::concat(&items, &spans, axis, span)?)
                } else {
                    out(build::stack(&items, &spans, axis, span)?)
                }
            }
            "vstack" | "hstack" | "column_stack" => {
                let (items, spans) = self.sequence(&s[0], span)?;
                let ranks: Vec<usize> = items.iter().map(|x| x.rank()).collect();
                let (items, axis) = match shape::ranks_for_stack(name, &ranks) {
                    Some((wanted, axis)) => (
                        items
                            .iter()
                            .zip(wanted)
                            .map(|(x, at)| at.iter().fold(x.clone(), |x, &ax| x.with_view(x.view.insert_axis(ax))))
                            .collect::<Vec<_>>(),
                        axis,
                    ),
                    None => (items, 0),
                };
                out(build::concat(&items, &spans, axis as i64, span)?)
            }
            // ---- elementwise
            "minimum" | "maximum" | "atan2" | "arctan2" | "hypot" => {
                let op = match name {
                    "minimum" => BinaryOp::Min,
                    "maximum" => BinaryOp::Max,
                    "hypot" => BinaryOp::Hypot,
                    _ => BinaryOp::Atan2,
                };
                out(build::binary_fn(
                    op,
                    name,
                    &a(self, 0),
                    &a(self, 1),
                    (sp(0).as_ref(), sp(1).as_ref()),
                    span,
                )?)
            }
            "nan_to_num" => {
                let num = |this: &Self, k: usize, what: &str| match &s[k] {
                    None | Some((Value::None, _)) => Ok(None),
                    Some((v, vs)) => this.static_f64(v, vs, what).map(Some),
                };
                self.static_bool(s[1].as_ref(), true)?;
                let nan = num(self, 2, "`nan`")?.unwrap_or(0.0);
                let posinf = num(self, 3, "`posinf`")?;
                let neginf = num(self, 4, "`neginf`")?;
                out(build::nan_to_num(&a(self, 0), nan, posinf, neginf, span)?)
            }
            "isclose" | "allclose" => {
                let tol = |this: &Self, k: usize, what: &str, default: f64| match &s[k] {
                    None | Some((Value::None, _)) => Ok(default),
                    Some((v, vs)) => this.static_f64(v, vs, what),
                };
                let rtol = tol(self, 2, "`rtol`", 1e-05)?;
                let atol = tol(self, 3, "`atol`", 1e-08)?;
                let equal_nan = self.static_bool(s[4].as_ref(), false)?;
                let r = build::isclose(
                    &a(self, 0),
                    &a(self, 1),
                    rtol,
                    atol,
                    equal_nan,
                    (sp(0).as_ref(), sp(1).as_ref()),
                    span,
                )?;
                if name == "isclose" {
                    out(r)
                } else {
                    out(build::reduce(ReduceOp::All, &r, None, false, span)?)
                }
            }
            "array_equal" => {
                let equal_nan = self.static_bool(s[2].as_ref(), false)?;
                out(build::array_equal(&a(self, 0), &a(self, 1), equal_nan, span)?)
            }
            "clip" => {
                let bound = |k: usize| matches!(val(k), Some(Value::Array(_)));
                if !bound(1) && !bound(2) {
                    return Err(Diagnostic::new("E0303", "`clip` needs `lo` or `hi`", span.clone())
                        .with_hint("give at least one bound; `none` leaves that side open"));
                }
                let mut x = a(self, 0);
                // the bound first: `maximum`/`minimum` give their second operand
                // on a tie, so a value equal to a bound stays itself (NumPy:
                // `clip(-0.0, 0.0, 1.0)` is -0.0), and a NaN stays NaN
                for (k, op) in [(1, BinaryOp::Max), (2, BinaryOp::Min)] {
                    if bound(k) {
                        let limit = build::clamp_int_bound(&a(self, k), x.dtype());
                        x = build::binary_fn(op, "clip", &limit, &x, (sp(k).as_ref(), sp(0).as_ref()), span)?;
                    }
                }
                out(x)
            }
            "where" if s[1].is_none() && s[2].is_none() => self.np_builtin("nonzero", &s[..1], span),
            "where" if s[1].is_none() || s[2].is_none() => Err(crate::check::builtins::Builtin::where_needs_both(span)),
            "where" => out(build::select(
                &a(self, 0),
                &a(self, 1),
                &a(self, 2),
                [sp(0).as_ref(), sp(1).as_ref(), sp(2).as_ref()],
                span,
            )?),
            // ---- reductions
            "sum" | "prod" | "min" | "max" | "any" | "all" | "mean" => {
                let named = |p: &str| named_slot(&s, name, p);
                // NumPy's `dtype=` (sum, prod, mean): computed in that dtype, and given as it
                let dtype = self.static_dtype(named("dtype"))?;
                let x = match dtype {
                    Some(dt) => build::cast(&a(self, 0), dt, Some(span)).with_weak(false),
                    None => a(self, 0),
                };
                let axes = self.reduce_axes(&x, s[1].as_ref())?;
                let keepdims = self.static_bool(s[2].as_ref(), false)?;
                let op = match name {
                    "sum" => ReduceOp::Sum,
                    "prod" => ReduceOp::Prod,
                    "min" => ReduceOp::Min,
                    "max" => ReduceOp::Max,
                    "any" => ReduceOp::Any,
                    "all" => ReduceOp::All,
                    _ => ReduceOp::Sum,
                };
                let extras = self.reduce_extras(named("where"), named("initial"));
                let r = if name == "mean" {
                    build::mean_with(&x, axes, keepdims, extras.mask.as_ref(), span)?
                } else {
                    build::reduce_with(op, name, &x, axes, keepdims, &extras, span)?
                };
                match dtype {
                    Some(dt) if r.dtype() != dt => out(build::cast(&r, dt, Some(span)).with_weak(false)),
                    _ => out(r),
                }
            }
            "nansum" | "nanmean" | "nanmin" | "nanmax" => {
                let x = a(self, 0);
                let axes = self.reduce_axes(&x, s[1].as_ref())?;
                let keepdims = self.static_bool(s[2].as_ref(), false)?;
                let which = match name {
                    "nansum" => build::NanReduce::Sum,
                    "nanmean" => build::NanReduce::Mean,
                    "nanmin" => build::NanReduce::Min,
                    _ => build::NanReduce::Max,
                };
                let extras = self.reduce_extras(named_slot(&s, name, "where"), named_slot(&s, name, "initial"));
                out(build::nan_reduce_with(which, name, &x, axes, keepdims, &extras, span)?)
            }
            "argmin" | "argmax" => {
                let x = a(self, 0);
                let op = if name == "argmin" {
                    ReduceOp::ArgMin
                } else {
                    ReduceOp::ArgMax
                };
                let keepdims = self.static_bool(s[2].as_ref(), false)?;
                match self.static_axes(s[1].as_ref())? {
                    None => {
                        let flat = build::reshape(&x, &[x.size()], span);
                        let r = build::reduce(op, &flat, Some(vec![0]), false, span)?;
                        if keepdims {
                            let ones = vec![1; x.rank()];
                            out(r.with_view(crate::graph::view::View::contiguous(&ones)))
                        } else {
                            out(r)
                        }
                    }
                    Some(axes) => {
                        let axes = shape::normalize_axes(&axes, x.rank(), &sp(1).unwrap_or(span.clone()))?;
                        if axes.len() != 1 {
                            return Err(Diagnostic::new(
                                "E0201",
                                format!("`{name}` takes one axis"),
                                sp(1).unwrap_or(span.clone()),
                            ));
                        }
                        out(build::reduce(op, &x, Some(axes), keepdims, span)?)
                    }
                }
            }
            "cumsum" | "cumprod" | "cummax" | "cummin" => {
                let x = a(self, 0);
                let op = match name {
                    "cumsum" => ScanOp::Sum,
                    "cumprod" => ScanOp::Prod,
                    "cummax" => ScanOp::Max,
                    _ => ScanOp::Min,
                };
                let axis = match &s[1] {
                    Some((Value::None, _)) | None => None,
                    Some((v, vs)) => Some(shape::normalize_axis(self.static_int(v, vs)?, x.rank(), vs)?),
                };
                match s.get(2).map(|d| self.static_dtype(d.as_ref())).transpose()?.flatten() {
                    Some(dt) => {
                        let x = build::cast(&x, dt, Some(span)).with_weak(false);
                        let r = build::scan(op, &x, axis, span)?;
                        match r.dtype() == dt {
                            true => out(r),
                            false => out(build::cast(&r, dt, Some(span)).with_weak(false)),
                        }
                    }
                    None => out(build::scan(op, &x, axis, span)?),
                }
            }
            "segsum" | "segprod" | "segmin" | "segmax" | "segmean" => {
                let x = a(self, 0);
                build::check_segment_values(&x, sp(0).as_ref(), span)?;
                let index = self.segment_index(&x, &s, span)?;
                let op = match name {
                    "segsum" => ReduceOp::Sum,
                    "segprod" => ReduceOp::Prod,
                    "segmin" => ReduceOp::Min,
                    "segmax" => ReduceOp::Max,
                    _ => return out(build::segment_mean(&x, &index, sp(0).as_ref(), span)?),
                };
                out(build::segment(op, &x, &index, sp(0).as_ref(), span)?)
            }
            "matmul" => out(build::matmul(
                &a(self, 0),
                &a(self, 1),
                (sp(0).as_ref(), sp(1).as_ref()),
                span,
            )?),
            // ---- information
            "shape" => Ok(Value::Tuple(
                a(self, 0)
                    .shape()
                    .iter()
                    .map(|&d| Value::Array(build::scalar_i64(d as i64, true)))
                    .collect(),
            )),
            "size" => {
                let x = a(self, 0);
                let n = match &s[1] {
                    Some((Value::None, _)) | None => x.size(),
                    Some((v, vs)) => x.shape()[shape::normalize_axis(self.static_int(v, vs)?, x.rank(), vs)?],
                };
                out(build::scalar_i64(n as i64, true))
            }
            "ndim" => out(build::scalar_i64(a(self, 0).rank() as i64, true)),
            "len" => {
                let Some((x, at)) = &s[0] else {
                    return Err(missing(span));
                };
                let n = match x {
                    Value::Tuple(items) => items.len(),
                    _ => {
                        let x = self.expect_array(x.clone(), at)?;
                        x.shape()[shape::normalize_axis(0, x.rank(), at)?]
                    }
                };
                out(build::scalar_i64(n as i64, true))
            }
            "dtype" => Ok(Value::DType(a(self, 0).dtype())),
            "normalize_axis_index" => {
                let (Some((axis, axis_at)), Some((ndim, ndim_at))) = (&s[0], &s[1]) else {
                    return Err(missing(span));
                };
                let axis = self.static_int_named(axis, axis_at, "the axis")?;
                let ndim = self.static_int_named(ndim, ndim_at, "`ndim`")?;
                let rank = shape::check_ndim(ndim, ndim_at)?;
                let k = shape::normalize_axis(axis, rank, axis_at)?;
                out(build::scalar_i64(k as i64, true))
            }
            // ---- input and output
            "enumerate" => {
                let Some((iterable, at)) = &s[0] else {
                    return Err(missing(span));
                };
                let start = match &s[1] {
                    None | Some((Value::None, _)) => 0,
                    Some((v, vs)) => self.static_int_named(v, vs, "`start` of `enumerate`")?,
                };
                let items = self.items_of(iterable, at)?;
                Ok(Value::Tuple(
                    (0..items.len())
                        .zip(start..)
                        .map(|(k, i)| {
                            Value::Tuple(vec![
                                Value::Array(build::scalar(DType::I64, i as f64, false)),
                                items.get(k),
                            ])
                        })
                        .collect(),
                ))
            }
            "zip" => {
                let columns = rest.iter().map(|(v, at)| self.items_of(v, at)).collect::<R<Vec<_>>>()?;
                let n = columns.iter().map(|c| c.len()).min().unwrap_or(0);
                Ok(Value::Tuple(
                    (0..n)
                        .map(|k| Value::Tuple(columns.iter().map(|c| c.get(k)).collect()))
                        .collect(),
                ))
            }
            "print" => {
                // one realize for all the arguments, so reductions that share inputs
                // (`print(mean(a), mean(b))`) can run in one kernel; an error here is
                // reported by the per-argument pass below, with that argument's span
                let arrays: Vec<Array> = rest.iter().flat_map(|(v, _)| super::arrays_of(v)).collect();
                if arrays.len() > 1 {
                    let _ = graph::realize(&*self.backend, &arrays.iter().collect::<Vec<_>>());
                }
                let mut parts = Vec::with_capacity(rest.len());
                for (v, vs) in &rest {
                    parts.push(self.display(v).map_err(|d| d.or_span(vs))?);
                }
                let _ = writeln!(self.out, "{}", parts.join(" "));
                Ok(Value::Unit)
            }
            "error" => {
                let message = self.static_str(
                    val(0).unwrap_or(&Value::None),
                    &sp(0).unwrap_or(span.clone()),
                    "the message",
                )?;
                Err(Diagnostic::new("E0413", message, span.clone()))
            }
            "load" => {
                let path = self.static_str(
                    val(0).unwrap_or(&Value::None),
                    &sp(0).unwrap_or(span.clone()),
                    "the path",
                )?;
                let p = std::path::Path::new(&path);
                if !p.exists() {
                    return Err(Diagnostic::new(
                        "E0410",
                        format!("cannot read `{path}`: no such file"),
                        sp(0).unwrap_or(span.clone()),
                    )
                    .with_hint("paths are relative to the directory `arr` was started in"));
                }
                let (data, shape) = crate::io::npy::load(p)
                    .map_err(|e| Diagnostic::new(e.code, e.message, sp(0).unwrap_or(span.clone())))?;
                let dt = data.dtype();
                let buffer = self.backend.adopt(data)?;
                out(Array::from_buffer(buffer, dt, &shape))
            }
            "save" => {
                let path = self.static_str(
                    val(0).unwrap_or(&Value::None),
                    &sp(0).unwrap_or(span.clone()),
                    "the path",
                )?;
                let x = a(self, 1);
                if let Some((message, hint)) = crate::io::npy::unsaveable(x.dtype()) {
                    return Err(Diagnostic::new("E0300", message, sp(1).unwrap_or(span.clone())).with_hint(hint));
                }
                let data = graph::to_host(&*self.backend, &x)?;
                if self.dry_run {
                    return Ok(Value::Unit);
                }
                crate::io::npy::save(std::path::Path::new(&path), &data, x.shape())
                    .map_err(|e| Diagnostic::new(e.code, e.message, sp(0).unwrap_or(span.clone())))?;
                Ok(Value::Unit)
            }
            _ if super::npfuncs::NAMES.contains(&name) => self.np_builtin(name, &s, span),
            _ if super::decomp::NAMES.contains(&name) => self.run_decomp(name, &s, span),
            _ => self.run_shape_linalg(name, &s, &rest, span),
        }
    }

    /// The segment index of a segmented reduction's `lengths` or `offsets`
    /// argument. Making one reads the argument to the host and checks it (the
    /// lengths decide how a GPU reduces the segments); the same unwritten
    /// array gives the cached index again.
    fn segment_index(&self, x: &Array, s: &[Slot], span: &Span) -> R<Rc<SegmentIndex>> {
        let given = |k: usize| match &s[k] {
            Some((Value::Array(a), sp)) => Some((a.clone(), sp.clone())),
            _ => None,
        };
        let (arg, arg_span, kind) = match (given(1), given(2)) {
            (Some(_), Some((_, os))) => {
                return Err(
                    Diagnostic::new("E0211", "give the segments by `lengths` or by `offsets`, not both", os)
                        .with_label(span.clone(), "in this segmented reduction"),
                );
            }
            (None, None) => {
                return Err(Diagnostic::new(
                    "E0105",
                    "missing argument `lengths` (or `offsets`) in a segmented reduction",
                    span.clone(),
                )
                .with_hint("segsum(values, lengths) or segsum(values, offsets=...)"));
            }
            (Some((l, ls)), None) => (l, ls, SegmentsGiven::Lengths),
            (None, Some((o, os))) => (o, os, SegmentsGiven::Offsets),
        };
        let what = match kind {
            SegmentsGiven::Lengths => "lengths",
            SegmentsGiven::Offsets => "offsets",
        };
        check_int_vector(&arg, &arg_span, what)?;
        graph::realize(&*self.backend, &[&arg]).map_err(|d| d.or_span(&arg_span))?;
        let n = x.size();
        self.segment_indexes.get_or_make(&arg, kind, n, || {
            let v = self.int_vector(&arg, &arg_span)?;
            match kind {
                SegmentsGiven::Lengths => build::segment_offsets_from_lengths(&v, n, Some(&arg_span), span),
                SegmentsGiven::Offsets => {
                    build::check_segment_offsets(&v, n, Some(&arg_span), span)?;
                    Ok(v)
                }
            }
        })
    }

    /// A 1-D integer array's values on the host (`check_int_vector` has passed).
    fn int_vector(&self, a: &Array, span: &Span) -> R<Vec<i64>> {
        let host = graph::to_host(&*self.backend, a).map_err(|d| d.or_span(span))?;
        Ok((0..host.len()).map(|i| host.get_i64(i)).collect())
    }

    /// A reduction's `where=` and `initial=` arguments (arrays, by `call_builtin`).
    fn reduce_extras(&self, mask: Option<&(Value, Span)>, initial: Option<&(Value, Span)>) -> build::ReduceExtras {
        let array = |slot: Option<&(Value, Span)>| match slot {
            Some((Value::Array(a), at)) => Some((a.clone(), at.clone())),
            _ => None,
        };
        build::ReduceExtras {
            mask: array(mask),
            initial: array(initial),
        }
    }

    fn reduce_axes(&self, x: &Array, slot: Option<&(Value, Span)>) -> R<Option<Vec<usize>>> {
        match self.static_axes(slot)? {
            None => Ok(None),
            Some(axes) => {
                let span = slot.map(|s| s.1.clone()).unwrap_or_default();
                Ok(Some(shape::normalize_axes(&axes, x.rank(), &span)?))
            }
        }
    }

    /// The array a tuple of arrays stacks into, as NumPy reads a tuple given
    /// for an array; `None` where an item is not an array.
    fn tuple_array(&mut self, items: &[Value], at: &Span) -> R<Option<Array>> {
        let parts: Option<Vec<Array>> = items
            .iter()
            .map(|v| match v {
                Value::Array(a) => Some(a.clone()),
                _ => None,
            })
            .collect();
        let Some(parts) = parts else { return Ok(None) };
        let spans = vec![at.clone(); parts.len()];
        self.stack_literal(parts, &spans, at).map(Some)
    }

    /// The arrays of a tuple or list argument (`concat([a, b])`); an item
    /// that is a tuple of arrays is the array of them (`concat([shape(a), (1,)])`).
    fn sequence(&mut self, slot: &Slot, span: &Span) -> R<(Vec<Array>, Vec<Span>)> {
        match slot {
            Some((Value::Tuple(items), s)) => {
                let mut arrays = Vec::with_capacity(items.len());
                for item in items {
                    match item {
                        Value::Array(a) => arrays.push(a.clone()),
                        Value::Tuple(inner) if let Some(stacked) = self.tuple_array(inner, s)? => arrays.push(stacked),
                        other => {
                            return Err(Diagnostic::new(
                                "E0303",
                                format!("expected arrays, found {}", other.kind_name()),
                                s.clone(),
                            ));
                        }
                    }
                }
                let spans = vec![s.clone(); arrays.len()];
                Ok((arrays, spans))
            }
            Some((Value::Array(a), s)) if a.rank() >= 1 => {
                let arrays = (0..a.shape()[0])
                    .map(|i| a.with_view(a.view.select_axis(0, i)))
                    .collect::<Vec<_>>();
                let spans = vec![s.clone(); arrays.len()];
                Ok((arrays, spans))
            }
            Some((other, s)) => Err(Diagnostic::new(
                "E0303",
                format!("expected a list or tuple of arrays, found {}", other.kind_name()),
                s.clone(),
            )),
            None => Err(missing(span)),
        }
    }
}

fn missing(span: &Span) -> Diagnostic {
    Diagnostic::new("E0105", "missing argument", span.clone())
}

/// The dtype `full` gives a value when none is asked for: literals follow the defaults.
fn default_dtype(v: &Array) -> DType {
    if !v.weak {
        v.dtype()
    } else if v.dtype().is_float() {
        DType::DEFAULT_FLOAT
    } else {
        v.dtype()
    }
}

use std::io::Write as _;

/// A segments argument must be a 1-D integer array.
fn check_int_vector(a: &Array, span: &Span, what: &str) -> R<()> {
    if !a.dtype().is_int() {
        return Err(Diagnostic::new(
            "E0300",
            format!("`{what}` must be integers, not {}", a.dtype()),
            span.clone(),
        )
        .with_hint(format!("cast with `{what} as i64`")));
    }
    if a.rank() != 1 {
        return Err(Diagnostic::new(
            "E0211",
            format!("`{what}` must be 1-D, not of rank {}", a.rank()),
            span.clone(),
        ));
    }
    Ok(())
}

/// NumPy's `round(x, decimals)`: `x * 10**decimals` rounded half to even,
/// then divided back (for negative `decimals`, divided then multiplied, so
/// that the scale is an exact integer). Integers round to tens, hundreds, ...
/// through f64 and come back in their dtype; bools, and integers to
/// `decimals >= 0`, are unchanged.
fn round_to(x: &Array, decimals: i64, x_span: Option<&Span>, span: &Span) -> R<Array> {
    let dt = x.dtype();
    if dt == DType::Bool || (dt.is_int() && decimals >= 0) {
        return Ok(x.clone());
    }
    let float = if dt.is_int() {
        build::cast(x, DType::F64, Some(span))
    } else {
        x.clone()
    };
    let scale = build::scalar(DType::F64, 10f64.powi(decimals.unsigned_abs().min(400) as i32), true);
    let (there, back) = if decimals >= 0 {
        (BinOp::Mul, BinOp::Div)
    } else {
        (BinOp::Div, BinOp::Mul)
    };
    let scaled = build::binary(there, &float, &scale, (x_span, None), span)?;
    let rounded = build::unary(UnaryOp::Round, "round", &scaled, x_span, span)?;
    let out = build::binary(back, &rounded, &scale, (None, None), span)?;
    Ok(if dt.is_int() {
        build::cast(&out, dt, Some(span))
    } else {
        out
    })
}

/// NumPy's truth of an array for the `logical_*` functions: a bool array
/// itself, a number nonzero (NaN included).
fn truth(x: Array, xs: Option<Span>, span: &Span) -> R<Array> {
    if x.dtype() == DType::Bool {
        return Ok(x);
    }
    let zero = build::scalar(DType::I64, 0.0, true);
    build::binary(BinOp::Ne, &x, &zero, (xs.as_ref(), None), span)
}
