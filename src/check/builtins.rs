//! The table of builtin functions: names, parameters, documentation and an
//! example each. It drives argument binding (in the checker and at run
//! time), the REPL's completion and `:help`, and `docs/builtins.md`.

use crate::diag::{Diagnostic, closest};
use crate::syntax::ast::Span;
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
}

#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
    pub required: bool,
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
    }
}
const fn s(name: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Static,
        required: true,
    }
}
const fn so(name: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Static,
        required: false,
    }
}
const fn ao(name: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Array,
        required: false,
    }
}
const fn rest(name: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        kind: ParamKind::Rest,
        required: false,
    }
}

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
            $( Builtin { name: $name, params: &[a("x")], signature: concat!($name, "(x)"), doc: $doc, example: $ex, category: "elementwise" }, )*
        ];
    };
}
crate::for_each_unary!(unary_builtins);

/// Every builtin, in documentation order: the table, with the unary
/// primitives at the head of the "elementwise" category.
pub static BUILTINS: LazyLock<Vec<&'static Builtin>> = LazyLock::new(|| {
    let at = TABLE
        .iter()
        .position(|b| b.category == "elementwise")
        .unwrap_or(TABLE.len());
    TABLE[..at].iter().chain(UNARY).chain(&TABLE[at..]).collect()
});

builtins! {
    "creation" {
        "zeros"(s("shape"), so("dtype")) "zeros(shape, dtype=f32)" "An array of zeros. `shape` is an int, list or tuple." "zeros([2, 3])";
        "ones"(s("shape"), so("dtype")) "ones(shape, dtype=f32)" "An array of ones." "ones(4, dtype=i32)";
        "full"(s("shape"), a("value"), so("dtype")) "full(shape, value, dtype=value's)" "An array filled with `value`." "full([2, 2], 7.5)";
        "zeros_like"(a("x"), so("dtype")) "zeros_like(x, dtype=x's)" "Zeros with the shape (and dtype) of `x`." "zeros_like(rand([3]))";
        "ones_like"(a("x"), so("dtype")) "ones_like(x, dtype=x's)" "Ones with the shape (and dtype) of `x`." "ones_like(rand([3]))";
        "full_like"(a("x"), a("value"), so("dtype")) "full_like(x, value, dtype=x's)" "`value` with the shape of `x`." "full_like(rand([3]), 2)";
        "arange"(s("start"), so("stop"), so("step"), so("dtype")) "arange(start, stop=none, step=1, dtype=from the arguments)" "Evenly spaced values in [start, stop); `arange(n)` is 0..n. Integers give i64, any float gives f32." "arange(5)";
        "linspace"(s("start"), s("stop"), so("num"), so("dtype")) "linspace(start, stop, num=50, dtype=f32)" "`num` evenly spaced values from start to stop inclusive." "linspace(0, 1, 5)";
        "eye"(s("n"), so("m"), so("dtype")) "eye(n, m=n, dtype=f32)" "The identity matrix (ones on the diagonal)." "eye(3)";
        "rand"(s("shape"), so("dtype")) "rand(shape, dtype=f32)" "Uniform random numbers in [0, 1); reproducible (see `seed`)." "rand([2, 2])";
        "randn"(s("shape"), so("dtype")) "randn(shape, dtype=f32)" "Standard normal random numbers; reproducible (see `seed`)." "randn([3])";
        "seed"(s("n")) "seed(n)" "Restarts the random number sequence from seed `n` (the session starts with seed 0)." "seed(42)";
        "copy"(a("x")) "copy(x)" "A new array with the values of `x` (not a view)." "copy(rand([2])[::-1])";
        "realize"(a("x")) "realize(x)" "Computes `x` now and returns it (evaluation is otherwise lazy); for timing and for inputs that must not be fused into their consumers." "realize(rand([3]))";
    }
    "shape" {
        "reshape"(a("x"), s("shape")) "reshape(x, shape)" "The same elements in a new shape; one size may be -1." "reshape(arange(6), [2, 3])";
        "transpose"(a("x"), so("axes")) "transpose(x, axes=reversed)" "Reorders the axes (a view); by default reverses them." "transpose(rand([2, 3]))";
        "permute"(a("x"), s("axes")) "permute(x, axes)" "Reorders the axes (a view): axis k of the result is axis axes[k] of x." "permute(rand([2, 3, 4]), (2, 0, 1))";
        "expand_dims"(a("x"), s("axis")) "expand_dims(x, axis)" "Inserts a size-1 axis (a view)." "expand_dims(arange(3), 0)";
        "squeeze"(a("x"), so("axis")) "squeeze(x, axis=all size-1 axes)" "Removes size-1 axes (a view)." "squeeze(zeros([1, 3, 1]))";
        "broadcast_to"(a("x"), s("shape")) "broadcast_to(x, shape)" "A read-only view of x broadcast to `shape`." "broadcast_to(arange(3), [2, 3])";
        "flatten"(a("x")) "flatten(x)" "The elements in one axis, row-major: a copy (NumPy's `flatten`; `reshape` gives a view)." "flatten(eye(2))";
        "flip"(a("x"), so("axis")) "flip(x, axis=all)" "Reverses the order along an axis (a view)." "flip(arange(4))";
        "concat"(a("arrays"), so("axis")) "concat(arrays, axis=0)" "Joins a list or tuple of arrays along an existing axis." "concat([arange(2), arange(3)])";
        "stack"(a("arrays"), so("axis")) "stack(arrays, axis=0)" "Joins arrays of one shape along a new axis." "stack([arange(2), arange(2)], axis=1)";
    }
    "elementwise" {
        "minimum"(a("a"), a("b")) "minimum(a, b)" "Elementwise minimum, broadcasting; NaN propagates." "minimum(arange(4), 2)";
        "maximum"(a("a"), a("b")) "maximum(a, b)" "Elementwise maximum, broadcasting; NaN propagates." "maximum(arange(4), 2)";
        "atan2"(a("y"), a("x")) "atan2(y, x)" "Angle of the point (x, y), elementwise." "atan2(1.0, 1.0)";
        "arctan2"(a("x1"), a("x2")) "arctan2(x1, x2)" "NumPy's name of `atan2`: the angle of the point (x2, x1), elementwise." "arctan2(1.0, -1.0)";
        "hypot"(a("x1"), a("x2")) "hypot(x1, x2)" "sqrt(x1**2 + x2**2) without overflow, elementwise, broadcasting." "hypot(3.0, 4.0)";
        "floor_divide"(a("x1"), a("x2")) "floor_divide(x1, x2)" "Floor division, the same as `x1 // x2`: integers round toward -inf (division by zero is an error), floats follow NumPy." "floor_divide(-7, 2)";
        "clip"(a("x"), a("lo"), a("hi")) "clip(x, lo, hi)" "Limits x to [lo, hi], elementwise." "clip(arange(6), 1, 4)";
        "where"(a("cond"), a("a"), a("b")) "where(cond, a, b)" "a where cond is true, else b (broadcasting)." "where(arange(4) > 1, 1.0, 0.0)";
        "nan_to_num"(a("x"), so("copy"), so("nan"), so("posinf"), so("neginf")) "nan_to_num(x, copy=true, nan=0.0, posinf=none, neginf=none)" "A copy of x (`copy` is accepted for NumPy's sake: Arr always copies) with NaN replaced by `nan`, +inf by `posinf` and -inf by `neginf` (by default the dtype's largest and smallest finite values); integers are returned unchanged." "nan_to_num([0.0 / 0.0, 1.0 / 0.0, 2.0])";
        "isclose"(a("a"), a("b"), so("rtol"), so("atol"), so("equal_nan")) "isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=false)" "True where |a - b| <= atol + rtol * |b| (broadcasting); infinities are close only to themselves; NaNs only when `equal_nan`." "isclose([1.0, 2.0], [1.0 + 1e-9, 2.1])";
        "allclose"(a("a"), a("b"), so("rtol"), so("atol"), so("equal_nan")) "allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=false)" "Whether `isclose` holds everywhere: one bool." "allclose([1.0, 2.0], [1.0, 2.0 + 1e-7])";
        "array_equal"(a("a1"), a("a2"), so("equal_nan")) "array_equal(a1, a2, equal_nan=false)" "Whether the arrays have the same shape and the same elements (NaNs equal only when `equal_nan`): one bool." "array_equal(arange(3), [0, 1, 2])";
    }
    "reduction" {
        "sum"(a("x"), so("axis"), so("keepdims")) "sum(x, axis=none, keepdims=false)" "Sum over the given axis or axes (all when none). Sums of bool and i32 are i64." "sum(eye(3), axis=1)";
        "prod"(a("x"), so("axis"), so("keepdims")) "prod(x, axis=none, keepdims=false)" "Product over the given axes." "prod(arange(1, 5))";
        "min"(a("x"), so("axis"), so("keepdims")) "min(x, axis=none, keepdims=false)" "Minimum over the given axes; NaN propagates." "min(arange(5))";
        "max"(a("x"), so("axis"), so("keepdims")) "max(x, axis=none, keepdims=false)" "Maximum over the given axes; NaN propagates." "max(arange(5))";
        "mean"(a("x"), so("axis"), so("keepdims")) "mean(x, axis=none, keepdims=false)" "Arithmetic mean over the given axes (float result)." "mean(arange(5))";
        "nansum"(a("x"), so("axis"), so("keepdims")) "nansum(x, axis=none, keepdims=false)" "Sum treating NaN as zero." "nansum([1.0, 0.0 / 0.0, 2.0])";
        "nanmean"(a("x"), so("axis"), so("keepdims")) "nanmean(x, axis=none, keepdims=false)" "Mean of the values that are not NaN (NaN where there are none)." "nanmean([1.0, 0.0 / 0.0, 2.0])";
        "nanmin"(a("x"), so("axis"), so("keepdims")) "nanmin(x, axis=none, keepdims=false)" "Minimum ignoring NaN (NaN where every value is NaN)." "nanmin([3.0, 0.0 / 0.0, 2.0])";
        "nanmax"(a("x"), so("axis"), so("keepdims")) "nanmax(x, axis=none, keepdims=false)" "Maximum ignoring NaN (NaN where every value is NaN)." "nanmax([3.0, 0.0 / 0.0, 2.0])";
        "argmin"(a("x"), so("axis"), so("keepdims")) "argmin(x, axis=none, keepdims=false)" "Index of the first minimum along one axis (of the flattened array when none); i64." "argmin([3, 1, 2])";
        "argmax"(a("x"), so("axis"), so("keepdims")) "argmax(x, axis=none, keepdims=false)" "Index of the first maximum along one axis (of the flattened array when none); i64." "argmax([3, 1, 2])";
        "any"(a("x"), so("axis"), so("keepdims")) "any(x, axis=none, keepdims=false)" "True if any element is true (nonzero)." "any(arange(3) > 1)";
        "all"(a("x"), so("axis"), so("keepdims")) "all(x, axis=none, keepdims=false)" "True if every element is true (nonzero)." "all(arange(3) >= 0)";
        "cumsum"(a("x"), so("axis")) "cumsum(x, axis=none)" "Running sum along an axis (of the flattened array when none)." "cumsum(arange(5))";
        "cumprod"(a("x"), so("axis")) "cumprod(x, axis=none)" "Running product along an axis." "cumprod(arange(1, 5))";
        "cummax"(a("x"), so("axis")) "cummax(x, axis=none)" "Running maximum along an axis." "cummax([1, 3, 2, 5])";
        "cummin"(a("x"), so("axis")) "cummin(x, axis=none)" "Running minimum along an axis." "cummin([3, 1, 2, 0])";
        "segsum"(a("values"), ao("lengths"), ao("offsets")) "segsum(values, lengths=none, offsets=none)" "Sum of each segment of 1-D `values`, the segments given by their `lengths` (which must add up to len(values)) or by `offsets` (0, each segment's end, ..., len(values)). An empty segment sums to 0. Sums of bool and i32 are i64. The segments are read and checked once per `lengths` (or `offsets`) array: reducing by the same array again, as in a loop, costs no host work, and a slice assignment into it is seen by the next call." "segsum([1, 2, 3, 4, 5], [2, 0, 3])";
        "segprod"(a("values"), ao("lengths"), ao("offsets")) "segprod(values, lengths=none, offsets=none)" "Product of each segment (see `segsum`); an empty segment gives 1." "segprod([1, 2, 3, 4], [1, 3])";
        "segmin"(a("values"), ao("lengths"), ao("offsets")) "segmin(values, lengths=none, offsets=none)" "Minimum of each segment (see `segsum`); NaN propagates; an empty segment gives the identity (inf for floats, the largest integer, true for bool)." "segmin([3, 1, 2, 5], offsets=[0, 2, 4])";
        "segmax"(a("values"), ao("lengths"), ao("offsets")) "segmax(values, lengths=none, offsets=none)" "Maximum of each segment (see `segsum`); NaN propagates; an empty segment gives the identity (-inf for floats, the smallest integer, false for bool)." "segmax([3, 1, 2, 5], [2, 2])";
        "segmean"(a("values"), ao("lengths"), ao("offsets")) "segmean(values, lengths=none, offsets=none)" "Mean of each segment (see `segsum`), a float; an empty segment gives NaN." "segmean([1.0, 2.0, 4.0], [2, 1])";
        "matmul"(a("a"), a("b")) "matmul(a, b)" "Matrix product, the same as `a @ b`." "matmul(eye(2), ones([2, 3]))";
    }
    "information" {
        "shape"(a("x")) "shape(x)" "The shape as a tuple of ints." "shape(zeros([2, 3]))";
        "size"(a("x")) "size(x)" "The number of elements." "size(zeros([2, 3]))";
        "ndim"(a("x")) "ndim(x)" "The number of axes." "ndim(zeros([2, 3]))";
        "dtype"(a("x")) "dtype(x)" "The element type's name, as a string." "dtype(arange(3))";
    }
    "input and output" {
        "print"(rest("values")) "print(values...)" "Prints the values, separated by spaces." "print(\"x =\", 3)";
        "load"(s("path")) "load(path)" "Reads an array from a NumPy .npy file." "load(\"x.npy\")";
        "save"(s("path"), a("x")) "save(path, x)" "Writes an array to a NumPy .npy file." "save(\"x.npy\", arange(3))";
    }
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
    match find(func) {
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
            vec![Some(1), None, Some(2)]
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
            bind("sum", &p, (0..4).map(|i| arg(i, None)).collect(), &(0..1))
                .unwrap_err()
                .code,
            "E0102"
        );
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
