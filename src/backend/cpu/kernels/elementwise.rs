//! Elementwise kernels: casts, unary and binary ops, `where`. Each dtype
//! family (float, integer, bool) has one generic function; ops a family does
//! not define are internal errors, because the graph builder casts first.

use super::{Elem, Float, Num, internal, map1, map2, map3, try_map2, typed};
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::{BinaryOp, BitOp, UnaryOp};
use crate::graph::view::View;

pub(crate) use crate::check::prim::{division_by_zero, modulo_by_zero, negative_power};

type Input<'a> = (&'a HostData, &'a View);

fn undefined(op: impl std::fmt::Debug, dtype: DType) -> Diagnostic {
    internal(format!(
        "{op:?} is not defined on {dtype} (the graph should have cast first)"
    ))
}

pub(super) fn cast(dtype: DType, a: &HostData, va: &View) -> HostData {
    crate::with_data!(a, x => with_dtype!(dtype, D => D::wrap(map1(x, va, |s| D::from_val(s.to_val())))))
}

/// Element `i` of `a` cast to `dtype`, as `cast` computes it.
pub(super) fn cast_one(dtype: DType, a: &HostData, i: usize) -> Option<HostData> {
    crate::with_data!(a, x => {
        let v = x.get(i)?.to_val();
        Some(with_dtype!(dtype, D => D::wrap(vec![D::from_val(v)])))
    })
}

pub(super) fn unary(op: UnaryOp, a: &HostData, va: &View) -> Result<HostData, Diagnostic> {
    // The table in `check::prim` expands into one exhaustive match per dtype;
    // the rule decides which dtypes an op is defined on (the builder casts first).
    macro_rules! ref_unary {
        ($( $V:ident $name:literal $rule:ident [$($vm:ident)?] |$x:ident| $e:expr, $cuda:literal, $doc:literal, $ex:literal; )*) => {
            match a {
                HostData::F32(v) => match op { $( UnaryOp::$V => ref_unary!(@float $rule f32 v |$x| $e), )* },
                HostData::F64(v) => match op { $( UnaryOp::$V => ref_unary!(@float $rule f64 v |$x| $e), )* },
                HostData::I32(v) => match op { $( UnaryOp::$V => ref_unary!(@int $rule i32 v |$x| $e), )* },
                HostData::I64(v) => match op { $( UnaryOp::$V => ref_unary!(@int $rule i64 v |$x| $e), )* },
                HostData::Bool(v) => match op { $( UnaryOp::$V => ref_unary!(@bool $rule bool v |$x| $e), )* },
                crate::storage_only_data!() => Err(super::internal("storage-only dtypes are computed wide (kernels::eval_storage)")),
            }
        };
        (@float Pred $T:ident $v:ident |$x:ident| $e:expr) => { Ok(HostData::Bool(map1($v, va, |$x: $T| $e))) };
        (@float Logic $T:ident $v:ident |$x:ident| $e:expr) => { Err(undefined(op, <$T as Elem>::DTYPE)) };
        (@float Bits $T:ident $v:ident |$x:ident| $e:expr) => { Err(undefined(op, <$T as Elem>::DTYPE)) };
        (@float $rule:ident $T:ident $v:ident |$x:ident| $e:expr) => { Ok(<$T as Elem>::wrap(map1($v, va, |$x: $T| $e))) };
        (@int Same $T:ident $v:ident |$x:ident| $e:expr) => { Ok(<$T as Elem>::wrap(map1($v, va, |$x: $T| $e))) };
        (@int Bits $T:ident $v:ident |$x:ident| $e:expr) => { Ok(<$T as Elem>::wrap(map1($v, va, |$x: $T| $e))) };
        (@int $rule:ident $T:ident $v:ident |$x:ident| $e:expr) => { Err(undefined(op, <$T as Elem>::DTYPE)) };
        (@bool Logic $T:ident $v:ident |$x:ident| $e:expr) => { Ok(HostData::Bool(map1($v, va, |$x: bool| $e))) };
        (@bool Bits $T:ident $v:ident |$x:ident| $e:expr) => { Ok(HostData::Bool(map1($v, va, |$x: bool| $e))) };
        (@bool $rule:ident $T:ident $v:ident |$x:ident| $e:expr) => { Err(undefined(op, DType::Bool)) };
    }
    crate::for_each_unary!(ref_unary)
}

pub(super) fn binary(op: BinaryOp, (a, va): Input, (b, vb): Input) -> Result<HostData, Diagnostic> {
    if let BinaryOp::Bit(bit) = op {
        return bit_binary(bit, (a, va), (b, vb));
    }
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
        BinaryOp::Hypot => T::wrap(map2(a, va, b, vb, T::hypot)),
        BinaryOp::FloorDiv => T::wrap(map2(a, va, b, vb, |x: T, y| x.floor_div(y).unwrap_or(T::ZERO))),
        BinaryOp::Add
        | BinaryOp::Sub
        | BinaryOp::Mul
        | BinaryOp::Min
        | BinaryOp::Max
        | BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Eq
        | BinaryOp::Ne
        | BinaryOp::Lt
        | BinaryOp::Le
        | BinaryOp::Gt
        | BinaryOp::Ge
        | BinaryOp::Bit(_) => return num_binary(op, a, va, b, vb),
        // float pow and rem never fail
        BinaryOp::Pow => T::wrap(map2(a, va, b, vb, |x: T, y| x.pow(y).unwrap_or(T::ZERO))),
        BinaryOp::Rem => T::wrap(map2(a, va, b, vb, |x: T, y| x.rem(y).unwrap_or(T::ZERO))),
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
        BinaryOp::Add
        | BinaryOp::Sub
        | BinaryOp::Mul
        | BinaryOp::Div
        | BinaryOp::Rem
        | BinaryOp::FloorDiv
        | BinaryOp::Pow
        | BinaryOp::Min
        | BinaryOp::Max
        | BinaryOp::Atan2
        | BinaryOp::Hypot
        | BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Bit(_) => None,
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
        BinaryOp::FloorDiv => T::wrap(try_map2(a, va, b, vb, |x: T, y| {
            x.floor_div(y).ok_or_else(division_by_zero)
        })?),
        BinaryOp::Pow => T::wrap(try_map2(a, va, b, vb, |x: T, y| x.pow(y).ok_or_else(negative_power))?),
        // float-only ops, logic (the builder casts first), comparisons (done above)
        BinaryOp::Div
        | BinaryOp::Atan2
        | BinaryOp::Hypot
        | BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Eq
        | BinaryOp::Ne
        | BinaryOp::Lt
        | BinaryOp::Le
        | BinaryOp::Gt
        | BinaryOp::Ge
        | BinaryOp::Bit(_) => {
            return Err(undefined(op, T::DTYPE));
        }
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
        BinaryOp::Sub
        | BinaryOp::Div
        | BinaryOp::Rem
        | BinaryOp::FloorDiv
        | BinaryOp::Pow
        | BinaryOp::Atan2
        | BinaryOp::Hypot
        | BinaryOp::Eq
        | BinaryOp::Ne
        | BinaryOp::Lt
        | BinaryOp::Le
        | BinaryOp::Gt
        | BinaryOp::Ge
        | BinaryOp::Bit(_) => return Err(undefined(op, DType::Bool)),
    }))
}

/// A bitwise primitive: the table in `check::prim` expands into one loop per
/// (op, dtype); bools take the logical ops, never a shift (the builder casts first).
fn bit_binary(op: BitOp, (a, va): Input, (b, vb): Input) -> Result<HostData, Diagnostic> {
    use crate::check::prim::IntBits;
    macro_rules! ref_bits {
        ($( $V:ident $name:literal $sym:literal $rule:ident |$x:ident, $y:ident| $e:expr, $cuda:literal, $doc:literal, $ex:literal; )*) => {
            match (a, b) {
                (HostData::I32(p), HostData::I32(q)) => match op { $( BitOp::$V => Ok(HostData::I32(map2(p, va, q, vb, |$x: i32, $y: i32| $e))), )* },
                (HostData::I64(p), HostData::I64(q)) => match op { $( BitOp::$V => Ok(HostData::I64(map2(p, va, q, vb, |$x: i64, $y: i64| $e))), )* },
                (HostData::Bool(p), HostData::Bool(q)) => match op { $( BitOp::$V => ref_bits!(@bool $rule p q |$x, $y| $e), )* },
                _ => Err(internal(format!("{op:?} of {} and {}", a.dtype(), b.dtype()))),
            }
        };
        (@bool Bits $p:ident $q:ident |$x:ident, $y:ident| $e:expr) => { Ok(HostData::Bool(map2($p, va, $q, vb, |$x: bool, $y: bool| $e))) };
        (@bool Shift $p:ident $q:ident |$x:ident, $y:ident| $e:expr) => { Err(undefined(op, DType::Bool)) };
    }
    crate::for_each_binary!(ref_bits)
}

/// `where(cond, a, b)`.
pub(super) fn select((c, vc): Input, (a, va): Input, (b, vb): Input) -> Result<HostData, Diagnostic> {
    let cond = typed::<bool>(c)?;
    crate::with_data!(a, x => {
        let y = typed(b)?;
        Ok(Elem::wrap(map3((cond, vc), (x.as_slice(), va), (y, vb), |c, x, y| if c { x } else { y })))
    })
}
