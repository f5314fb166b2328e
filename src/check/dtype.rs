//! Element types and NumPy 2 promotion, including "weak" values: a literal, a
//! list of literals, or arithmetic on literals only adopts the dtype of the
//! array it meets. One deliberate difference from NumPy 2, as in JAX and
//! PyTorch: `bool`/`i32` with `f32` (or a float literal, or a real function of
//! them) stays `f32`, Arr's default float, where NumPy gives `f64`
//! (docs/language.md, "dtypes and promotion"; tests/numerics.rs checks every rule).
//!
//! The half floats `f16` and `bf16` follow PyTorch and JAX: an integer or
//! bool array of any width with a half float gives the half float (NumPy 2
//! gives `f32`/`f64` for `i32`/`i64` with `float16`), `f16` with `bf16`
//! gives `f32`, and a float literal stays weak (`h * 0.5` is `f16`). They
//! are storage formats: every kernel computes on f32 values and rounds once
//! when it stores an `f16`/`bf16` result.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    I32,
    I64,
    // The half floats sit below F32 so that `max` picks the wider float in `promote`.
    F16,
    BF16,
    F32,
    F64,
}

/// The dtype kinds NumPy's promotion rules reason about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Bool,
    Int,
    Float,
}

impl DType {
    pub const ALL: [DType; 7] = [
        DType::Bool,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];

    /// The dtype an integer literal gets when nothing else decides.
    pub const DEFAULT_INT: DType = DType::I64;
    /// The dtype a float literal (and `rand`, `zeros`, ...) gets when nothing else decides.
    pub const DEFAULT_FLOAT: DType = DType::F32;

    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    pub fn parse(name: &str) -> Option<DType> {
        Some(match name {
            "bool" => DType::Bool,
            // NumPy's names too, as a ported `dtype="float64"` or `x as int32` writes them
            "i32" | "int32" => DType::I32,
            "i64" | "int" | "int64" => DType::I64,
            "f32" | "float" | "float32" => DType::F32,
            "f64" | "float64" => DType::F64,
            // NumPy's and PyTorch's spellings of the half floats, as `int` and `float` are for the others
            "f16" | "float16" => DType::F16,
            "bf16" | "bfloat16" => DType::BF16,
            _ => return None,
        })
    }

    pub fn kind(self) -> Kind {
        match self {
            DType::Bool => Kind::Bool,
            DType::I32 | DType::I64 => Kind::Int,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => Kind::Float,
        }
    }

    pub fn is_float(self) -> bool {
        self.kind() == Kind::Float
    }

    /// `f16` or `bf16`: stored in 16 bits, computed in f32.
    pub fn is_half(self) -> bool {
        matches!(self, DType::F16 | DType::BF16)
    }

    /// The dtype kernels compute a value of this dtype in (f32 for the half floats).
    pub fn compute(self) -> DType {
        if self.is_half() { DType::F32 } else { self }
    }

    pub fn is_int(self) -> bool {
        self.kind() == Kind::Int
    }

    pub fn size_bytes(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 => 8,
        }
    }

    /// The dtype that real-valued functions (exp, sqrt, mean, `/`) produce.
    pub fn to_float(self) -> DType {
        match self {
            DType::F64 => DType::F64,
            DType::F32 => DType::F32,
            DType::F16 => DType::F16,
            DType::BF16 => DType::BF16,
            // NumPy maps int -> f64; Arr's default float is f32 (fast on GPUs), so
            // bool and i32 map there, a documented difference; i64 maps to f64,
            // whose 53-bit mantissa keeps far more of its range than f32's 24.
            DType::Bool | DType::I32 => DType::F32,
            DType::I64 => DType::F64,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Promotion of two strong dtypes: the smallest dtype that holds both
/// (NumPy 2 table restricted to Arr's dtypes; i64 with f32 gives f64;
/// the half floats as PyTorch: any int or bool with one gives it, f16 with bf16 gives f32).
pub fn promote(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    match (a.max(b), a.min(b)) {
        (F32, I64) => F64,
        // neither half float holds the other (bf16 has the range, f16 the precision)
        (BF16, F16) => F32,
        (hi, _) => hi,
    }
}

/// Promotion where either side may be weak (a literal-derived scalar).
/// A weak operand never widens a strong one of the same or higher kind.
pub fn promote_weak(a: DType, a_weak: bool, b: DType, b_weak: bool) -> (DType, bool) {
    match (a_weak, b_weak) {
        (false, false) => (promote(a, b), false),
        // Two literals: the one of the higher kind decides (`1 + 0.5` is a float literal).
        (true, true) if a.kind() != b.kind() => (if a.kind() > b.kind() { a } else { b }, true),
        (true, true) => (promote(a, b), true),
        (false, true) => (promote_strong_weak(a, b), false),
        (true, false) => (promote_strong_weak(b, a), false),
    }
}

fn promote_strong_weak(strong: DType, weak: DType) -> DType {
    if weak.kind() <= strong.kind() {
        strong
    } else {
        match weak.kind() {
            Kind::Float => DType::DEFAULT_FLOAT.max(strong.to_float()),
            Kind::Int => DType::DEFAULT_INT,
            Kind::Bool => strong,
        }
    }
}

/// Whether `x op y` of two i64 integers made from literals is an i64: such
/// arithmetic is exact or an error (E0307), never wrapped. `op` is
/// `+ - * ** <<`; every other operator fits. The interpreter and the checker
/// (with the values it knows) both ask here.
pub fn literal_int_op_fits(op: crate::syntax::ast::BinOp, x: i64, y: i64) -> bool {
    use crate::syntax::ast::BinOp;
    match op {
        BinOp::Add => x.checked_add(y).is_some(),
        BinOp::Sub => x.checked_sub(y).is_some(),
        BinOp::Mul => x.checked_mul(y).is_some(),
        // a negative power is refused on its own path
        BinOp::Pow if y >= 0 => matches!(x, -1..=1) || u32::try_from(y).is_ok_and(|e| x.checked_pow(e).is_some()),
        // exact unless bits leave the value (Python's `<<` has no width); a
        // negative count gives 0 as NumPy's does
        BinOp::Shl => x == 0 || y < 0 || (y < 64 && (x << y) >> y == x),
        _ => true,
    }
}

/// The E0307 of a literal integer operation that does not fit i64.
pub fn literal_int_overflow_error(
    op: crate::syntax::ast::BinOp,
    x: i64,
    y: i64,
    span: &crate::syntax::ast::Span,
) -> crate::diag::Diagnostic {
    crate::diag::Diagnostic::new(
        "E0307",
        format!("`{x} {} {y}` does not fit in i64", op.symbol()),
        span.clone(),
    )
    .with_hint(
        "integers made from literals are i64 and are not wrapped silently; write a float (1e20) for a large value",
    )
}

/// What a dtype's name called as a function gives (`parse` has already read
/// the name as `dtype`): Python's `float`, `int` and `bool` make a scalar of
/// one element, as f64, i64 and bool (Python's float is a double); any other
/// name casts the array to its dtype, as NumPy's `np.float32(a)`. The bool is
/// whether the result is such a scalar.
pub fn dtype_call(name: &str, dtype: DType) -> (DType, bool) {
    match name {
        "float" => (DType::F64, true),
        "int" => (DType::I64, true),
        "bool" => (DType::Bool, true),
        _ => (dtype, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strong_promotion_follows_numpy() {
        assert_eq!(promote(DType::I32, DType::F32), DType::F32);
        assert_eq!(promote(DType::I64, DType::F32), DType::F64);
        assert_eq!(promote(DType::Bool, DType::I32), DType::I32);
        assert_eq!(promote(DType::F32, DType::F64), DType::F64);
    }

    #[test]
    fn half_floats_promote_as_pytorch() {
        use DType::*;
        for (a, b, want) in [
            (F16, F32, F32),
            (F16, F64, F64),
            (BF16, F32, F32),
            (BF16, F64, F64),
            (F16, BF16, F32),
            (I64, F16, F16),
            (I32, BF16, BF16),
            (Bool, F16, F16),
        ] {
            assert_eq!(promote(a, b), want, "{a} with {b}");
            assert_eq!(promote(b, a), want, "{b} with {a}");
        }
        assert_eq!(promote_weak(F16, false, F64, true), (F16, false));
        assert_eq!(promote_weak(BF16, false, I64, true), (BF16, false));
        assert_eq!(F16.to_float(), F16);
    }

    #[test]
    fn weak_scalars_do_not_widen() {
        assert_eq!(promote_weak(DType::F32, false, DType::F32, true), (DType::F32, false));
        assert_eq!(promote_weak(DType::I32, false, DType::I64, true), (DType::I32, false));
        assert_eq!(promote_weak(DType::I32, false, DType::F32, true), (DType::F32, false));
        assert_eq!(promote_weak(DType::Bool, false, DType::I64, true), (DType::I64, false));
        assert_eq!(promote_weak(DType::I64, true, DType::F32, true), (DType::F32, true));
    }
}
