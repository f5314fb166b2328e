//! The table of builtin functions: names, parameters, documentation and an
//! example each. It drives argument binding (in the checker and at run
//! time), the REPL's completion and `:help`, and `docs/builtins.md`.

use crate::check::prim::BitOp;
use crate::diag::{Diagnostic, closest};
use crate::syntax::ast::{BinOp, Span};
use std::sync::LazyLock;

/// How a builtin's parameter is passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// An array operand (graph input).
    Array,
    /// A value needed while building the graph: a shape, an axis, a count, a
    /// dtype name, a flag. It must be known before the statement runs.
    Static,
    /// Any number of trailing positional values (`print`).
    Rest,
    /// An array operand that may be `none` (a bound of `clip` left open):
    /// required all the same, as NumPy requires it.
    ArrayOrNone,
}

#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
    pub required: bool,
    /// The strings a static parameter may be (`mode="reduced"`); empty: no
    /// such rule. The checker tests a literal, the run every value
    /// (`Builtin::check_choice`).
    pub choices: &'static [&'static str],
    /// Other names a keyword argument may give it (NumPy's, where Arr's differ).
    pub aliases: &'static [&'static str],
    /// A static parameter read as one integer: the axis of a function that
    /// works along one axis (`argmax`, `cumsum`, `sort`), where NumPy's
    /// reductions take a tuple. The checker and the run refuse a tuple or a
    /// list by one rule (`Builtin::one_integer`).
    pub one_integer: bool,
}

impl ParamSpec {
    /// The parameter, also bound by the keywords `aliases`.
    const fn or(self, aliases: &'static [&'static str]) -> ParamSpec {
        ParamSpec { aliases, ..self }
    }
}

#[derive(Debug)]
pub struct Builtin {
    pub name: &'static str,
    pub params: &'static [ParamSpec],
    /// Signature as shown in help, e.g. `sum(x, axis=none, keepdims=false)`.
    pub signature: &'static str,
    pub doc: &'static str,
    pub example: &'static str,
    pub category: &'static str,
}

const fn a(name: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Array,
        required: true,
        choices: &[],
        aliases: &[],
        one_integer: false,
    }
}
const fn s(name: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Static,
        required: true,
        choices: &[],
        aliases: &[],
        one_integer: false,
    }
}
const fn so(name: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Static,
        required: false,
        choices: &[],
        aliases: &[],
        one_integer: false,
    }
}
const fn ao(name: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Array,
        required: false,
        choices: &[],
        aliases: &[],
        one_integer: false,
    }
}
const fn an(name: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::ArrayOrNone,
        required: true,
        choices: &[],
        aliases: &[],
        one_integer: false,
    }
}
/// The optional `axis` of a function that works along one axis.
const fn axis1() -> ParamSpec {
    ParamSpec {
        one_integer: true,
        ..so("axis")
    }
}
/// An optional static string, one of `choices`.
const fn sc(name: &'static str, choices: &'static [&'static str]) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Static,
        required: false,
        choices,
        aliases: &[],
        one_integer: false,
    }
}
const fn rest(name: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Rest,
        required: false,
        choices: &[],
        aliases: &[],
        one_integer: false,
    }
}

/// NumPy's sorting algorithms: each is a stable radix or merge sort in Arr.
const SORT_KINDS: &[&str] = &["quicksort", "mergesort", "heapsort", "stable"];
/// NumPy's `UPLO`, which it upper-cases first.
const UPLO: &[&str] = &["L", "U", "l", "u"];

macro_rules! builtins {
    ($( $cat:literal { $( $name:literal ( $($p:expr),* ) $sig:literal $doc:literal $ex:literal ;)* } )*) => {
        /// The hand-written entries (every builtin but the unary primitives).
        static TABLE: &[Builtin] = &[
            $($( Builtin { name: $name, params: &[$($p),*], signature: $sig, doc: $doc, example: $ex, category: $cat }, )*)*
        ];
    };
}

/// The unary primitives' entries, from their lines in `check::prim`.
macro_rules! unary_builtins {
    ($( $V:ident $name:literal $rule:ident [$($vm:ident)?] |$x:ident| $e:expr, $cuda:literal, $doc:literal, $ex:literal; )*) => {
        static UNARY: &[Builtin] = &[
            $( Builtin { name: $name, params: &[a("x"), ao("out")], signature: concat!($name, "(x, out=none)"), doc: $doc, example: $ex, category: "elementwise" }, )*
        ];
    };
}
crate::for_each_unary!(unary_builtins);

/// The binary primitives' entries (the bitwise family), from their lines in `check::prim`.
macro_rules! binary_builtins {
    ($( $V:ident $name:literal $sym:literal $rule:ident |$x:ident, $y:ident| $e:expr, $cuda:literal, $doc:literal, $ex:literal; )*) => {
        static BINARY: &[Builtin] = &[
            $( Builtin { name: $name, params: &[a("x1"), a("x2"), ao("out")], signature: concat!($name, "(x1, x2, out=none)"), doc: $doc, example: $ex, category: "elementwise" }, )*
        ];
    };
}
crate::for_each_binary!(binary_builtins);

/// Every builtin, in documentation order: the table, with the unary and
/// then the binary primitives at the head of the "elementwise" category.
pub static BUILTINS: LazyLock<Vec<&'static Builtin>> = LazyLock::new(|| {
    let at = TABLE
        .iter()
        .position(|b| b.category == "elementwise")
        .unwrap_or(TABLE.len());
    // a table entry of a primitive's name (with more parameters) replaces the primitive's own
    let unary = UNARY.iter().filter(|u| TABLE.iter().all(|t| t.name != u.name));
    TABLE[..at]
        .iter()
        .chain(unary)
        .chain(BINARY)
        .chain(&TABLE[at..])
        .collect()
});

builtins! {
    "creation" {
        "zeros"(s("shape"), so("dtype")) "zeros(shape, dtype=f32)" "An array of zeros. `shape` is an int, list or tuple." "zeros([2, 3])";
        "ones"(s("shape"), so("dtype")) "ones(shape, dtype=f32)" "An array of ones." "ones(4, dtype=i32)";
        "full"(s("shape"), a("value").or(&["fill_value"]), so("dtype")) "full(shape, value, dtype=value's)" "An array filled with `value` (NumPy's keyword `fill_value=` names it too)." "full([2, 2], 7.5)";
        "zeros_like"(a("x"), so("dtype")) "zeros_like(x, dtype=x's)" "Zeros with the shape (and dtype) of `x`." "zeros_like(rand([3]))";
        "ones_like"(a("x"), so("dtype")) "ones_like(x, dtype=x's)" "Ones with the shape (and dtype) of `x`." "ones_like(rand([3]))";
        "full_like"(a("x"), a("value"), so("dtype")) "full_like(x, value, dtype=x's)" "`value` with the shape of `x`." "full_like(rand([3]), 2)";
        "arange"(s("start"), so("stop"), so("step"), so("dtype")) "arange(start, stop=none, step=1, dtype=from the arguments)" "Evenly spaced values in [start, stop); `arange(n)` is 0..n. Integers give i64, any float gives f32." "arange(5)";
        "linspace"(s("start"), s("stop"), so("num"), so("endpoint"), so("retstep"), so("dtype")) "linspace(start, stop, num=50, endpoint=true, retstep=false, dtype=f32)" "`num` evenly spaced values from start to stop (stop included when `endpoint`); with `retstep` the tuple (values, step)." "linspace(0, 1, 5)";
        "eye"(s("n").or(&["N"]), so("m").or(&["M"]), so("k"), so("dtype")) "eye(n, m=n, k=0, dtype=f32)" "The identity matrix (ones on the diagonal); with `k`, ones on the k-th diagonal above the main one (below for negative k). NumPy's keywords `N=` and `M=` name `n` and `m` too." "eye(3)";
        "rand"(s("shape"), so("dtype")) "rand(shape, dtype=f32)" "Uniform random numbers in [0, 1); reproducible (see `seed`)." "rand([2, 2])";
        "randn"(s("shape"), so("dtype")) "randn(shape, dtype=f32)" "Standard normal random numbers; reproducible (see `seed`)." "randn([3])";
        "seed"(s("n")) "seed(n)" "Restarts the random number sequence from seed `n` (the session starts with seed 0)." "seed(42)";
        "array"(a("object"), so("dtype")) "array(object, dtype=object's)" "A new array with the values of `object` (a list such as `[[1, 2], [3, 4]]`, or any array), cast to `dtype` when given, as NumPy's `np.array`. A list is already an array where a function takes one." "array([[1, 2], [3, 4]], dtype=f32)";
        "asarray"(a("object"), so("dtype")) "asarray(object, dtype=object's)" "`object` as an array of `dtype` (when given): the array itself when it already is one of that dtype, as NumPy's `np.asarray`." "asarray([1.5, 2.5])";
        "copy"(a("x")) "copy(x)" "A new array with the values of `x` (not a view)." "copy(rand([2])[::-1])";
        "realize"(a("x")) "realize(x)" "Computes `x` now and returns it (evaluation is otherwise lazy); for timing and for inputs that must not be fused into their consumers." "realize(rand([3]))";
    }
    "shape" {
        "reshape"(a("x"), s("shape")) "reshape(x, shape)" "The same elements in a new shape; one size may be -1." "reshape(arange(6), [2, 3])";
        "transpose"(a("x"), so("axes")) "transpose(x, axes=reversed)" "Reorders the axes (a view); by default reverses them." "transpose(rand([2, 3]))";
        "permute"(a("x"), s("axes")) "permute(x, axes)" "Reorders the axes (a view): axis k of the result is axis axes[k] of x." "permute(rand([2, 3, 4]), (2, 0, 1))";
        "expand_dims"(a("x"), s("axis")) "expand_dims(x, axis)" "Inserts a size-1 axis (a view); with a tuple of axes, one at each of them in the result, as NumPy." "expand_dims(arange(3), 0)";
        "squeeze"(a("x"), so("axis")) "squeeze(x, axis=all size-1 axes)" "Removes size-1 axes (a view)." "squeeze(zeros([1, 3, 1]))";
        "broadcast_to"(a("x"), s("shape")) "broadcast_to(x, shape)" "A read-only view of x broadcast to `shape`." "broadcast_to(arange(3), [2, 3])";
        "ravel"(a("x")) "ravel(x)" "The elements in one axis, row-major: a view where the layout allows (NumPy's `ravel`; `flatten` always copies)." "ravel(eye(2))";
        "flatten"(a("x")) "flatten(x)" "The elements in one axis, row-major: a copy (NumPy's `flatten`; `reshape` gives a view)." "flatten(eye(2))";
        "flip"(a("x"), so("axis")) "flip(x, axis=all)" "Reverses the order along an axis (a view)." "flip(arange(4))";
        "concat"(a("arrays"), axis1()) "concat(arrays, axis=0)" "Joins a list or tuple of arrays along an existing axis." "concat([arange(2), arange(3)])";
        "concatenate"(a("arrays"), axis1()) "concatenate(arrays, axis=0)" "NumPy's name of `concat`." "concatenate([arange(2), arange(3)])";
        "stack"(a("arrays"), axis1()) "stack(arrays, axis=0)" "Joins arrays of one shape along a new axis." "stack([arange(2), arange(2)], axis=1)";
        "vstack"(a("tup")) "vstack(tup)" "Joins arrays along the first axis, vectors taken as rows (shape [1, n]), as NumPy's `vstack`." "vstack([arange(3), arange(3)])";
        "hstack"(a("tup")) "hstack(tup)" "Joins arrays along the second axis, or vectors end to end, as NumPy's `hstack`." "hstack([arange(2), arange(3)])";
        "column_stack"(a("tup")) "column_stack(tup)" "Joins vectors as the columns of a matrix (matrices along their second axis), as NumPy's `column_stack`." "column_stack([arange(3), arange(3) * 2])";
    }
    "elementwise" {
        "round"(a("x"), so("decimals"), ao("out")) "round(x, decimals=0, out=none)" "Nearest integer, halves to even (like NumPy), elementwise; with `decimals`, to that many decimal places (negative: to tens, hundreds, ...), as NumPy's `round` (x * 10**decimals rounded, then divided back)." "round(2.675, decimals=2)";
        "logical_and"(a("x1"), a("x2"), ao("out")) "logical_and(x1, x2, out=none)" "True where both are true (nonzero), elementwise, broadcasting; on bools the same as `x1 and x2`." "logical_and([true, false], [1, 1])";
        "logical_or"(a("x1"), a("x2"), ao("out")) "logical_or(x1, x2, out=none)" "True where either is true (nonzero), elementwise, broadcasting; on bools the same as `x1 or x2`." "logical_or([true, false], 0.0)";
        "bitwise_not"(a("x"), ao("out")) "bitwise_not(x, out=none)" "NumPy's other name of `invert`: `~x`." "bitwise_not([0, 5, -1])";
        "bitwise_invert"(a("x"), ao("out")) "bitwise_invert(x, out=none)" "NumPy 2's (and the array API's) other name of `invert`: `~x`." "bitwise_invert([true, false])";
        "logical_xor"(a("x1"), a("x2"), ao("out")) "logical_xor(x1, x2, out=none)" "True where exactly one is true (nonzero), elementwise, broadcasting." "logical_xor([true, false], [true, true])";
        "minimum"(a("a"), a("b"), ao("out")) "minimum(a, b, out=none)" "Elementwise minimum, broadcasting; NaN propagates." "minimum(arange(4), 2)";
        "maximum"(a("a"), a("b"), ao("out")) "maximum(a, b, out=none)" "Elementwise maximum, broadcasting; NaN propagates." "maximum(arange(4), 2)";
        "atan2"(a("y"), a("x"), ao("out")) "atan2(y, x, out=none)" "Angle of the point (x, y), elementwise." "atan2(1.0, 1.0)";
        "arctan2"(a("x1"), a("x2"), ao("out")) "arctan2(x1, x2, out=none)" "NumPy's name of `atan2`: the angle of the point (x2, x1), elementwise." "arctan2(1.0, -1.0)";
        "hypot"(a("x1"), a("x2"), ao("out")) "hypot(x1, x2, out=none)" "sqrt(x1**2 + x2**2) without overflow, elementwise, broadcasting." "hypot(3.0, 4.0)";
        "add"(a("x1"), a("x2"), ao("out")) "add(x1, x2, out=none)" "`x1 + x2`, as NumPy's function of the operator." "add(arange(3), 1)";
        "subtract"(a("x1"), a("x2"), ao("out")) "subtract(x1, x2, out=none)" "`x1 - x2`, as NumPy's function of the operator." "subtract(arange(3), 1)";
        "multiply"(a("x1"), a("x2"), ao("out")) "multiply(x1, x2, out=none)" "`x1 * x2`, as NumPy's function of the operator." "multiply(arange(3), 2)";
        "divide"(a("x1"), a("x2"), ao("out")) "divide(x1, x2, out=none)" "`x1 / x2` (always a float division), as NumPy's function of the operator." "divide(arange(3), 2)";
        "true_divide"(a("x1"), a("x2"), ao("out")) "true_divide(x1, x2, out=none)" "The same as `divide`: `x1 / x2`." "true_divide(7, 2)";
        "power"(a("x1"), a("x2"), ao("out")) "power(x1, x2, out=none)" "`x1 ** x2`, as NumPy's function of the operator (an integer to a negative integer power is an error)." "power(arange(4), 2)";
        "mod"(a("x1"), a("x2"), ao("out")) "mod(x1, x2, out=none)" "`x1 % x2`: Python's modulo, with the sign of the divisor, as NumPy's `mod`." "mod(-7, 3)";
        "remainder"(a("x1"), a("x2"), ao("out")) "remainder(x1, x2, out=none)" "The same as `mod`: `x1 % x2`." "remainder(arange(5), 3)";
        "equal"(a("x1"), a("x2"), ao("out")) "equal(x1, x2, out=none)" "`x1 == x2`, elementwise, as NumPy's function of the operator." "equal(arange(3), 1)";
        "not_equal"(a("x1"), a("x2"), ao("out")) "not_equal(x1, x2, out=none)" "`x1 != x2`, elementwise." "not_equal(arange(3), 1)";
        "less"(a("x1"), a("x2"), ao("out")) "less(x1, x2, out=none)" "`x1 < x2`, elementwise." "less(arange(3), 1)";
        "less_equal"(a("x1"), a("x2"), ao("out")) "less_equal(x1, x2, out=none)" "`x1 <= x2`, elementwise." "less_equal(arange(3), 1)";
        "greater"(a("x1"), a("x2"), ao("out")) "greater(x1, x2, out=none)" "`x1 > x2`, elementwise." "greater(arange(3), 1)";
        "greater_equal"(a("x1"), a("x2"), ao("out")) "greater_equal(x1, x2, out=none)" "`x1 >= x2`, elementwise." "greater_equal(arange(3), 1)";
        "floor_divide"(a("x1"), a("x2"), ao("out")) "floor_divide(x1, x2, out=none)" "Floor division, the same as `x1 // x2`: integers round toward -inf (division by zero is an error), floats follow NumPy." "floor_divide(-7, 2)";
        "clip"(a("x").or(&["a"]), an("lo").or(&["a_min", "min"]), an("hi").or(&["a_max", "max"]), ao("out")) "clip(x, lo, hi, out=none)" "Limits x to [lo, hi], elementwise (broadcasting); either bound may be `none`, not both. NumPy's keywords name them too: `a=`, `a_min=` (or `min=`), `a_max=` (or `max=`)." "clip(arange(6), 1, 4)";
        "where"(a("cond"), ao("a"), ao("b")) "where(cond, a, b)" "a where cond is true, else b (broadcasting); `where(cond)` alone is `nonzero(cond)`." "where(arange(4) > 1, 1.0, 0.0)";
        "nan_to_num"(a("x"), so("copy"), so("nan"), so("posinf"), so("neginf")) "nan_to_num(x, copy=true, nan=0.0, posinf=none, neginf=none)" "A copy of x (`copy` is accepted for NumPy's sake: Arr always copies) with NaN replaced by `nan`, +inf by `posinf` and -inf by `neginf` (by default the dtype's largest and smallest finite values); integers are returned unchanged." "nan_to_num([0.0 / 0.0, 1.0 / 0.0, 2.0])";
        "isclose"(a("a"), a("b"), so("rtol"), so("atol"), so("equal_nan")) "isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=false)" "True where |a - b| <= atol + rtol * |b| (broadcasting); infinities are close only to themselves; NaNs only when `equal_nan`." "isclose([1.0, 2.0], [1.0 + 1e-9, 2.1])";
        "allclose"(a("a"), a("b"), so("rtol"), so("atol"), so("equal_nan")) "allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=false)" "Whether `isclose` holds everywhere: one bool." "allclose([1.0, 2.0], [1.0, 2.0 + 1e-7])";
        "array_equal"(a("a1"), a("a2"), so("equal_nan")) "array_equal(a1, a2, equal_nan=false)" "Whether the arrays have the same shape and the same elements (NaNs equal only when `equal_nan`): one bool." "array_equal(arange(3), [0, 1, 2])";
    }
    "reduction" {
        "sum"(a("x"), so("axis"), so("keepdims"), so("dtype"), ao("initial"), ao("where"), ao("out")) "sum(x, axis=none, keepdims=false, dtype=none, initial=0, where=true, out=none)" "Sum over the given axis or axes (all when none). Sums of bool and i32 are i64; with `dtype`, the values are converted to it first and the sum has it (as NumPy's `dtype=`). `where=` (a mask that broadcasts to x's shape) sums only the elements where it is true; `initial=` (a scalar, converted to the sum's dtype) is added to each sum." "sum(eye(3), axis=1)";
        "prod"(a("x"), so("axis"), so("keepdims"), so("dtype"), ao("initial"), ao("where"), ao("out")) "prod(x, axis=none, keepdims=false, dtype=none, initial=1, where=true, out=none)" "Product over the given axes; with `dtype`, computed in and given as that dtype. `where=` multiplies only the elements where the mask is true; each product is multiplied by `initial=`." "prod(arange(1, 5))";
        "min"(a("x"), so("axis"), so("keepdims"), ao("initial"), ao("where"), ao("out")) "min(x, axis=none, keepdims=false, initial=none, where=true, out=none)" "Minimum over the given axes; NaN propagates. `initial=` (a scalar, converted to x's dtype) takes part in every minimum, so a zero-length axis gives it; `where=` (a mask that broadcasts to x's shape, which needs `initial=`) takes only the elements where it is true." "min(arange(5))";
        "max"(a("x"), so("axis"), so("keepdims"), ao("initial"), ao("where"), ao("out")) "max(x, axis=none, keepdims=false, initial=none, where=true, out=none)" "Maximum over the given axes; NaN propagates. `initial=` (a scalar, converted to x's dtype) takes part in every maximum, so a zero-length axis gives it; `where=` (a mask that broadcasts to x's shape, which needs `initial=`) takes only the elements where it is true." "max(arange(5))";
        "amin"(a("a"), so("axis"), so("keepdims"), ao("initial"), ao("where"), ao("out")) "amin(a, axis=none, keepdims=false, initial=none, where=true, out=none)" "NumPy's other name of `min`." "amin(arange(5))";
        "amax"(a("a"), so("axis"), so("keepdims"), ao("initial"), ao("where"), ao("out")) "amax(a, axis=none, keepdims=false, initial=none, where=true, out=none)" "NumPy's other name of `max`." "amax(arange(5))";
        "mean"(a("x"), so("axis"), so("keepdims"), so("dtype"), ao("where"), ao("out")) "mean(x, axis=none, keepdims=false, dtype=none, where=true, out=none)" "Arithmetic mean over the given axes (float result; with `dtype`, computed in and given as that dtype, `mean(x, dtype=f64)` of f32 values). With `where=`, the mean of the elements where the mask is true (NaN where there are none)." "mean(arange(5))";
        "nansum"(a("x"), so("axis"), so("keepdims"), ao("initial"), ao("where"), ao("out")) "nansum(x, axis=none, keepdims=false, initial=0, where=true, out=none)" "Sum treating NaN as zero; `initial=` and `where=` as for `sum`." "nansum([1.0, 0.0 / 0.0, 2.0])";
        "nanmean"(a("x"), so("axis"), so("keepdims"), ao("where"), ao("out")) "nanmean(x, axis=none, keepdims=false, where=true, out=none)" "Mean of the values that are not NaN (NaN where there are none); with `where=`, of those where the mask is also true." "nanmean([1.0, 0.0 / 0.0, 2.0])";
        "nanmin"(a("x"), so("axis"), so("keepdims"), ao("initial"), ao("where"), ao("out")) "nanmin(x, axis=none, keepdims=false, initial=none, where=true, out=none)" "Minimum ignoring NaN (NaN where every value is NaN). `initial=` takes part in every minimum (so an all-NaN slice gives it); `where=` needs `initial=`, as for `min`." "nanmin([3.0, 0.0 / 0.0, 2.0])";
        "nanmax"(a("x"), so("axis"), so("keepdims"), ao("initial"), ao("where"), ao("out")) "nanmax(x, axis=none, keepdims=false, initial=none, where=true, out=none)" "Maximum ignoring NaN (NaN where every value is NaN). `initial=` takes part in every maximum (so an all-NaN slice gives it); `where=` needs `initial=`, as for `max`." "nanmax([3.0, 0.0 / 0.0, 2.0])";
        "argmin"(a("x"), axis1(), so("keepdims"), ao("out")) "argmin(x, axis=none, keepdims=false, out=none)" "Index of the first minimum along one axis (of the flattened array when none); i64." "argmin([3, 1, 2])";
        "argmax"(a("x"), axis1(), so("keepdims"), ao("out")) "argmax(x, axis=none, keepdims=false, out=none)" "Index of the first maximum along one axis (of the flattened array when none); i64." "argmax([3, 1, 2])";
        "any"(a("x"), so("axis"), so("keepdims"), ao("where"), ao("out")) "any(x, axis=none, keepdims=false, where=true, out=none)" "True if any element is true (nonzero); with `where=`, any of those where the mask is true." "any(arange(3) > 1)";
        "all"(a("x"), so("axis"), so("keepdims"), ao("where"), ao("out")) "all(x, axis=none, keepdims=false, where=true, out=none)" "True if every element is true (nonzero); with `where=`, every one where the mask is true." "all(arange(3) >= 0)";
        "cumsum"(a("x"), axis1(), so("dtype"), ao("out")) "cumsum(x, axis=none, dtype=none, out=none)" "Running sum along an axis (of the flattened array when none); with `dtype`, computed in and given as that dtype." "cumsum(arange(5))";
        "cumprod"(a("x"), axis1(), so("dtype"), ao("out")) "cumprod(x, axis=none, dtype=none, out=none)" "Running product along an axis; with `dtype`, computed in and given as that dtype." "cumprod(arange(1, 5))";
        "cummax"(a("x"), axis1()) "cummax(x, axis=none)" "Running maximum along an axis." "cummax([1, 3, 2, 5])";
        "cummin"(a("x"), axis1()) "cummin(x, axis=none)" "Running minimum along an axis." "cummin([3, 1, 2, 0])";
        "segsum"(a("values"), ao("lengths"), ao("offsets")) "segsum(values, lengths=none, offsets=none)" "Sum of each segment of 1-D `values`, the segments given by their `lengths` (which must add up to len(values)) or by `offsets` (0, each segment's end, ..., len(values)). An empty segment sums to 0. Sums of bool and i32 are i64. The segments are read and checked once per `lengths` (or `offsets`) array: reducing by the same array again, as in a loop, costs no host work, and a slice assignment into it is seen by the next call." "segsum([1, 2, 3, 4, 5], [2, 0, 3])";
        "segprod"(a("values"), ao("lengths"), ao("offsets")) "segprod(values, lengths=none, offsets=none)" "Product of each segment (see `segsum`); an empty segment gives 1." "segprod([1, 2, 3, 4], [1, 3])";
        "segmin"(a("values"), ao("lengths"), ao("offsets")) "segmin(values, lengths=none, offsets=none)" "Minimum of each segment (see `segsum`); NaN propagates; an empty segment gives the identity (inf for floats, the largest integer, true for bool)." "segmin([3, 1, 2, 5], offsets=[0, 2, 4])";
        "segmax"(a("values"), ao("lengths"), ao("offsets")) "segmax(values, lengths=none, offsets=none)" "Maximum of each segment (see `segsum`); NaN propagates; an empty segment gives the identity (-inf for floats, the smallest integer, false for bool)." "segmax([3, 1, 2, 5], [2, 2])";
        "segmean"(a("values"), ao("lengths"), ao("offsets")) "segmean(values, lengths=none, offsets=none)" "Mean of each segment (see `segsum`), a float; an empty segment gives NaN." "segmean([1.0, 2.0, 4.0], [2, 1])";
        "matmul"(a("a"), a("b"), ao("out")) "matmul(a, b, out=none)" "Matrix product, the same as `a @ b`." "matmul(eye(2), ones([2, 3]))";
    }
    "information" {
        "shape"(a("x")) "shape(x)" "The shape as a tuple of ints." "shape(zeros([2, 3]))";
        "size"(a("x"), axis1()) "size(x, axis=none)" "The number of elements (along `axis` when given, NumPy's `np.size(a, axis)`)." "size(zeros([2, 3]), axis=1)";
        "ndim"(a("x")) "ndim(x)" "The number of axes." "ndim(zeros([2, 3]))";
        "len"(s("x")) "len(x)" "The length of an array's first axis (`size(x, axis=0)`; a 0-d array has none, E0201) or the number of items of a tuple, as Python's `len`." "len(zeros([4, 2]))";
        "dtype"(a("x")) "dtype(x)" "The element type's name, as a string." "dtype(arange(3))";
        "normalize_axis_index"(s("axis"), s("ndim")) "normalize_axis_index(axis, ndim)" "`axis` as an index into the axes of an array of `ndim` axes (a negative one counts from the end), or E0201 when it is outside -ndim..ndim-1, as NumPy's `lib.array_utils.normalize_axis_index`: for functions that take an axis." "normalize_axis_index(-1, 3)";
    }
    "loops" {
        "enumerate"(s("iterable"), so("start")) "enumerate(iterable, start=0)" "The pairs `(i, item)` of the items `for` walks (an array's along its first axis, a tuple's), `i` counting from `start`, as Python's: `for (i, v) in enumerate(x)`." "enumerate([5, 7])";
        "zip"(rest("iterables")) "zip(iterables...)" "The tuples of the items at each position of arrays (along their first axis) or tuples, as many as the shortest has, as Python's: `for (a, b) in zip(x, y)`." "zip([1, 2], [3, 4])";
    }
    "input and output" {
        "print"(rest("values")) "print(values...)" "Prints the values, separated by spaces." "print(\"x =\", 3)";
        "load"(s("path")) "load(path)" "Reads an array from a NumPy .npy file." "load(\"x.npy\")";
        "save"(s("path"), a("x")) "save(path, x)" "Writes an array to a NumPy .npy file." "save(\"x.npy\", arange(3))";
        "error"(s("message")) "error(message)" "Stops the program with `message` as an E0413 error at this call (inside a function, also labelled at the function's call): for functions that refuse arguments they cannot take." "if 2 < 1 { error(\"n must be positive\") }";
    }
    "sorting, searching and counting" {
        "sort"(a("a"), axis1(), sc("kind", SORT_KINDS)) "sort(a, axis=-1, kind=none)" "A sorted copy along `axis` (flattened first when `axis=none`); stable, NaN last, as NumPy. Every `kind` (\"quicksort\", \"mergesort\", \"heapsort\", \"stable\") is the one stable sort." "sort([3, 1, 2])";
        "argsort"(a("a"), axis1(), sc("kind", SORT_KINDS)) "argsort(a, axis=-1, kind=none)" "The indices (i64) that sort `a` along `axis` (of the flattened array when none); stable: equal elements keep their order; NaN last. Every `kind` is the one stable sort." "argsort([3, 1, 2])";
        "partition"(a("a"), a("kth"), axis1(), sc("kind", &["introselect"])) "partition(a, kth, axis=-1, kind=\"introselect\")" "A copy of `a` with each line along `axis` (the flattened array when `axis=none`) partitioned around position `kth`: the element there is the one a sort would put there, every element before it no greater and every one after no smaller (NaN last; NumPy leaves the order within each side unspecified, and so does Arr). `kth` is an int or a list of them, each of which holds; a negative one counts from the end, one out of range is an error. A selection, not a sort, on the CPU; a GPU sorts the lines, which is one such partition." "partition([3, 4, 2, 1], 2)";
        "argpartition"(a("a"), a("kth"), axis1(), sc("kind", &["introselect"])) "argpartition(a, kth, axis=-1, kind=\"introselect\")" "The indices (i64) along `axis` that partition `a` around `kth` (see `partition`): gathered, they give a partitioned line; equal elements in either order." "argpartition([3.0, 4.0, 2.0, 1.0], 1)";
        "unique"(a("ar"), so("return_index"), so("return_inverse"), so("return_counts"), axis1()) "unique(ar, return_index=false, return_inverse=false, return_counts=false, axis=none)" "The sorted distinct elements of the flattened `ar` (NaNs count as one); with `axis`, the distinct slices along it (rows for `axis=0`), in lexicographic order. With any `return_*` flag, a tuple: the values, then in this order the first index of each, each element's (or slice's) position in the values (`ar`'s shape, or one per slice), the count of each." "unique([3, 1, 3, 2], return_counts=true)";
        "unique_counts"(a("x")) "unique_counts(x)" "The tuple `(values, counts)` of `unique(x, return_counts=true)` (NumPy 2's `unique_counts`)." "unique_counts([1, 2, 2])";
        "interp"(a("x"), a("xp"), a("fp"), ao("left"), ao("right")) "interp(x, xp, fp, left=fp[0], right=fp[-1])" "Piecewise-linear interpolation of the points (xp, fp) at `x` (xp increasing, 1-D like fp), as NumPy's `interp`: `left` below xp[0], `right` above xp[-1]; in the floats of the arguments (f64 for integers)." "interp([1.5, 2.5], [1.0, 2.0, 3.0], [10.0, 20.0, 40.0])";
        "searchsorted"(a("a"), a("v"), sc("side", &["left", "right"]), ao("sorter")) "searchsorted(a, v, side=\"left\", sorter=none)" "Where each of `v` goes in the sorted 1-D `a` to keep it sorted (i64, `v`'s shape): before equal elements for side=\"left\", after them for \"right\". `sorter`: indices that sort `a`." "searchsorted([1, 2, 4], [2, 3])";
        "median"(a("a"), so("axis"), so("keepdims")) "median(a, axis=none, keepdims=false)" "The median over the given axes (all when none); a float; NaN if a line holds one." "median([3, 1, 4, 1])";
        "percentile"(a("a"), a("q"), so("axis"), so("keepdims"), sc("method", super::npsort::QUANTILE_METHODS)) "percentile(a, q, axis=none, keepdims=false, method=\"linear\")" "The q-th percentiles (q in [0, 100], a number or an array: its axes come first), by NumPy's `method`: \"linear\" (the default), \"lower\", \"higher\", \"nearest\", \"midpoint\" or one of Hyndman and Fan's (\"inverted_cdf\", \"averaged_inverted_cdf\", \"closest_observation\", \"interpolated_inverted_cdf\", \"hazen\", \"weibull\", \"median_unbiased\", \"normal_unbiased\"). A float, or the input's dtype for the methods that pick a value (lower, higher, nearest, inverted_cdf, closest_observation)." "percentile(arange(5), 25)";
        "quantile"(a("a"), a("q"), so("axis"), so("keepdims"), sc("method", super::npsort::QUANTILE_METHODS)) "quantile(a, q, axis=none, keepdims=false, method=\"linear\")" "The q-th quantiles (q in [0, 1]), as `percentile` (the same methods)." "quantile(arange(5), [0.25, 0.5])";
        "bincount"(a("x"), ao("weights"), so("minlength")) "bincount(x, weights=none, minlength=0)" "How often each of 0..max(x) occurs in the 1-D non-negative integers `x` (i64), at least `minlength` bins; with `weights` the sum of the weights (f64)." "bincount([0, 1, 1, 3])";
        "histogram"(a("a"), ao("bins"), so("range"), ao("weights"), so("density")) "histogram(a, bins=10, range=none, weights=none, density=false)" "The tuple `(counts, edges)`: counts (i64; f64 with weights or density) of the flattened `a` in `bins` equal bins over `range` (the min and max when none) or between the given 1-D edges; the last bin includes its right edge." "histogram([1, 2, 2, 3], bins=2)";
        "histogram_bin_edges"(a("a"), ao("bins"), so("range")) "histogram_bin_edges(a, bins=10, range=none)" "The bin edges `histogram` would use." "histogram_bin_edges([1, 2, 3], bins=2)";
        "nonzero"(a("a")) "nonzero(a)" "A tuple of i64 arrays, one per axis, with the coordinates of the nonzero elements in row-major order (`nonzero(x)[0]` for a 1-D `x`)." "nonzero([0, 2, 0, 3])";
        "flatnonzero"(a("a")) "flatnonzero(a)" "The flat indices (i64) of the nonzero elements." "flatnonzero([0, 2, 0, 3])";
        "argwhere"(a("a")) "argwhere(a)" "The coordinates of the nonzero elements, one row each (i64, shape [count, ndim])." "argwhere(eye(2))";
        "count_nonzero"(a("a"), so("axis"), so("keepdims")) "count_nonzero(a, axis=none, keepdims=false)" "How many elements are nonzero (true), over the given axes (all when none); i64." "count_nonzero([0, 2, 0, 3])";
        "take"(a("a"), a("indices"), axis1()) "take(a, indices, axis=none)" "The elements at integer `indices` along `axis` (of the flattened array when none); negative indices count from the end; one out of range is an error." "take([4, 5, 6], [2, -1])";
    }
    "shape and construction (NumPy)" {
        "diff"(a("a"), so("n"), axis1(), ao("prepend"), ao("append")) "diff(a, n=1, axis=-1, prepend=none, append=none)" "The n-th discrete difference along `axis` (a[1:] - a[:-1], n times; `!=` for bool); `prepend` and `append` are joined to `a` along `axis` first (a scalar as one slice), when n > 0." "diff([1, 4, 9, 16])";
        "roll"(a("a"), s("shift"), so("axis")) "roll(a, shift, axis=none)" "Shifts elements along `axis` (of the flattened array when none), wrapping around; `shift` and `axis` may be tuples." "roll(arange(5), 2)";
        "repeat"(a("a"), s("repeats"), axis1()) "repeat(a, repeats, axis=none)" "Repeats each element `repeats` times (an int, or one count per element) along `axis` (of the flattened array when none)." "repeat([1, 2], 2)";
        "tile"(a("A"), s("reps")) "tile(A, reps)" "A repeated `reps` times along each axis (an int or a tuple; leading axes are added as needed)." "tile([1, 2], (2, 2))";
        "pad"(a("array"), s("pad_width"), sc("mode", &["constant", "edge", "wrap", "reflect", "symmetric"]), so("constant_values")) "pad(array, pad_width, mode=\"constant\", constant_values=0)" "Pads each axis: `pad_width` is an int, (before, after) or one pair per axis. Modes: \"constant\", \"edge\", \"wrap\", \"reflect\", \"symmetric\" (the last three repeat their pattern when the pad is wider than the axis, as NumPy)." "pad([1, 2], 1)";
        "diag"(a("v"), so("k")) "diag(v, k=0)" "A 2-D array with the 1-D `v` on its k-th diagonal, or the k-th diagonal of a 2-D `v`." "diag([1, 2])";
        "diagonal"(a("a"), so("offset"), so("axis1"), so("axis2")) "diagonal(a, offset=0, axis1=0, axis2=1)" "The diagonal of the axes `axis1` and `axis2` (a view), as the last axis." "diagonal(reshape(arange(9), [3, 3]))";
        "trace"(a("a"), so("offset"), so("axis1"), so("axis2"), so("dtype")) "trace(a, offset=0, axis1=0, axis2=1, dtype=none)" "The sum along a diagonal (see `diagonal`); bool and i32 sum to i64." "trace(eye(3))";
        "tril"(a("m"), so("k")) "tril(m, k=0)" "The lower triangle of the last two axes: zeros above the k-th diagonal." "tril(ones([3, 3]))";
        "triu"(a("m"), so("k")) "triu(m, k=0)" "The upper triangle of the last two axes: zeros below the k-th diagonal." "triu(ones([3, 3]), k=1)";
        "identity"(s("n"), so("dtype")) "identity(n, dtype=f32)" "The n x n identity matrix." "identity(3)";
        "empty"(s("shape"), so("dtype")) "empty(shape, dtype=f32)" "A new array of `shape` (its contents are zeros in Arr; NumPy leaves them undefined)." "empty([2, 2])";
        "empty_like"(a("prototype"), so("dtype"), so("shape")) "empty_like(prototype, dtype=prototype's, shape=prototype's)" "A new array with the shape and dtype of `prototype` (zeros in Arr)." "empty_like(arange(3))";
        "split"(a("ary"), s("indices_or_sections"), axis1()) "split(ary, indices_or_sections, axis=0)" "A tuple of views of `ary` along `axis`: an int N cuts it into N equal parts (E0210 when they are not equal), a list of indices cuts it before each." "split(arange(6), 3)";
        "array_split"(a("ary"), s("indices_or_sections"), axis1()) "array_split(ary, indices_or_sections, axis=0)" "`split` that allows unequal parts: N parts of which the first (length mod N) are one longer." "array_split(arange(7), 3)";
        "hsplit"(a("ary"), s("indices_or_sections")) "hsplit(ary, indices_or_sections)" "`split` along axis 1 (axis 0 of a 1-D array)." "hsplit(ones([2, 4]), 2)";
        "vsplit"(a("ary"), s("indices_or_sections")) "vsplit(ary, indices_or_sections)" "`split` along axis 0 of an array of at least two axes." "vsplit(ones([4, 2]), [1])";
        "indices"(s("dimensions"), so("dtype")) "indices(dimensions, dtype=i64)" "The index grids of an array of shape `dimensions`, stacked: shape (len(dimensions), *dimensions), element [k, i0, i1, ...] is ik." "indices((2, 3))";
        "ix_"(rest("args")) "ix_(*args)" "Open-mesh index arrays from 1-D sequences (integers, or booleans taken as their `nonzero`), as a tuple: the k-th has shape 1 but along axis k, so that `a[ix_(rows, cols)]` is the cross product of the selections." "ix_([0, 1], [2, 4])";
        "unravel_index"(a("indices"), s("shape")) "unravel_index(indices, shape)" "The coordinates (a tuple of i64 arrays of `indices`' shape, one per axis) of flat `indices` into an array of `shape`, row-major; an index out of range is an error." "unravel_index([1, 5], (2, 3))";
        "ravel_multi_index"(s("multi_index"), s("dims")) "ravel_multi_index(multi_index, dims)" "The flat row-major indices (i64) of the coordinates `multi_index` (a tuple or list of integer arrays, one per axis of `dims`, broadcast together) into an array of shape `dims`; a coordinate out of range is an error." "ravel_multi_index(([0, 1], [2, 0]), (2, 3))";
        "meshgrid"(rest("xi"), so("copy"), so("sparse"), sc("indexing", &["xy", "ij"])) "meshgrid(*xi, copy=true, sparse=false, indexing=\"xy\")" "Coordinate grids from 1-D vectors, as a tuple: with \"xy\" the first two axes are swapped (Cartesian), with \"ij\" the k-th grid varies along axis k." "meshgrid(arange(3), arange(2))";
    }
    "linear algebra" {
        "dot"(a("a"), a("b")) "dot(a, b)" "NumPy's dot: a product for scalars, `a @ b` up to rank 2, else a sum over a's last axis and b's second-to-last." "dot([1, 2], [3, 4])";
        "outer"(a("a"), a("b")) "outer(a, b)" "out[i, j] = a[i] * b[j] of the flattened inputs." "outer([1, 2], [1, 10])";
        "cross"(a("a"), a("b"), axis1()) "cross(a, b, axis=-1)" "The cross product of 3-vectors (or 2-vectors, giving the z component) along `axis`, broadcasting the others." "cross([1, 0, 0], [0, 1, 0])";
        "einsum"(s("subscripts"), rest("operands"), so("dtype")) "einsum(subscripts, *operands, dtype=none)" "Einstein summation: \"ij,jk->ik\", \"bij,bjk->bik\", \"ii->\", \"ij->ji\", \"i,i->\", \"...ij->...ji\"; without `->` the output is the labels seen once, sorted. Contractions of two operands run as a matrix product." "einsum(\"ii->\", eye(3))";
        "inv"(a("a")) "inv(a)" "The inverse of each square matrix (..., n, n), by LU with partial pivoting (on CUDA through cuSOLVER, in the input's float type); a singular matrix is error E0420." "inv([[2.0, 0.0], [0.0, 4.0]])";
        "solve"(a("a"), a("b")) "solve(a, b)" "x with a @ x = b for square a (..., n, n); b is (n,) or (..., n, k), stacks broadcast. A singular a is error E0420." "solve([[2.0, 0.0], [0.0, 4.0]], [2.0, 2.0])";
        "matrix_power"(a("a"), s("n")) "matrix_power(a, n)" "a @ a @ ... @ a (n factors) for square matrices (..., m, m), by repeated squaring in NumPy's order; n = 0 gives the identity in a's dtype, a negative n the power of inv(a)." "matrix_power([[1, 1], [1, 0]], 10)";
        "det"(a("a")) "det(a)" "The determinant of each square matrix (..., n, n); 0 for a singular one." "det([[1.0, 2.0], [3.0, 4.0]])";
        "slogdet"(a("a")) "slogdet(a)" "(sign, logabsdet) of each square matrix's determinant, without the overflow of `det`: det = sign * exp(logabsdet); a singular matrix gives (0, -inf)." "slogdet([[1.0, 2.0], [3.0, 4.0]])";
        "qr"(a("a"), sc("mode", &["reduced", "complete", "r"])) "qr(a, mode=\"reduced\")" "The QR factorisation of each matrix (..., m, n) by Householder reflections: (q, r) with q orthonormal columns (m, k) and r upper triangular (k, n), k = min(m, n); mode \"complete\" gives q (m, m) and r (m, n), mode \"r\" r alone. Signs may differ from LAPACK's; q @ r is a." "qr([[3.0, 1.0], [4.0, 2.0]])";
        "cholesky"(a("a"), so("upper")) "cholesky(a, upper=false)" "The lower-triangular L with a = L @ transpose(L) of each symmetric positive definite matrix (only a's lower triangle is read); with `upper`, transpose(L). A matrix that is not positive definite is error E0421." "cholesky([[4.0, 2.0], [2.0, 3.0]])";
        "eigh"(a("a"), sc("UPLO", UPLO)) "eigh(a, UPLO=\"L\")" "(eigenvalues ascending, eigenvectors as columns) of each symmetric matrix, read from its lower triangle (\"U\": upper). Each eigenvector's sign is arbitrary, as in LAPACK." "eigh([[2.0, 1.0], [1.0, 2.0]])";
        "eigvalsh"(a("a"), sc("UPLO", UPLO)) "eigvalsh(a, UPLO=\"L\")" "The eigenvalues of each symmetric matrix, ascending (`eigh` without the vectors)." "eigvalsh([[2.0, 1.0], [1.0, 2.0]])";
        "svd"(a("a"), so("full_matrices"), so("compute_uv")) "svd(a, full_matrices=true, compute_uv=true)" "(u, s, vh) with a = u[..., :k] * s @ vh[..., :k, :] for each matrix (..., m, n), s descending (k = min(m, n)); u is (m, m) and vh (n, n), or (m, k) and (k, n) without `full_matrices`; only s without `compute_uv`. Singular vectors' signs are arbitrary, as in LAPACK." "svd([[3.0, 0.0], [4.0, 5.0]])";
        "svdvals"(a("x")) "svdvals(x)" "The singular values of each matrix, descending (`svd(x, compute_uv=false)`)." "svdvals([[3.0, 0.0], [4.0, 5.0]])";
        "pinv"(a("a"), so("rcond")) "pinv(a, rcond=max(m, n) * eps)" "The Moore-Penrose pseudo-inverse (..., n, m) of each matrix, through its SVD; singular values at or below rcond times the largest count as zero." "pinv([[1.0, 2.0], [2.0, 4.0]])";
        "matrix_rank"(a("A"), so("tol")) "matrix_rank(A, tol=s.max() * max(m, n) * eps)" "The number of singular values of each matrix above `tol`, an i64; a vector's rank is 1 unless it is all zeros." "matrix_rank([[1.0, 2.0], [2.0, 4.0]])";
        "lstsq"(a("a"), a("b"), so("rcond")) "lstsq(a, b, rcond=max(m, n) * eps)" "The least-squares solution of a @ x = b for a (m, n) and b (m,) or (m, k), through the SVD: (x, residuals, rank, s), residuals the squared norms of b - a @ x per column (empty unless rank is n and m > n)." "lstsq([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]], [1.0, 2.0, 4.0])";
        "cond"(a("x"), so("p")) "cond(x, p=none)" "The 2-norm condition number of each matrix, largest singular value over smallest (p = -2: smallest over largest)." "cond([[1.0, 0.0], [0.0, 2.0]])";
    }
    "time" {
        "time"() "time()" "Wall-clock seconds since the Unix epoch, an f64 (Python's time.time())." "time()";
        "perf_counter"() "perf_counter()" "Seconds from a fixed point in the process, an f64, for timing (Python's time.perf_counter()). Evaluation is lazy: `realize` what you time." "perf_counter()";
    }
}

/// The builtin whose behaviour `name` has: itself, or the builtin it is
/// NumPy's other name of (it has its own entry, for its parameter names and
/// its help).
pub fn canonical(name: &str) -> &str {
    match name {
        "concatenate" => "concat",
        "amin" => "min",
        "amax" => "max",
        _ => crate::check::prim::unary_alias(name).unwrap_or(name),
    }
}

/// The operator a function of NumPy's stands for (`add` is `+`).
pub fn operator_function(name: &str) -> Option<BinOp> {
    Some(match name {
        "add" => BinOp::Add,
        "subtract" => BinOp::Sub,
        "multiply" => BinOp::Mul,
        "divide" | "true_divide" => BinOp::Div,
        "power" => BinOp::Pow,
        "mod" | "remainder" => BinOp::Rem,
        "floor_divide" => BinOp::FloorDiv,
        "equal" => BinOp::Eq,
        "not_equal" => BinOp::Ne,
        "less" => BinOp::Lt,
        "less_equal" => BinOp::Le,
        "greater" => BinOp::Gt,
        "greater_equal" => BinOp::Ge,
        _ => return crate::check::prim::BitOp::from_name(name).map(BitOp::binop),
    })
}

pub fn find(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name).copied()
}

/// Every builtin's name (for completion).
pub fn names() -> Vec<&'static str> {
    BUILTINS.iter().map(|b| b.name).collect()
}

/// The help text of a builtin, or `None` if there is no such builtin.
pub fn help(name: &str) -> Option<String> {
    find(name).map(|b| format!("{}\n  {}\n  example: {}", b.signature, b.doc, b.example))
}

/// One argument of a call, as written.
pub struct CallArg<T> {
    pub name: Option<(String, Span)>,
    pub value: T,
    pub span: Span,
}

/// Matches the arguments of a call to parameters: positional first, then by
/// name. Returns one slot per parameter (the `Rest` parameter, if any, takes
/// every remaining positional argument and is returned separately).
#[allow(clippy::type_complexity)]
pub fn bind<T>(
    func: &str,
    params: &[(&str, bool, bool)],
    args: Vec<CallArg<T>>,
    call_span: &Span,
) -> Result<(Vec<Option<(T, Span)>>, Vec<(T, Span)>), Diagnostic> {
    // params: (name, required, is_rest)
    let mut slots: Vec<Option<(T, Span)>> = params.iter().map(|_| None).collect();
    let mut rest = Vec::new();
    let has_rest = params.iter().any(|p| p.2);
    let mut next_positional = 0;
    for arg in args {
        match arg.name {
            None => {
                if has_rest && next_positional < params.len() && params[next_positional].2 {
                    rest.push((arg.value, arg.span));
                    continue;
                }
                if next_positional >= params.len() {
                    let max = params.len();
                    return Err(Diagnostic::new(
                        "E0102",
                        format!(
                            "`{func}` takes at most {max} argument{}",
                            if max == 1 { "" } else { "s" }
                        ),
                        arg.span,
                    )
                    .with_primary_label("this argument is one too many")
                    .with_label(call_span.clone(), format!("in this call of `{func}`"))
                    .with_hint(signature_hint(func, params)));
                }
                slots[next_positional] = Some((arg.value, arg.span));
                next_positional += 1;
            }
            Some((name, name_span)) => {
                let Some(k) = params.iter().position(|p| p.0 == name && !p.2) else {
                    let hint = match closest(&name, params.iter().map(|p| p.0)) {
                        Some(c) => format!("did you mean `{c}`? {}", signature_hint(func, params)),
                        None => signature_hint(func, params),
                    };
                    return Err(Diagnostic::new(
                        "E0103",
                        format!("`{func}` has no parameter named `{name}`"),
                        name_span,
                    )
                    .with_hint(hint));
                };
                if slots[k].is_some() {
                    return Err(
                        Diagnostic::new("E0104", format!("argument `{name}` is given twice"), name_span)
                            .with_hint(signature_hint(func, params)),
                    );
                }
                slots[k] = Some((arg.value, arg.span));
            }
        }
    }
    for (k, p) in params.iter().enumerate() {
        if p.1 && !p.2 && slots[k].is_none() {
            return Err(Diagnostic::new(
                "E0105",
                format!("missing argument `{}` in call of `{func}`", p.0),
                call_span.clone(),
            )
            .with_hint(signature_hint(func, params)));
        }
    }
    Ok((slots, rest))
}

fn signature_hint(func: &str, params: &[(&str, bool, bool)]) -> String {
    // a user's function may shadow a builtin of the same name (`fn add(a, b)`)
    match find(func).filter(|b| b.bind_params() == params) {
        Some(b) => format!("the signature is `{}`", b.signature),
        None => {
            let names: Vec<String> = params
                .iter()
                .map(|p| if p.1 { p.0.to_string() } else { format!("{}=...", p.0) })
                .collect();
            format!("the signature is `{func}({})`", names.join(", "))
        }
    }
}

impl Builtin {
    /// Whether parameter `k` is a flag: a static parameter whose documented
    /// default is `true` or `false`, which the run reads as one bool
    /// (`interp::statics::static_bool`); the checker refuses anything else by the same rule.
    pub fn is_flag(&self, k: usize) -> bool {
        let Some(p) = self.params.get(k).filter(|p| p.kind == ParamKind::Static) else {
            return false;
        };
        let inner = self
            .signature
            .split_once('(')
            .and_then(|(_, rest)| rest.rsplit_once(')'))
            .map_or("", |(inner, _)| inner);
        // the signature's items at bracket depth 0 (a default may be a tuple)
        let (mut depth, mut start, mut items) = (0i32, 0, Vec::new());
        for (i, c) in inner.char_indices() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&inner[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        items.push(&inner[start..]);
        items.iter().any(|item| {
            item.trim()
                .split_once('=')
                .is_some_and(|(name, default)| name.trim() == p.name && matches!(default.trim(), "true" | "false"))
        })
    }

    /// E0303 for array parameter `param` given `kind` of value ("a string"),
    /// in the checker's and the run's words alike.
    pub fn not_an_array(&self, param: &ParamSpec, kind: &str, span: &Span) -> Diagnostic {
        Diagnostic::new(
            "E0303",
            format!("`{}` of `{}` must be an array, found {kind}", param.name, self.name),
            span.clone(),
        )
    }

    /// E0305 when parameter `k` takes one integer (`ParamSpec::one_integer`)
    /// and is given several (a tuple, a list, an array).
    pub fn one_integer(&self, k: usize, span: &Span) -> Result<(), Diagnostic> {
        let Some(p) = self.params.get(k).filter(|p| p.one_integer) else {
            return Ok(());
        };
        Err(Diagnostic::new(
            "E0305",
            format!("`{}` of `{}` must be one integer, not several", p.name, self.name),
            span.clone(),
        )
        .with_hint(format!(
            "`{}` works along one axis; NumPy's reductions (`sum`, `max`, `mean`) are the ones that take a tuple of axes",
            self.name
        )))
    }

    /// E0413 when parameter `k` has choices and `value` is none of them.
    pub fn check_choice(&self, k: usize, value: &str, span: &Span) -> Result<(), Diagnostic> {
        let Some(p) = self.params.get(k).filter(|p| !p.choices.is_empty()) else {
            return Ok(());
        };
        if p.choices.contains(&value) {
            return Ok(());
        }
        let quoted: Vec<String> = p.choices.iter().map(|c| format!("\"{c}\"")).collect();
        let mut hint = format!("`{}` is one of {}", p.name, quoted.join(", "));
        if let Some(c) = closest(value, p.choices.iter().copied()) {
            hint = format!("did you mean \"{c}\"? {hint}");
        }
        Err(Diagnostic::new(
            "E0413",
            format!("`{}` of `{}` cannot be \"{value}\"", p.name, self.name),
            span.clone(),
        )
        .with_hint(hint))
    }

    /// E0103 for `where` given one of its two values: both or neither.
    pub fn where_needs_both(span: &Span) -> Diagnostic {
        Diagnostic::new(
            "E0103",
            "`where` takes both `a` and `b`, or neither (then it is `nonzero(cond)`)",
            span.clone(),
        )
    }

    /// Binds a call's arguments to the parameters (see `bind`), a keyword
    /// given by one of a parameter's aliases binding that parameter.
    #[allow(clippy::type_complexity)]
    pub fn bind<T>(
        &self,
        mut args: Vec<CallArg<T>>,
        call_span: &Span,
    ) -> Result<(Vec<Option<(T, Span)>>, Vec<(T, Span)>), Diagnostic> {
        for arg in &mut args {
            if let Some((name, _)) = &mut arg.name
                && let Some(p) = self.params.iter().find(|p| p.aliases.contains(&name.as_str()))
            {
                *name = p.name.to_string();
            }
        }
        // `out` is given by name only (NumPy's positional `out` must be an array,
        // and a scalar one past the others is far likelier a mistake)
        if let Some(k) = self.out_param()
            && let Some(extra) = args.iter().filter(|a| a.name.is_none()).nth(k)
        {
            return Err(Diagnostic::new(
                "E0102",
                format!(
                    "`{}` takes at most {k} argument{} before `out=`",
                    self.name,
                    if k == 1 { "" } else { "s" }
                ),
                extra.span.clone(),
            )
            .with_primary_label("this argument is one too many")
            .with_label(call_span.clone(), format!("in this call of `{}`", self.name))
            .with_hint(format!(
                "the signature is `{}`; an array to write the result into is given by name, `out=...`",
                self.signature
            )));
        }
        bind(self.name, &self.bind_params(), args, call_span)
    }

    /// The slot of the `out=` parameter, for a builtin that writes its result
    /// into an array given so (NumPy's ufuncs, reductions, scans, `matmul`).
    pub fn out_param(&self) -> Option<usize> {
        self.params.iter().position(|p| p.name == "out")
    }

    /// Whether a result may broadcast to its `out=` array: an elementwise
    /// builtin's (a ufunc's) may, any other's must have its shape.
    pub fn out_broadcasts(&self) -> bool {
        self.category == "elementwise"
    }

    /// The parameters in the form `bind` takes.
    pub fn bind_params(&self) -> Vec<(&'static str, bool, bool)> {
        self.params
            .iter()
            .map(|p| (p.name, p.required, p.kind == ParamKind::Rest))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(v: i32, name: Option<&str>) -> CallArg<i32> {
        CallArg {
            name: name.map(|n| (n.to_string(), 0..1)),
            value: v,
            span: 0..1,
        }
    }

    #[test]
    fn binds_positional_then_named() {
        let b = find("sum").unwrap();
        let (slots, _) = bind(
            "sum",
            &b.bind_params(),
            vec![arg(1, None), arg(2, Some("keepdims"))],
            &(0..1),
        )
        .unwrap();
        assert_eq!(
            slots.iter().map(|s| s.as_ref().map(|x| x.0)).collect::<Vec<_>>(),
            vec![Some(1), None, Some(2), None, None, None, None]
        );
    }

    #[test]
    fn binding_errors_have_codes() {
        let p = find("sum").unwrap().bind_params();
        let e = bind("sum", &p, vec![arg(1, None), arg(2, Some("axes"))], &(0..1)).unwrap_err();
        assert_eq!(e.code, "E0103");
        assert!(e.hint.unwrap().contains("did you mean `axis`"));
        assert_eq!(bind::<i32>("sum", &p, vec![], &(0..1)).unwrap_err().code, "E0105");
        assert_eq!(
            bind("sum", &p, (0..8).map(|i| arg(i, None)).collect(), &(0..1))
                .unwrap_err()
                .code,
            "E0102"
        );
        // `out` is given by name only
        let sum = find("sum").unwrap();
        let e = sum.bind((0..7).map(|i| arg(i, None)).collect(), &(0..1)).unwrap_err();
        assert_eq!(e.code, "E0102");
        assert!(e.message.contains("before `out=`"));
        assert!(sum.bind(vec![arg(1, None), arg(2, Some("out"))], &(0..1)).is_ok());
        assert_eq!(
            bind("sum", &p, vec![arg(1, None), arg(1, Some("x"))], &(0..1))
                .unwrap_err()
                .code,
            "E0104"
        );
    }

    #[test]
    fn every_builtin_has_docs() {
        for b in BUILTINS.iter() {
            assert!(!b.doc.is_empty() && b.signature.starts_with(b.name), "{}", b.name);
        }
    }
}
