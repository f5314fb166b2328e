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
//!
//! The narrow integers `u8`, `i8`, `i16`, `u16` and `u32` are storage
//! formats in the same way: their values are computed as i64 and wrapped
//! once, to the dtype's width, where a result is stored. For `+ - * ** << & |
//! ^ ~` and negation that is exactly NumPy's wrapping arithmetic (wrapping is
//! a ring homomorphism); comparisons, `//`, `%`, `>>`, `min` and `max` of
//! in-range operands are exact in i64. Two integers promote as NumPy 2's
//! table does (`u8` with `i8` gives `i16`, `u32` with `i32` gives `i64`).
//! Reductions that accumulate (`sum`, `prod`, `cumsum`) give i64 for every
//! integer narrower than 64 bits, where NumPy gives `u64` for the unsigned
//! ones; `u64` itself is not an Arr dtype.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    // The integers in order of width; `promote` reads signedness from `int_bits`.
    U8,
    I8,
    I16,
    U16,
    I32,
    U32,
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
    pub const ALL: [DType; 12] = [
        DType::Bool,
        DType::U8,
        DType::I8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
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
            DType::U8 => "u8",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::U16 => "u16",
            DType::I32 => "i32",
            DType::U32 => "u32",
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
            "u8" | "uint8" => DType::U8,
            "i8" | "int8" => DType::I8,
            "i16" | "int16" => DType::I16,
            "u16" | "uint16" => DType::U16,
            "i32" | "int32" => DType::I32,
            "u32" | "uint32" => DType::U32,
            "i64" | "int" | "int64" => DType::I64,
            "f32" | "float" | "float32" => DType::F32,
            "f64" | "float64" => DType::F64,
            // NumPy's and PyTorch's spellings of the half floats, as `int` and `float` are for the others
            "f16" | "float16" => DType::F16,
            "bf16" | "bfloat16" => DType::BF16,
            _ => return None,
        })
    }

    /// The dtype of a NumPy type code (`"f8"`, `"<i4"`, `"|u1"`): a kind
    /// letter and a width in bytes, after an optional byte-order mark.
    pub fn from_numpy_code(code: &str) -> Option<DType> {
        let code = code.trim_start_matches(['<', '|', '=']);
        Some(match code {
            "b1" | "?" => DType::Bool,
            "u1" => DType::U8,
            "i1" => DType::I8,
            "i2" => DType::I16,
            "u2" => DType::U16,
            "i4" => DType::I32,
            "u4" => DType::U32,
            "i8" => DType::I64,
            "f2" => DType::F16,
            "f4" => DType::F32,
            "f8" => DType::F64,
            _ => return None,
        })
    }

    pub fn kind(self) -> Kind {
        match self {
            DType::Bool => Kind::Bool,
            DType::U8 | DType::I8 | DType::I16 | DType::U16 | DType::I32 | DType::U32 | DType::I64 => Kind::Int,
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

    /// The narrow integers `u8`, `i8`, `i16`, `u16`, `u32`: stored at their
    /// width, computed in i64.
    pub fn is_narrow_int(self) -> bool {
        matches!(self, DType::U8 | DType::I8 | DType::I16 | DType::U16 | DType::U32)
    }

    /// A dtype kernels only load, store and cast: its values are computed in `compute()`.
    pub fn is_storage_only(self) -> bool {
        self.is_half() || self.is_narrow_int()
    }

    /// The dtype kernels compute a value of this dtype in (f32 for the half
    /// floats, i64 for the narrow integers).
    pub fn compute(self) -> DType {
        if self.is_half() {
            DType::F32
        } else if self.is_narrow_int() {
            DType::I64
        } else {
            self
        }
    }

    /// An integer dtype's width in bits and whether it is signed.
    pub fn int_bits(self) -> Option<(u32, bool)> {
        Some(match self {
            DType::U8 => (8, false),
            DType::I8 => (8, true),
            DType::I16 => (16, true),
            DType::U16 => (16, false),
            DType::I32 => (32, true),
            DType::U32 => (32, false),
            DType::I64 => (64, true),
            _ => return None,
        })
    }

    /// The smallest and largest value of an integer dtype.
    pub fn int_range(self) -> Option<(i64, i64)> {
        let (bits, signed) = self.int_bits()?;
        Some(if bits == 64 {
            (i64::MIN, i64::MAX)
        } else if signed {
            (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
        } else {
            (0, (1i64 << bits) - 1)
        })
    }

    /// The integer dtype of `bits` bits and the given signedness.
    fn int_of(bits: u32, signed: bool) -> DType {
        match (bits, signed) {
            (8, false) => DType::U8,
            (8, true) => DType::I8,
            (16, true) => DType::I16,
            (16, false) => DType::U16,
            (32, true) => DType::I32,
            (32, false) => DType::U32,
            _ => DType::I64,
        }
    }

    pub fn is_int(self) -> bool {
        self.kind() == Kind::Int
    }

    pub fn size_bytes(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
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
            // The other integers follow i32 (NumPy gives f16 for u8/i8, f32
            // for i16/u16, f64 for u32).
            DType::Bool | DType::U8 | DType::I8 | DType::I16 | DType::U16 | DType::I32 | DType::U32 => DType::F32,
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
/// (NumPy 2 table restricted to Arr's dtypes; i64 with f32 gives f64, any
/// narrower integer with f32 gives f32, as i32 does;
/// the half floats as PyTorch: any int or bool with one gives it, f16 with bf16 gives f32).
pub fn promote(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    if let (Some((x, sx)), Some((y, sy))) = (a.int_bits(), b.int_bits()) {
        return if sx == sy {
            DType::int_of(x.max(y), sx)
        } else {
            // an unsigned and a signed integer: the signed one if it is wider,
            // else the signed integer twice as wide as the unsigned one
            let (u, s) = if sx { (y, x) } else { (x, y) };
            DType::int_of(if s > u { s } else { 2 * u }, true)
        };
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
    fn integers_promote_as_numpy_2() {
        use DType::*;
        // np.promote_types for every pair of Arr's integers (and bool)
        for (a, b, want) in [
            (U8, I8, I16),
            (U8, I16, I16),
            (U8, U16, U16),
            (U8, I32, I32),
            (U8, U32, U32),
            (U8, I64, I64),
            (I8, I16, I16),
            (I8, U16, I32),
            (I8, U32, I64),
            (I16, U16, I32),
            (I16, U32, I64),
            (U16, I32, I32),
            (U16, U32, U32),
            (I32, U32, I64),
            (U32, I64, I64),
            (Bool, U8, U8),
            (Bool, I8, I8),
            (U8, F32, F32),
            (U32, F64, F64),
            (U8, F16, F16),
        ] {
            assert_eq!(promote(a, b), want, "{a} with {b}");
            assert_eq!(promote(b, a), want, "{b} with {a}");
        }
        assert_eq!(promote_weak(U8, false, I64, true), (U8, false));
        assert_eq!(promote_weak(I16, false, F32, true), (F32, false));
        assert_eq!(U8.int_range(), Some((0, 255)));
        assert_eq!(I8.int_range(), Some((-128, 127)));
        assert_eq!(U32.int_range(), Some((0, 4294967295)));
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
