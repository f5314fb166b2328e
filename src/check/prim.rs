//! The primitive table: every elementwise unary primitive is declared once,
//! on one line of `for_each_unary!`: its `UnaryOp` variant, NumPy's name,
//! its dtype rule, the CPU scalar function, the CUDA expression, a doc and
//! an example. Everything else is derived from that line:
//! - the `UnaryOp` enum, its names and its dtype rule (here);
//! - the builtin's entry in `check::builtins` (`:help`, docs/builtins.md);
//! - the one signature function (`unary_sig`) that the checker calls with
//!   partly known dtypes and the graph builder with concrete ones;
//! - the reference CPU kernel and the fused CPU executor's loops (each backend
//!   expands the table with its own callback macro into an exhaustive match);
//! - the CUDA codegen's expression.
//!
//! Adding an elementwise unary primitive is one line here plus its tests.
//!
//! Binary primitives have the same kind of table, `for_each_binary!`, for the
//! family it holds so far (the bitwise and shift operators, `BitOp`); the
//! older binary ops (`+ - * / // % **`, comparisons, `minimum`, `atan2`, ...)
//! are still matched by hand in each backend (`graph::op::BinaryOp`).

use super::dtype::DType;
use crate::diag::Diagnostic;
use crate::syntax::ast::{BinOp, Span};

/// E0400 for an integer `%` by zero (found in the data by a backend, or
/// where the divisor is a constant by the checker).
pub fn modulo_by_zero() -> Diagnostic {
    Diagnostic::spanless("E0400", "integer modulo by zero")
        .with_hint("mask the zero divisors first, e.g. `a % where(b == 0, 1, b)`, or cast to float to get NaN")
}

/// E0400 for an integer `//` by zero.
pub fn division_by_zero() -> Diagnostic {
    Diagnostic::spanless("E0400", "integer division by zero")
        .with_hint("mask the zero divisors first, e.g. `a // where(b == 0, 1, b)`, or cast to float to get inf")
}

/// E0401 for an integer raised to a negative integer power.
pub fn negative_power() -> Diagnostic {
    Diagnostic::spanless("E0401", "integers cannot be raised to negative integer powers")
        .with_hint("cast the base to float first, e.g. `(x as f64) ** n`")
}

/// How a unary primitive's output dtype follows from its input's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryRule {
    /// A real function: the input is cast to its float dtype (`to_float`), the output is that float.
    Float,
    /// Defined on numbers (not bool); the output has the input's dtype.
    Same,
    /// Rounding: on floats as `Float`; integers and bools come back unchanged (no node).
    Round,
    /// A float predicate (bool out); on integers and bools the constant the function gives at 0.
    Pred,
    /// Bool in, bool out.
    Logic,
    /// Bitwise on integers (same dtype), logical on bools; floats refused (NumPy's `invert`).
    Bits,
}

/// Calls `$m!` with the table of unary primitives, one line each:
/// `Variant "name" Rule [vmath function or nothing] |x| cpu expression, "cuda expression", "doc", "example";`
///
/// The CPU expression is expanded once per dtype it applies to (the rule
/// decides which), with `x` of that concrete type, so inherent float
/// methods (`x.ln_1p()`) and the kernels' `Num`/`Float` traits both work.
/// In the CUDA expression `{x}` is the operand and `{f}` is `f` for f32 (the
/// float function's name suffix), nothing for f64.
#[macro_export]
macro_rules! for_each_unary {
    ($m:ident) => {
        $m! {
            Neg "negative" Same [] |x| Num::neg(x), "(-{x})", "The negation -x, elementwise (the same as `-x`).", "negative(arange(3))";
            Not "logical_not" Logic [] |x| !x, "(!{x})", "Logical not, elementwise: true where x is false or zero (the operator `not` takes bools only).", "logical_not([0, 1, 2])";
            Abs "abs" Same [] |x| Num::abs(x), "arr_abs({x})", "Absolute value, elementwise.", "abs(-3)";
            Sign "sign" Same [] |x| Num::sign(x), "arr_sign({x})", "-1, 0 or 1 by the sign of x, elementwise (NaN stays NaN).", "sign(-2.0)";
            Square "square" Same [] |x| Num::mul(x, x), "(({x}) * ({x}))", "x * x, elementwise (integers stay integers).", "square(arange(4))";
            Exp "exp" Float [Exp] |x| x.exp(), "exp{f}({x})", "e raised to x, elementwise.", "exp(1.0)";
            Expm1 "expm1" Float [] |x| x.exp_m1(), "expm1{f}({x})", "exp(x) - 1, exact for small x, elementwise.", "expm1(1e-10)";
            Exp2 "exp2" Float [] |x| x.exp2(), "exp2{f}({x})", "2 raised to x, elementwise.", "exp2(10.0)";
            Log "log" Float [Log] |x| x.ln(), "log{f}({x})", "Natural logarithm, elementwise.", "log(10.0)";
            Log1p "log1p" Float [] |x| x.ln_1p(), "log1p{f}({x})", "log(1 + x), exact for small x, elementwise.", "log1p(1e-10)";
            Log2 "log2" Float [] |x| x.log2(), "log2{f}({x})", "Base-2 logarithm, elementwise.", "log2(8.0)";
            Log10 "log10" Float [] |x| x.log10(), "log10{f}({x})", "Base-10 logarithm, elementwise.", "log10(1000.0)";
            Sqrt "sqrt" Float [] |x| x.sqrt(), "sqrt{f}({x})", "Square root, elementwise.", "sqrt(2.0)";
            Cbrt "cbrt" Float [] |x| x.cbrt(), "cbrt{f}({x})", "Cube root (negative for negative x), elementwise.", "cbrt(-27.0)";
            Sin "sin" Float [Sin] |x| x.sin(), "sin{f}({x})", "Sine (radians), elementwise.", "sin(0.5)";
            Cos "cos" Float [Cos] |x| x.cos(), "cos{f}({x})", "Cosine (radians), elementwise.", "cos(0.5)";
            Tan "tan" Float [Tan] |x| x.tan(), "tan{f}({x})", "Tangent (radians), elementwise.", "tan(0.5)";
            Arcsin "arcsin" Float [] |x| x.asin(), "asin{f}({x})", "Inverse sine, in [-pi/2, pi/2], elementwise; NaN outside [-1, 1].", "arcsin(1.0)";
            Arccos "arccos" Float [] |x| x.acos(), "acos{f}({x})", "Inverse cosine, in [0, pi], elementwise; NaN outside [-1, 1].", "arccos(0.0)";
            Arctan "arctan" Float [] |x| x.atan(), "atan{f}({x})", "Inverse tangent, in (-pi/2, pi/2), elementwise.", "arctan(1.0)";
            Sinh "sinh" Float [] |x| x.sinh(), "sinh{f}({x})", "Hyperbolic sine, elementwise.", "sinh(1.0)";
            Cosh "cosh" Float [] |x| x.cosh(), "cosh{f}({x})", "Hyperbolic cosine, elementwise.", "cosh(1.0)";
            Tanh "tanh" Float [Tanh] |x| x.tanh(), "tanh{f}({x})", "Hyperbolic tangent, elementwise.", "tanh(0.5)";
            Arcsinh "arcsinh" Float [] |x| x.asinh(), "asinh{f}({x})", "Inverse hyperbolic sine, elementwise.", "arcsinh(1.0)";
            Arccosh "arccosh" Float [] |x| x.acosh(), "acosh{f}({x})", "Inverse hyperbolic cosine, elementwise; NaN below 1.", "arccosh(2.0)";
            Arctanh "arctanh" Float [] |x| x.atanh(), "atanh{f}({x})", "Inverse hyperbolic tangent, elementwise; +-inf at +-1, NaN outside.", "arctanh(0.5)";
            Erf "erf" Float [Erf] |x| Float::erf(x), "erf{f}({x})", "The error function, elementwise.", "erf(0.5)";
            Floor "floor" Round [] |x| x.floor(), "floor{f}({x})", "Largest integer not above x, elementwise (same dtype).", "floor(2.7)";
            Ceil "ceil" Round [] |x| x.ceil(), "ceil{f}({x})", "Smallest integer not below x, elementwise (same dtype).", "ceil(2.1)";
            Round "round" Round [] |x| x.round_ties_even(), "rint{f}({x})", "Nearest integer, halves to even (like NumPy), elementwise.", "round(2.5)";
            Trunc "trunc" Round [] |x| x.trunc(), "trunc{f}({x})", "The integer part (rounds towards zero), elementwise (same dtype).", "trunc(-2.7)";
            IsNan "isnan" Pred [] |x| x.is_nan(), "(({x}) != ({x}))", "True where x is NaN.", "isnan(0.0 / 0.0)";
            IsInf "isinf" Pred [] |x| x.is_infinite(), "arr_isinf({x})", "True where x is +inf or -inf.", "isinf(1.0 / 0.0)";
            IsFinite "isfinite" Pred [] |x| x.is_finite(), "arr_isfinite({x})", "True where x is neither infinite nor NaN.", "isfinite(1.0 / 0.0)";
            Invert "invert" Bits [] |x| !x, "(~{x})", "Bitwise not of integers (`~x`: -x - 1 in two's complement), logical not of bools; floats are refused, as NumPy's `invert`. `bitwise_not` and `bitwise_invert` are its other names.", "invert([0, 5, -1])";
        }
    };
}

macro_rules! declare_unary {
    ($( $V:ident $name:literal $rule:ident [$($vm:ident)?] |$x:ident| $e:expr, $cuda:literal, $doc:literal, $ex:literal; )*) => {
        /// An elementwise unary primitive (declared in `for_each_unary!`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum UnaryOp {
            $( $V, )*
        }

        impl UnaryOp {
            /// Every unary primitive, in table order.
            pub const ALL: &'static [UnaryOp] = &[$( UnaryOp::$V, )*];

            /// NumPy's name, which is also the builtin's.
            pub fn name(self) -> &'static str {
                match self { $( UnaryOp::$V => $name, )* }
            }

            pub fn rule(self) -> UnaryRule {
                match self { $( UnaryOp::$V => UnaryRule::$rule, )* }
            }

            pub fn doc(self) -> &'static str {
                match self { $( UnaryOp::$V => $doc, )* }
            }

            pub fn example(self) -> &'static str {
                match self { $( UnaryOp::$V => $ex, )* }
            }

            /// The CUDA expression template (`{x}` the operand, `{f}` the f32 suffix).
            pub fn cuda(self) -> &'static str {
                match self { $( UnaryOp::$V => $cuda, )* }
            }

            pub fn from_name(name: &str) -> Option<UnaryOp> {
                match name { $( $name => Some(UnaryOp::$V), )* _ => None }
            }
        }
    };
}

/// NumPy's other names of unary primitives (`np.bitwise_not is np.invert`).
pub fn unary_alias(name: &str) -> Option<&'static str> {
    match name {
        "bitwise_not" | "bitwise_invert" => Some("invert"),
        _ => None,
    }
}

for_each_unary!(declare_unary);

impl UnaryOp {
    /// A predicate's value on every integer (its value at 0: integers are finite, never NaN).
    pub fn pred_on_ints(self) -> bool {
        f64_pred(self, 0.0)
    }
}

/// A predicate evaluated on the host (for `pred_on_ints`).
fn f64_pred(op: UnaryOp, v: f64) -> bool {
    macro_rules! host_pred {
        ($( $V:ident $name:literal $rule:ident [$($vm:ident)?] |$x:ident| $e:expr, $cuda:literal, $doc:literal, $ex:literal; )*) => {
            match op {
                $( UnaryOp::$V => host_pred!(@arm $rule |$x| $e), )*
            }
        };
        (@arm Pred |$x:ident| $e:expr) => {{
            let $x = v;
            $e
        }};
        (@arm $rule:ident |$x:ident| $e:expr) => {
            false
        };
    }
    for_each_unary!(host_pred)
}

/// What a unary primitive does to one input dtype: the dtype the input is
/// cast to, and the output's; `None` when the result is the input itself
/// (rounding an integer) or a constant (a predicate on integers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnarySig {
    Compute { input: DType, out: DType },
    Identity,
    Constant(bool),
}

/// The signature function of every unary primitive: the checker calls it
/// with the dtype it knows, the graph builder with the array's. The error
/// (E0300) labels the operand when its span is known.
pub fn unary_sig(op: UnaryOp, name: &str, dt: DType, arg: Option<&Span>, span: &Span) -> Result<UnarySig, Diagnostic> {
    let error = |hint: &str| {
        let mut d = Diagnostic::new("E0300", format!("`{name}` is not defined for {dt}"), span.clone()).with_hint(hint);
        if let Some(s) = arg {
            d = d.with_label(s.clone(), format!("this is {dt}"));
        }
        d
    };
    Ok(match op.rule() {
        UnaryRule::Logic if dt != DType::Bool => {
            return Err(error("`not` negates bools; compare first (`not (x > 0)`)"));
        }
        UnaryRule::Logic => UnarySig::Compute {
            input: dt,
            out: DType::Bool,
        },
        UnaryRule::Same if dt == DType::Bool => {
            return Err(error("use `not` to negate bools, or cast with `as i64`"));
        }
        UnaryRule::Same => UnarySig::Compute { input: dt, out: dt },
        UnaryRule::Round if !dt.is_float() => UnarySig::Identity,
        UnaryRule::Round => UnarySig::Compute { input: dt, out: dt },
        UnaryRule::Pred if !dt.is_float() => UnarySig::Constant(op.pred_on_ints()),
        UnaryRule::Pred => UnarySig::Compute {
            input: dt,
            out: DType::Bool,
        },
        UnaryRule::Float => UnarySig::Compute {
            input: dt.to_float(),
            out: dt.to_float(),
        },
        UnaryRule::Bits if dt.is_float() => {
            return Err(error(
                "`~` (`invert`) is bitwise on integers and logical on bools; NumPy refuses floats too \
                 (\"ufunc 'invert' not supported for the input types\"): cast first (`~(x as i64)`), \
                 or compare (`not (x > 0)`)",
            ));
        }
        UnaryRule::Bits => UnarySig::Compute { input: dt, out: dt },
    })
}

impl UnaryOp {
    /// The op that computes `self` on `dt`: `~` of bools is `logical_not`, so
    /// no backend needs a bool `Invert` (C's `~true` is not `false`).
    pub fn on(self, dt: DType) -> UnaryOp {
        match self {
            UnaryOp::Invert if dt == DType::Bool => UnaryOp::Not,
            op => op,
        }
    }
}

/// How a binary primitive's dtypes follow from its operands'.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryRule {
    /// The operands promoted (NumPy 2, weak scalars); bitwise on integers,
    /// logical on bools (bool out); floats refused.
    Bits,
    /// Integers only, promoted; bools count as the default int (as arithmetic
    /// takes them); floats refused. The count follows NumPy: a count at or
    /// beyond the width, or negative, shifts every bit out (`>>` of a
    /// negative value gives -1).
    Shift,
}

/// Calls `$m!` with the table of binary primitives, one line each:
/// `Variant "numpy name" "operator" Rule |x, y| cpu expression, "cuda expression", "doc", "example";`
///
/// The variant is also the `syntax::ast::BinOp` of the operator. The CPU
/// expression is expanded once per dtype the rule admits (bool, i32, i64),
/// with `x` and `y` of that concrete type; `IntBits` supplies the shifts. In
/// the CUDA expression `{a}` and `{b}` are the operands (`kernels/prelude.cu`
/// has `arr_shl`/`arr_shr`).
#[macro_export]
macro_rules! for_each_binary {
    ($m:ident) => {
        $m! {
            BitAnd "bitwise_and" "&" Bits |x, y| x & y, "({a} & {b})", "Bitwise and of integers, logical and of bools (the same as `x1 & x2`), elementwise, broadcasting; floats are refused, as NumPy's.", "bitwise_and(12, [10, 6])";
            BitOr "bitwise_or" "|" Bits |x, y| x | y, "({a} | {b})", "Bitwise or of integers, logical or of bools (the same as `x1 | x2`), elementwise, broadcasting; floats are refused, as NumPy's.", "bitwise_or(12, [10, 6])";
            BitXor "bitwise_xor" "^" Bits |x, y| x ^ y, "({a} ^ {b})", "Bitwise exclusive or of integers, logical xor of bools (the same as `x1 ^ x2`), elementwise, broadcasting; floats are refused, as NumPy's.", "bitwise_xor(12, [10, 6])";
            Shl "left_shift" "<<" Shift |x, y| IntBits::shl(x, y), "arr_shl({a}, {b})", "x1 shifted left by x2 bits (the same as `x1 << x2`), integers only, elementwise, broadcasting; bits shifted out are lost, and a count at or beyond the width (or negative) gives 0, as NumPy's.", "left_shift(1, arange(4))";
            Shr "right_shift" ">>" Shift |x, y| IntBits::shr(x, y), "arr_shr({a}, {b})", "x1 shifted right by x2 bits (the same as `x1 >> x2`), integers only, arithmetic (the sign is kept), elementwise, broadcasting; a count at or beyond the width (or negative) gives 0, or -1 for a negative x1, as NumPy's.", "right_shift(-16, [1, 2, 70])";
        }
    };
}

macro_rules! declare_binary {
    ($( $V:ident $name:literal $sym:literal $rule:ident |$x:ident, $y:ident| $e:expr, $cuda:literal, $doc:literal, $ex:literal; )*) => {
        /// A binary elementwise primitive declared in `for_each_binary!` (the
        /// bitwise family); `graph::op::BinaryOp::Bit` carries it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum BitOp {
            $( $V, )*
        }

        impl BitOp {
            /// Every primitive of the table, in table order.
            pub const ALL: &'static [BitOp] = &[$( BitOp::$V, )*];

            /// NumPy's name, which is also the builtin's.
            pub fn name(self) -> &'static str {
                match self { $( BitOp::$V => $name, )* }
            }

            /// The infix operator.
            pub fn symbol(self) -> &'static str {
                match self { $( BitOp::$V => $sym, )* }
            }

            pub fn rule(self) -> BinaryRule {
                match self { $( BitOp::$V => BinaryRule::$rule, )* }
            }

            pub fn doc(self) -> &'static str {
                match self { $( BitOp::$V => $doc, )* }
            }

            pub fn example(self) -> &'static str {
                match self { $( BitOp::$V => $ex, )* }
            }

            /// The CUDA expression template (`{a}`, `{b}` the operands).
            pub fn cuda(self) -> &'static str {
                match self { $( BitOp::$V => $cuda, )* }
            }

            pub fn from_name(name: &str) -> Option<BitOp> {
                match name { $( $name => Some(BitOp::$V), )* _ => None }
            }

            /// The primitive of an infix operator.
            pub fn of(op: BinOp) -> Option<BitOp> {
                match op { $( BinOp::$V => Some(BitOp::$V), )* _ => None }
            }

            /// The infix operator's AST form.
            pub fn binop(self) -> BinOp {
                match self { $( BitOp::$V => BinOp::$V, )* }
            }

            /// Its value on two host integers (scalar folding), as the kernels compute it.
            pub fn eval_i64(self, x: i64, y: i64) -> i64 {
                match self { $( BitOp::$V => { let ($x, $y) = (x, y); $e } )* }
            }

            /// Its value on two host bools; `None` for a shift (bools shift as integers).
            pub fn eval_bool(self, x: bool, y: bool) -> Option<bool> {
                macro_rules! on_bool {
                    (Bits |$bx:ident, $by:ident| $be:expr) => {{ let ($bx, $by) = (x, y); Some($be) }};
                    (Shift |$bx:ident, $by:ident| $be:expr) => { None };
                }
                match self { $( BitOp::$V => on_bool!($rule |$x, $y| $e), )* }
            }
        }
    };
}

for_each_binary!(declare_binary);

/// Shifts as NumPy computes them (`npy_lshift`, `npy_rshift`): a count
/// outside `0..width` shifts every bit out instead of being undefined.
pub trait IntBits: Sized {
    fn shl(self, n: Self) -> Self;
    fn shr(self, n: Self) -> Self;
}

macro_rules! int_bits {
    ($($t:ty),*) => {$(
        impl IntBits for $t {
            #[inline(always)]
            fn shl(self, n: $t) -> $t {
                // a negative count reads as a huge unsigned one, as in NumPy's C
                if (n as u64) < <$t>::BITS as u64 { self.wrapping_shl(n as u32) } else { 0 }
            }
            #[inline(always)]
            fn shr(self, n: $t) -> $t {
                // past the width only the sign is left
                let n = if (n as u64) < <$t>::BITS as u64 { n as u32 } else { <$t>::BITS - 1 };
                self >> n
            }
        }
    )*};
}
int_bits!(i32, i64);

/// What a binary primitive computes for two operand dtypes: the dtype both
/// are converted to and the output's (they are equal: bool stays bool).
/// The checker calls it with the dtypes it knows (`promoted` is `None` when
/// one is unknown), the graph builder with the arrays'. `spans` label the
/// operands in the error (E0300), which names `name` (the operator's symbol or
/// the function's name).
pub fn bits_sig(
    op: BitOp,
    name: &str,
    operands: [(Option<DType>, Option<&Span>); 2],
    promoted: Option<DType>,
    span: &Span,
) -> Result<Option<DType>, Diagnostic> {
    for (dt, at) in operands {
        let Some(dt) = dt.filter(|d| d.is_float()) else {
            continue;
        };
        let mut d = Diagnostic::new("E0300", format!("`{name}` is not defined for {dt}"), span.clone());
        if let Some(s) = at {
            d = d.with_label(s.clone(), format!("this is {dt}"));
        }
        let mut hint = match op.rule() {
            BinaryRule::Shift => format!(
                "`{}` shifts integers; NumPy refuses floats too (\"ufunc '{}' not supported for the \
                 input types\"): cast first (`x as i64`), or scale by a power of two (`x * 2.0 ** k`)",
                op.symbol(),
                op.name()
            ),
            BinaryRule::Bits => format!(
                "`{}` takes integers (bitwise) and bools (logical); NumPy refuses floats too \
                 (\"ufunc '{}' not supported for the input types\"): cast first (`x as i64`), \
                 and compare before combining masks: `(a > 0) & (b < 1)`, as `&` binds tighter than `>`",
                op.symbol(),
                op.name()
            ),
        };
        if op == BitOp::BitXor {
            hint.push_str("; `^` is exclusive or, powers are `**`");
        }
        return Err(d.with_hint(hint));
    }
    Ok(promoted.map(|p| match op.rule() {
        BinaryRule::Shift if p == DType::Bool => DType::DEFAULT_INT,
        _ => p,
    }))
}

/// The CUDA expression of `op` on operands `a` and `b`.
pub fn cuda_binary(op: BitOp, a: &str, b: &str) -> String {
    op.cuda().replace("{a}", a).replace("{b}", b)
}

/// The CUDA expression of `op` on operand `x` of dtype `d`.
pub fn cuda_unary(op: UnaryOp, d: DType, x: &str) -> String {
    // the half floats compute in float
    let f = if d.compute() == DType::F32 { "f" } else { "" };
    op.cuda().replace("{f}", f).replace("{x}", x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for &op in UnaryOp::ALL {
            assert_eq!(UnaryOp::from_name(op.name()), Some(op));
            assert_eq!(UnaryOp::ALL.iter().filter(|o| o.name() == op.name()).count(), 1);
        }
    }

    #[test]
    fn predicates_on_integers_are_constants() {
        assert!(!UnaryOp::IsNan.pred_on_ints());
        assert!(!UnaryOp::IsInf.pred_on_ints());
        assert!(UnaryOp::IsFinite.pred_on_ints());
        let s = 0..1;
        assert_eq!(
            unary_sig(UnaryOp::IsFinite, "isfinite", DType::I32, None, &s).unwrap(),
            UnarySig::Constant(true)
        );
        assert_eq!(
            unary_sig(UnaryOp::Log1p, "log1p", DType::I64, None, &s).unwrap(),
            UnarySig::Compute {
                input: DType::F64,
                out: DType::F64
            }
        );
        assert_eq!(
            unary_sig(UnaryOp::Abs, "abs", DType::Bool, None, &s).unwrap_err().code,
            "E0300"
        );
    }

    #[test]
    fn shifts_follow_numpy_past_the_width() {
        // np.left_shift / np.right_shift on int32 and int64
        assert_eq!(IntBits::shl(1i32, 31), i32::MIN);
        assert_eq!(IntBits::shl(1i32, 32), 0);
        assert_eq!(IntBits::shl(-1i64, 64), 0);
        assert_eq!(IntBits::shl(3i64, -1), 0);
        assert_eq!(IntBits::shr(-16i32, 2), -4);
        assert_eq!(IntBits::shr(-16i32, 40), -1);
        assert_eq!(IntBits::shr(16i64, 64), 0);
        assert_eq!(IntBits::shr(-5i64, -1), -1);
        assert_eq!(BitOp::BitXor.eval_i64(12, 10), 6);
        assert_eq!(BitOp::BitOr.eval_bool(true, false), Some(true));
        assert_eq!(BitOp::Shl.eval_bool(true, true), None);
    }

    #[test]
    fn bit_names_are_unique_and_found() {
        for &op in BitOp::ALL {
            assert_eq!(BitOp::from_name(op.name()), Some(op));
            assert!(UnaryOp::from_name(op.name()).is_none());
        }
    }

    #[test]
    fn cuda_expressions_pick_the_float_suffix() {
        assert_eq!(cuda_unary(UnaryOp::Log1p, DType::F32, "s0"), "log1pf(s0)");
        assert_eq!(cuda_unary(UnaryOp::Log1p, DType::F64, "s0"), "log1p(s0)");
    }
}
