//! Elementwise kernels: casts, unary and binary ops, `where`. Each dtype
//! family (float, integer, bool) has one generic function; ops a family does
//! not define are internal errors, because the graph builder casts first.

use super::{Elem, Float, Num, internal, map1, map2, map3, try_map2, typed};
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::{BinaryOp, UnaryOp};
use crate::graph::view::View;

type Input<'a> = (&'a HostData, &'a View);

fn undefined(op: impl std::fmt::Debug, dtype: DType) -> Diagnostic {
    internal(format!(
        "{op:?} is not defined on {dtype} (the graph should have cast first)"
    ))
}

pub(crate) fn modulo_by_zero() -> Diagnostic {
    Diagnostic::spanless("E0400", "integer modulo by zero")
        .with_hint("mask the zero divisors first, e.g. `a % where(b == 0, 1, b)`, or cast to float to get NaN")
}

pub(crate) fn negative_power() -> Diagnostic {
    Diagnostic::spanless("E0401", "integers cannot be raised to negative integer powers")
        .with_hint("cast the base to float first, e.g. `(x as f64) ** n`")
}

pub(super) fn cast(dtype: DType, a: &HostData, va: &View) -> HostData {
    crate::with_data!(a, x => with_dtype!(dtype, D => D::wrap(map1(x, va, |s| D::from_val(s.to_val())))))
}

pub(super) fn unary(op: UnaryOp, a: &HostData, va: &View) -> Result<HostData, Diagnostic> {
    match a {
        HostData::F32(x) => float_unary(op, x, va),
        HostData::F64(x) => float_unary(op, x, va),
        HostData::I32(x) => num_unary(op, x, va),
        HostData::I64(x) => num_unary(op, x, va),
        HostData::Bool(x) => bool_unary(op, x, va),
    }
}

fn float_unary<T: Float>(op: UnaryOp, a: &[T], va: &View) -> Result<HostData, Diagnostic> {
    macro_rules! m {
        ($f:expr) => {
            T::wrap(map1(a, va, $f))
        };
    }
    Ok(match op {
        UnaryOp::Exp => m!(T::exp),
        UnaryOp::Log => m!(T::ln),
        UnaryOp::Sqrt => m!(T::sqrt),
        UnaryOp::Sin => m!(T::sin),
        UnaryOp::Cos => m!(T::cos),
        UnaryOp::Tan => m!(T::tan),
        UnaryOp::Tanh => m!(T::tanh),
        UnaryOp::Erf => m!(T::erf),
        _ => return num_unary(op, a, va),
    })
}

fn num_unary<T: Num>(op: UnaryOp, a: &[T], va: &View) -> Result<HostData, Diagnostic> {
    macro_rules! m {
        ($f:expr) => {
            T::wrap(map1(a, va, $f))
        };
    }
    Ok(match op {
        UnaryOp::Neg => m!(T::neg),
        UnaryOp::Abs => m!(T::abs),
        UnaryOp::Sign => m!(T::sign),
        UnaryOp::Floor => m!(T::floor),
        UnaryOp::Ceil => m!(T::ceil),
        UnaryOp::Round => m!(T::round),
        UnaryOp::IsNan => HostData::Bool(map1(a, va, T::is_nan)),
        _ => return Err(undefined(op, T::DTYPE)),
    })
}

fn bool_unary(op: UnaryOp, a: &[bool], va: &View) -> Result<HostData, Diagnostic> {
    Ok(HostData::Bool(match op {
        UnaryOp::Not => map1(a, va, |x: bool| !x),
        UnaryOp::Abs | UnaryOp::Sign | UnaryOp::Floor | UnaryOp::Ceil | UnaryOp::Round => map1(a, va, |x| x),
        UnaryOp::IsNan => map1(a, va, |_: bool| false),
        _ => return Err(undefined(op, DType::Bool)),
    }))
}

pub(super) fn binary(op: BinaryOp, (a, va): Input, (b, vb): Input) -> Result<HostData, Diagnostic> {
    match (a, b) {
        (HostData::F32(x), HostData::F32(y)) => float_binary(op, x, va, y, vb),
        (HostData::F64(x), HostData::F64(y)) => float_binary(op, x, va, y, vb),
        (HostData::I32(x), HostData::I32(y)) => num_binary(op, x, va, y, vb),
        (HostData::I64(x), HostData::I64(y)) => num_binary(op, x, va, y, vb),
        (HostData::Bool(x), HostData::Bool(y)) => bool_binary(op, x, va, y, vb),
        _ => Err(internal(format!("{op:?} of {} and {}", a.dtype(), b.dtype()))),
    }
}

fn float_binary<T: Float>(op: BinaryOp, a: &[T], va: &View, b: &[T], vb: &View) -> Result<HostData, Diagnostic> {
    Ok(match op {
        BinaryOp::Div => T::wrap(map2(a, va, b, vb, T::div)),
        BinaryOp::Atan2 => T::wrap(map2(a, va, b, vb, T::atan2)),
        // float pow and rem never fail
        BinaryOp::Pow => T::wrap(map2(a, va, b, vb, |x: T, y| x.pow(y).unwrap_or(T::ZERO))),
        BinaryOp::Rem => T::wrap(map2(a, va, b, vb, |x: T, y| x.rem(y).unwrap_or(T::ZERO))),
        _ => return num_binary(op, a, va, b, vb),
    })
}

/// Comparisons, for every dtype.
fn compare<T: Elem>(op: BinaryOp, a: &[T], va: &View, b: &[T], vb: &View) -> Option<HostData> {
    macro_rules! c {
        ($f:expr) => {
            Some(HostData::Bool(map2(a, va, b, vb, $f)))
        };
    }
    match op {
        BinaryOp::Eq => c!(|x: T, y: T| x == y),
        BinaryOp::Ne => c!(|x: T, y: T| x != y),
        BinaryOp::Lt => c!(|x: T, y: T| x < y),
        BinaryOp::Le => c!(|x: T, y: T| x <= y),
        BinaryOp::Gt => c!(|x: T, y: T| x > y),
        BinaryOp::Ge => c!(|x: T, y: T| x >= y),
        _ => None,
    }
}

fn num_binary<T: Num>(op: BinaryOp, a: &[T], va: &View, b: &[T], vb: &View) -> Result<HostData, Diagnostic> {
    if let Some(out) = compare(op, a, va, b, vb) {
        return Ok(out);
    }
    macro_rules! m {
        ($f:expr) => {
            T::wrap(map2(a, va, b, vb, $f))
        };
    }
    Ok(match op {
        BinaryOp::Add => m!(T::add),
        BinaryOp::Sub => m!(T::sub),
        BinaryOp::Mul => m!(T::mul),
        BinaryOp::Min => m!(T::minimum),
        BinaryOp::Max => m!(T::maximum),
        BinaryOp::Rem => T::wrap(try_map2(a, va, b, vb, |x: T, y| x.rem(y).ok_or_else(modulo_by_zero))?),
        BinaryOp::Pow => T::wrap(try_map2(a, va, b, vb, |x: T, y| x.pow(y).ok_or_else(negative_power))?),
        _ => return Err(undefined(op, T::DTYPE)),
    })
}

fn bool_binary(op: BinaryOp, a: &[bool], va: &View, b: &[bool], vb: &View) -> Result<HostData, Diagnostic> {
    if let Some(out) = compare(op, a, va, b, vb) {
        return Ok(out);
    }
    Ok(HostData::Bool(match op {
        // NumPy's bool arithmetic: + is or, * is and; min/max are and/or
        BinaryOp::And | BinaryOp::Mul | BinaryOp::Min => map2(a, va, b, vb, |x, y| x && y),
        BinaryOp::Or | BinaryOp::Add | BinaryOp::Max => map2(a, va, b, vb, |x, y| x || y),
        _ => return Err(undefined(op, DType::Bool)),
    }))
}

/// `where(cond, a, b)`.
pub(super) fn select((c, vc): Input, (a, va): Input, (b, vb): Input) -> Result<HostData, Diagnostic> {
    let cond = typed::<bool>(c)?;
    crate::with_data!(a, x => {
        let y = typed(b)?;
        Ok(Elem::wrap(map3((cond, vc), (x.as_slice(), va), (y, vb), |c, x, y| if c { x } else { y })))
    })
}
