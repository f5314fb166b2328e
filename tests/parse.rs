//! Parser tests: precedence and structure against hand-written S-expressions,
//! a snapshot corpus covering every construct, spans checked against the
//! text they point at, one test per error code, and `is_incomplete`.

use arr::Diagnostic;
use arr::syntax::ast::*;
use arr::syntax::{is_incomplete, parse_program};
use std::fmt::Write;

// ---------------------------------------------------------------------------
// A compact S-expression printer, so that snapshots read like the grammar.

fn sexp_program(p: &Program) -> String {
    p.stmts.iter().map(sexp_stmt).collect::<Vec<_>>().join("\n")
}

fn sexp_stmt(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Let { target, value } => format!("(let {} {})", sexp_pat(target), sexp(value)),
        StmtKind::Assign { target, op, value } => {
            let op = op.map_or("=".to_string(), |op| format!("{}=", op.symbol()));
            format!("({op} {} {})", sexp(target), sexp(value))
        }
        StmtKind::Expr(e) => sexp(e),
        StmtKind::Fn(def) => {
            let mut out = format!("(fn {} (", def.name.name);
            let params: Vec<String> = def
                .params
                .iter()
                .map(|p| {
                    let mut s = p.name.name.clone();
                    if let Some(ann) = &p.ann {
                        write!(s, ": {}", sexp_ann(ann)).unwrap();
                    }
                    if let Some(d) = &p.default {
                        write!(s, " = {}", sexp(d)).unwrap();
                    }
                    s
                })
                .collect();
            out.push_str(&params.join(", "));
            out.push(')');
            if let Some(ret) = &def.ret {
                write!(out, " -> {}", sexp_ann(ret)).unwrap();
            }
            write!(out, " {})", sexp(&def.body)).unwrap();
            out
        }
        StmtKind::For { var, start, end, body } => {
            format!("(for {} {} {} {})", var.name, sexp(start), sexp(end), sexp_block(body))
        }
        StmtKind::ForEach { var, iter, body } => {
            format!("(for-each {} {} {})", sexp_pat(var), sexp(iter), sexp_block(body))
        }
        StmtKind::While { cond, body } => format!("(while {} {})", sexp(cond), sexp_block(body)),
        StmtKind::Break => "break".to_string(),
        StmtKind::Continue => "continue".to_string(),
    }
}

fn sexp_pat(p: &Pattern) -> String {
    match p {
        Pattern::Name(n) => n.name.clone(),
        Pattern::Rest(n) => format!("*{}", n.name),
        Pattern::Tuple(items, _) => {
            format!(
                "(tuple{})",
                items.iter().map(|p| format!(" {}", sexp_pat(p))).collect::<String>()
            )
        }
    }
}

fn sexp_ann(a: &TypeAnn) -> String {
    let mut s = a.dtype.as_ref().map_or(String::new(), |d| d.name.clone());
    if let Some(dims) = &a.dims {
        let dims: Vec<String> = dims
            .iter()
            .map(|d| match d {
                DimAnn::Fixed(n, _) => n.to_string(),
                DimAnn::Var(v) => v.name.clone(),
            })
            .collect();
        write!(s, "[{}]", dims.join(", ")).unwrap();
    }
    s
}

fn sexp_block(b: &Block) -> String {
    format!("{{{}}}", b.stmts.iter().map(sexp_stmt).collect::<Vec<_>>().join("; "))
}

fn sexp(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(n) => n.to_string(),
        ExprKind::Float(x) => format!("{x:?}"),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::FStr(parts) => {
            let parts: Vec<String> = parts
                .iter()
                .map(|p| match p {
                    FPart::Text(t) => format!("{t:?}"),
                    FPart::Value { expr, spec } => format!("({} {spec:?})", sexp(expr)),
                })
                .collect();
            format!("(f {})", parts.join(" "))
        }
        ExprKind::Name(n) => n.clone(),
        ExprKind::ArrayLit(items) => format!("[{}]", items.iter().map(sexp).collect::<Vec<_>>().join(" ")),
        ExprKind::Tuple(items) => format!(
            "(tuple{})",
            items.iter().map(|e| format!(" {}", sexp(e))).collect::<String>()
        ),
        ExprKind::Unary(UnOp::Neg, a) => format!("(neg {})", sexp(a)),
        ExprKind::Unary(UnOp::Not, a) => format!("(not {})", sexp(a)),
        ExprKind::Unary(UnOp::Invert, a) => format!("(~ {})", sexp(a)),
        ExprKind::Binary(op, a, b) => format!("({} {} {})", op.symbol(), sexp(a), sexp(b)),
        ExprKind::Cast(a, t) => format!("(as {} {})", sexp(a), t.name),
        ExprKind::Call { func, args } => {
            let args: String = args
                .iter()
                .map(|a| match &a.name {
                    Some(n) => format!(" {}={}", n.name, sexp(&a.value)),
                    None => format!(" {}", sexp(&a.value)),
                })
                .collect();
            format!("(call {}{args})", func.name)
        }
        ExprKind::Index { base, indices } => {
            let items: String = indices.iter().map(|i| format!(" {}", sexp_item(i))).collect();
            format!("(index {}{items})", sexp(base))
        }
        // the arms side by side: `(if c0 {..} c1 {..} {else})`
        ExprKind::If { arms, otherwise } => {
            let arms = arms.iter().map(|(c, t)| format!(" {} {}", sexp(c), sexp_block(t)));
            let otherwise = otherwise.iter().map(|o| format!(" {}", sexp_block(o)));
            format!("(if{})", arms.chain(otherwise).collect::<String>())
        }
        ExprKind::Block(b) => sexp_block(b),
    }
}

fn sexp_item(i: &IndexItem) -> String {
    let part = |p: &Option<Expr>| p.as_ref().map_or("_".to_string(), sexp);
    match &i.kind {
        IndexKind::Expr(e) => sexp(e),
        IndexKind::Slice { start, stop, step } => format!("(: {} {} {})", part(start), part(stop), part(step)),
        IndexKind::NewAxis => "newaxis".to_string(),
        IndexKind::Ellipsis => "...".to_string(),
    }
}

#[track_caller]
fn parse_ok(src: &str) -> Program {
    match parse_program(src, 0) {
        Ok(p) => p,
        Err(diags) => panic!("{src:?} should parse, got {diags:#?}"),
    }
}

#[track_caller]
fn s(src: &str) -> String {
    sexp_program(&parse_ok(src))
}

#[track_caller]
fn errors(src: &str) -> Vec<Diagnostic> {
    match parse_program(src, 0) {
        Ok(p) => panic!("{src:?} should fail, parsed as {}", sexp_program(&p)),
        Err(diags) => {
            assert!(!diags.is_empty(), "{src:?}: an error result with no diagnostics");
            diags
        }
    }
}

/// The one diagnostic of `src`: its code and the text its span covers.
#[track_caller]
fn one_error(src: &str) -> (Diagnostic, String) {
    let diags = errors(src);
    assert_eq!(diags.len(), 1, "{src:?}: expected one diagnostic, got {diags:#?}");
    let d = diags.into_iter().next().unwrap();
    let span = d.span.clone().expect("syntax errors have spans");
    let text = src[span].to_string();
    (d, text)
}

// ---------------------------------------------------------------------------
// Precedence and associativity, against hand-derived trees.

#[test]
fn precedence() {
    let cases = [
        ("-2 ** 2", "(neg (** 2 2))"),
        ("2 ** -1", "(** 2 (neg 1))"),
        ("2 ** 3 ** 2", "(** 2 (** 3 2))"),
        ("2 ** -x ** 2", "(** 2 (neg (** x 2)))"),
        ("a ** b[0]", "(** a (index b 0))"),
        ("-a[0]", "(neg (index a 0))"),
        ("--x", "(neg (neg x))"),
        ("a + b * c @ d", "(+ a (@ (* b c) d))"),
        ("a - b - c", "(- (- a b) c)"),
        ("a / b % c * d", "(* (% (/ a b) c) d)"),
        ("a - -b", "(- a (neg b))"),
        ("not a == b and c", "(and (not (== a b)) c)"),
        ("a or b and c", "(or a (and b c))"),
        ("a and b or c and d", "(or (and a b) (and c d))"),
        ("not not a", "(not (not a))"),
        ("a + 1 < b * 2", "(< (+ a 1) (* b 2))"),
        ("x as f32 * 2", "(* (as x f32) 2)"),
        ("2 * x as f32", "(* 2 (as x f32))"),
        ("-x as f32", "(as (neg x) f32)"),
        ("x ** 2 as i32", "(as (** x 2) i32)"),
        ("x as f32 as i64", "(as (as x f32) i64)"),
        ("(a + b) * c", "(* (+ a b) c)"),
        ("f(x)[1][2]", "(index (index (call f x) 1) 2)"),
        ("a <= b != c", "__error__"),
    ];
    for (src, want) in cases {
        if want == "__error__" {
            let (d, _) = one_error(src);
            assert_eq!(d.code, "E0001", "{src}");
        } else {
            assert_eq!(s(src), want, "{src}");
        }
    }
}

/// Python's levels for the bitwise operators (its grammar: `|` < `^` < `&` <
/// shifts < `+ -`, comparisons looser than `|`, unary `~` with unary `-`);
/// each expected tree is the one Python's `ast.parse` gives.
#[test]
fn bitwise_precedence_is_pythons() {
    let cases = [
        ("1 | 2 ^ 3 & 4 << 1", "(| 1 (^ 2 (& 3 (<< 4 1))))"),
        ("a & b | c & d", "(| (& a b) (& c d))"),
        ("a ^ b ^ c", "(^ (^ a b) c)"),
        ("a << b >> c", "(>> (<< a b) c)"),
        ("a + b << c - d", "(<< (+ a b) (- c d))"),
        ("a > 0 & b", "(> a (& 0 b))"),
        ("a & b == c | d", "(== (& a b) (| c d))"),
        ("(a > 0) & (b < 1)", "(& (> a 0) (< b 1))"),
        ("~a & b", "(& (~ a) b)"),
        ("~a ** 2", "(~ (** a 2))"),
        ("-~a", "(neg (~ a))"),
        ("~-a * b", "(* (~ (neg a)) b)"),
        ("2 ** ~a", "(** 2 (~ a))"),
        ("not a & b", "(not (& a b))"),
        ("a & b and c | d", "(and (& a b) (| c d))"),
        ("~x as i32", "(as (~ x) i32)"),
        ("a * b & c", "(& (* a b) c)"),
        ("a > 0 & b < 1", "__error__"),
    ];
    for (src, want) in cases {
        if want == "__error__" {
            let (d, _) = one_error(src);
            assert_eq!(d.code, "E0001", "{src}");
            let hint = d.hint.clone().unwrap_or_default();
            assert!(hint.contains("write `(a > 0) & (b < 1)`"), "{src}: {hint}");
        } else {
            assert_eq!(s(src), want, "{src}");
        }
    }
    let cases = [
        ("x &= 1", "(&= x 1)"),
        ("x |= m", "(|= x m)"),
        ("x ^= 3", "(^= x 3)"),
        ("x <<= 2", "(<<= x 2)"),
        ("a[0] >>= 1", "(>>= (index a 0) 1)"),
    ];
    for (src, want) in cases {
        assert_eq!(s(src), want, "{src}");
    }
}

#[test]
fn comparisons_do_not_chain() {
    let (d, text) = one_error("a < b < c");
    assert_eq!(d.code, "E0001");
    assert_eq!(text, "<");
}

#[test]
fn atoms_and_literals() {
    let cases = [
        ("1_000", "1000"),
        ("1.5e-3", "0.0015"),
        ("1e6", "1000000.0"),
        ("2.0", "2.0"),
        ("1_0.2_5", "10.25"),
        ("9223372036854775807", "9223372036854775807"),
        ("true", "true"),
        ("false", "false"),
        (r#""a\"b\\c\nd\te""#, r#""a\"b\\c\nd\te""#),
        ("\"héllo ✓\"", "\"héllo ✓\""),
        ("()", "(tuple)"),
        ("(a,)", "(tuple a)"),
        ("(a)", "a"),
        ("((a))", "a"),
        ("(a, b)", "(tuple a b)"),
        ("(a, b,)", "(tuple a b)"),
        ("[]", "[]"),
        ("[1, 2, 3,]", "[1 2 3]"),
        ("[[1, 2], [3, 4]]", "[[1 2] [3 4]]"),
        ("[[[1]], [[2]]]", "[[[1]] [[2]]]"),
        ("f()", "(call f)"),
        ("sum(x, axis=1, keepdims=true)", "(call sum x axis=1 keepdims=true)"),
        ("f(a == b)", "(call f (== a b))"),
        ("zeros([3], dtype=i32,)", "(call zeros [3] dtype=i32)"),
    ];
    for (src, want) in cases {
        assert_eq!(s(src), want, "{src}");
    }
}

#[test]
fn ranges_are_not_floats() {
    assert_eq!(s("for i in 0..n { }"), "(for i 0 n {})");
    assert_eq!(s("for i in 1..10 { }"), "(for i 1 10 {})");
    assert_eq!(s("for i in 0.5..n { }"), "(for i 0.5 n {})");
    assert_eq!(s("for i in a-1..a+1 { }"), "(for i (- a 1) (+ a 1) {})");
}

#[test]
fn loops_unpack_each_item_with_or_without_parentheses() {
    assert_eq!(
        s("for (i, v) in enumerate(x) { }"),
        "(for-each (tuple i v) (call enumerate x) {})"
    );
    assert_eq!(
        s("for i, v in enumerate(x) { }"),
        "(for-each (tuple i v) (call enumerate x) {})"
    );
    assert_eq!(
        s("for a, (p, q) in zip(x, m) { }"),
        "(for-each (tuple a (tuple p q)) (call zip x m) {})"
    );
    // one name over `range` is still the counted loop
    assert_eq!(s("for i in range(3) { }"), "(for i 0 3 {})");
}

#[test]
fn indexing_and_slices() {
    let cases = [
        ("a[0]", "(index a 0)"),
        (
            "a[1:-1, ::2, newaxis, ...]",
            "(index a (: 1 (neg 1) _) (: _ _ 2) newaxis ...)",
        ),
        ("a[::-1]", "(index a (: _ _ (neg 1)))"),
        ("a[:, 0]", "(index a (: _ _ _) 0)"),
        ("a[..., 0]", "(index a ... 0)"),
        ("a[1:]", "(index a (: 1 _ _))"),
        ("a[:n]", "(index a (: _ n _))"),
        ("a[i:j:k]", "(index a (: i j k))"),
        ("a[i::k]", "(index a (: i _ k))"),
        ("a[::]", "(index a (: _ _ _))"),
        ("a[i+1:2*j]", "(index a (: (+ i 1) (* 2 j) _))"),
        ("a[idx > 0]", "(index a (> idx 0))"),
        ("a[[0, 2]]", "(index a [0 2])"),
        ("a[0,]", "(index a 0)"),
        ("[1, 2][0]", "(index [1 2] 0)"),
        ("(a + b)[0]", "(index (+ a b) 0)"),
    ];
    for (src, want) in cases {
        assert_eq!(s(src), want, "{src}");
    }
}

#[test]
fn statements() {
    let cases = [
        ("let x = 1", "(let x 1)"),
        ("let (a, b) = f(x)", "(let (tuple a b) (call f x))"),
        ("let (a, (b, c)) = t", "(let (tuple a (tuple b c)) t)"),
        ("let (a,) = t", "(let (tuple a) t)"),
        ("let (a) = t", "(let a t)"),
        ("let (a, *b) = t", "(let (tuple a *b) t)"),
        ("let (*a, (b, c)) = t", "(let (tuple *a (tuple b c)) t)"),
        ("let (*a,) = t", "(let (tuple *a) t)"),
        ("x = 1", "(= x 1)"),
        ("x += 1", "(+= x 1)"),
        ("x -= 1", "(-= x 1)"),
        ("x *= 2", "(*= x 2)"),
        ("x /= 2", "(/= x 2)"),
        ("a[1:-1, 0] = b", "(= (index a (: 1 (neg 1) _) 0) b)"),
        ("a[i] *= 2", "(*= (index a i) 2)"),
        ("a[0][1] = 2", "(= (index (index a 0) 1) 2)"),
        ("(x) = 1", "(= x 1)"),
        ("x = y = 1", "__error__"),
        ("while x < 3 { x += 1 }", "(while (< x 3) {(+= x 1)})"),
        ("while true { break; continue }", "(while true {break; continue})"),
        ("let y = if c { 1 } else { 2 }", "(let y (if c {1} {2}))"),
        ("if c { 1 }", "(if c {1})"),
        ("{ let t = 1; t }", "{(let t 1); t}"),
        ("{}", "{}"),
        ("fn f(x) = x * 2", "(fn f (x) (* x 2))"),
        ("fn f() = 0", "(fn f () 0)"),
        ("fn f(x,) { x }", "(fn f (x) {x})"),
    ];
    for (src, want) in cases {
        if want == "__error__" {
            assert_eq!(errors(src)[0].code, "E0001", "{src}");
        } else {
            assert_eq!(s(src), want, "{src}");
        }
    }
}

#[test]
fn functions_with_annotations() {
    let cases = [
        ("fn f(x: f32) = x", "(fn f (x: f32) x)"),
        ("fn f(x: f32[n, m]) = x", "(fn f (x: f32[n, m]) x)"),
        ("fn f(x: f64[]) = x", "(fn f (x: f64[]) x)"),
        ("fn f(x: [n, 3]) = x", "(fn f (x: [n, 3]) x)"),
        ("fn f(axis = 0) = axis", "(fn f (axis = 0) axis)"),
        ("fn f(x: f64 = 1.0) = x", "(fn f (x: f64 = 1.0) x)"),
        ("fn f(x) -> f32[n] = x", "(fn f (x) -> f32[n] x)"),
        (
            "fn g(a: f32[n, k], b: f32[k, m], axis = -1) -> f32[n, m] { let c = a @ b; c + 1 }",
            "(fn g (a: f32[n, k], b: f32[k, m], axis = (neg 1)) -> f32[n, m] {(let c (@ a b)); (+ c 1)})",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(s(src), want, "{src}");
    }
}

#[test]
fn layout_and_separators() {
    let cases = [
        ("a\nb", "a\nb"),
        ("a; b", "a\nb"),
        ("a;;\n\n;b;", "a\nb"),
        ("\n\n  a  \n\n", "a"),
        ("# only a comment\n", ""),
        ("", ""),
        (";", ""),
        ("a # trailing comment\nb", "a\nb"),
        ("f(1,\n  2,\n  3\n)", "(call f 1 2 3)"),
        ("[\n  [1, 2],\n  [3, 4],\n]", "[[1 2] [3 4]]"),
        ("(a\n + b)", "(+ a b)"),
        ("a[\n 0\n]", "(index a 0)"),
        ("if a {\n  1\n}\nelse {\n  2\n}", "(if a {1} {2})"),
        ("if a { 1 }\nelse if b { 2 }\nelse { 3 }", "(if a {1} b {2} {3})"),
        ("while c {\n\n  x = 1\n\n  y = 2\n\n}", "(while c {(= x 1); (= y 2)})"),
        ("{ ; a ; }", "{a}"),
        // Inside parentheses a block still separates its statements by lines.
        ("f({\n let t = 1\n t\n})", "(call f {(let t 1); t})"),
        ("a\r\nb", "a\nb"),
    ];
    for (src, want) in cases {
        assert_eq!(s(src), want, "{src:?}");
    }
}

#[test]
fn a_newline_ends_a_statement() {
    // `a` then a new statement `-b`, not `a - b`.
    assert_eq!(s("a\n-b"), "a\n(neg b)");
    // A line break after a token that cannot end a statement continues it.
    assert_eq!(s("a +\nb"), "(+ a b)");
    assert_eq!(s("let x =\n  1"), "(let x 1)");
    assert_eq!(s("a and\n  b # why\n"), "(and a b)");
    assert_eq!(s("fn f(x) =\n  x"), "(fn f (x) x)");
    // ... but a `;` there is still an error.
    assert_eq!(one_error("a +; b").1, ";");
    // Two statements on one line need a `;`.
    assert_eq!(errors("a b")[0].code, "E0001");
}

// ---------------------------------------------------------------------------
// Snapshots of whole programs (reviewed by hand).

fn snapshot_text(src: &str) -> String {
    format!("{src}\n---\n{}\n", s(src))
}

#[test]
fn corpus_numeric_program() {
    let src = r#"# normalise rows, then a power iteration
let x = load("data/x.npy")
let (n, m) = shape(x)
let mu = mean(x, axis=0, keepdims=true)
let xc = (x - mu) / std(x, axis=0)
let v = ones([m]) / sqrt(m as f32)
for i in 0..20 {
    let w = xc.T
}
"#;
    // `.T` is not Arr: this must fail with an invalid character.
    let diags = errors(src);
    assert_eq!(diags[0].code, "E0003");

    let src = r#"# normalise rows, then a power iteration
let x = load("data/x.npy")
let (n, m) = shape(x)
let mu = mean(x, axis=0, keepdims=true)
let xc = (x - mu) / std(x, axis=0)
let v = ones([m]) / sqrt(m as f32)
for i in 0..20 {
    let w = transpose(xc) @ (xc @ v)
    v = w / norm(w)
    if norm(w) < 1e-6 { break }
}
print(v); save("v.npy", v)
"#;
    insta::assert_snapshot!(snapshot_text(src));
}

#[test]
fn corpus_functions_and_control_flow() {
    let src = r#"fn relu(x) = maximum(x, 0)
fn softmax(x: f32[n, k], axis = -1) -> f32[n, k] {
    let e = exp(x - max(x, axis=axis, keepdims=true))
    e / sum(e, axis=axis, keepdims=true)
}
fn sign_of(v) {
    if v > 0 {
        1
    } else if v < 0 {
        -1
    }
    else {
        0
    }
}
let i = 0
while i < 10 and not done {
    i += 1
    if i % 2 == 0 { continue }
    a[i, ::2] -= 1.5
}
"#;
    insta::assert_snapshot!(snapshot_text(src));
}

#[test]
fn corpus_arrays_and_indexing() {
    let src = r#"let m = [[1.0, 2.0],
         [3.0, 4.0]]
let t = (m, [1, 2], "s")
let r = m[::-1, :][0, newaxis, ...]
m[0, :] = zeros(2, dtype=f32); m[1] += 2 ** -1
let b = m[m > 2] as i64 * 3
let g = m[[1, 0]]
"#;
    insta::assert_snapshot!(snapshot_text(src));
}

#[test]
fn corpus_for_each_and_fstrings() {
    let src = r#"for row in m[1:] { print(f"row {i:>3d}: {sum(row) / n:.3f}") }
for v in (a, b) { total += v }
print(f"{{literal}} {x!r:<8} \t{m[0, ::2]}{f(a, b=2)}")
"#;
    insta::assert_snapshot!(snapshot_text(src));
}

#[test]
fn fstring_errors_point_into_the_string() {
    let e = errors("print(f\"a {x:.2f\")");
    assert_eq!(e[0].code, "E0008");
    let e = errors("print(f\"a } b\")");
    assert_eq!((e[0].code, e[0].span.clone()), ("E0008", Some(10..11)));
    // an error inside the expression is the expression's own, at its place in the line
    let e = errors("print(f\"a {1 +} b\")");
    assert_eq!(e[0].code, "E0002");
    let at = e[0].span.clone().expect("a span");
    assert!(at.start >= 11 && at.end <= 16, "{at:?} is inside `1 +`");
    let e = errors("print(f\"{let y = 2}\")");
    assert_eq!(e[0].code, "E0008");
}

// ---------------------------------------------------------------------------
// Spans point at the right text, and are shifted by `base`.

#[test]
fn spans_cover_what_they_name() {
    let src = "let y = foo(a + b * c, axis=-1)[1:, 0]\nfn f(x: f32[n, 3] = 2) -> f64 = (x)\nz[i] += 1";
    let p = parse_ok(src);
    let text = |span: &Span| &src[span.clone()];
    assert_eq!(p.stmts.len(), 3);
    assert_eq!(text(&p.stmts[0].span), "let y = foo(a + b * c, axis=-1)[1:, 0]");
    let StmtKind::Let {
        target: Pattern::Name(y),
        value,
    } = &p.stmts[0].kind
    else {
        panic!()
    };
    assert_eq!(text(&y.span), "y");
    assert_eq!(text(&value.span), "foo(a + b * c, axis=-1)[1:, 0]");
    let ExprKind::Index { base, indices } = &value.kind else {
        panic!()
    };
    assert_eq!(text(&base.span), "foo(a + b * c, axis=-1)");
    assert_eq!(text(&indices[0].span), "1:");
    assert_eq!(text(&indices[1].span), "0");
    let ExprKind::Call { func, args } = &base.kind else {
        panic!()
    };
    assert_eq!(text(&func.span), "foo");
    assert_eq!(text(&args[0].value.span), "a + b * c");
    let ExprKind::Binary(BinOp::Add, a, bc) = &args[0].value.kind else {
        panic!()
    };
    assert_eq!(text(&a.span), "a");
    assert_eq!(text(&bc.span), "b * c");
    assert_eq!(text(&args[1].name.as_ref().unwrap().span), "axis");
    assert_eq!(text(&args[1].value.span), "-1");

    assert_eq!(text(&p.stmts[1].span), "fn f(x: f32[n, 3] = 2) -> f64 = (x)");
    let StmtKind::Fn(def) = &p.stmts[1].kind else { panic!() };
    assert_eq!(text(&def.span), "fn f(x: f32[n, 3] = 2) -> f64 = (x)");
    assert_eq!(text(&def.name.span), "f");
    let ann = def.params[0].ann.as_ref().unwrap();
    assert_eq!(text(&ann.span), "f32[n, 3]");
    assert_eq!(text(&ann.dtype.as_ref().unwrap().span), "f32");
    let dims = ann.dims.as_ref().unwrap();
    let DimAnn::Var(n) = &dims[0] else { panic!() };
    assert_eq!(text(&n.span), "n");
    let DimAnn::Fixed(3, three) = &dims[1] else { panic!() };
    assert_eq!(text(three), "3");
    assert_eq!(text(&def.params[0].default.as_ref().unwrap().span), "2");
    assert_eq!(text(&def.ret.as_ref().unwrap().span), "f64");
    // A parenthesised expression spans its parentheses.
    assert_eq!(text(&def.body.span), "(x)");

    assert_eq!(text(&p.stmts[2].span), "z[i] += 1");
    let StmtKind::Assign { target, .. } = &p.stmts[2].kind else {
        panic!()
    };
    assert_eq!(text(&target.span), "z[i]");
}

#[test]
fn spans_of_blocks_and_ifs() {
    let src = "while c {\n  if a { 1 } else { 2 }\n}";
    let p = parse_ok(src);
    let text = |span: &Span| &src[span.clone()];
    assert_eq!(text(&p.stmts[0].span), src);
    let StmtKind::While { body, .. } = &p.stmts[0].kind else {
        panic!()
    };
    assert_eq!(text(&body.span), "{\n  if a { 1 } else { 2 }\n}");
    assert_eq!(text(&body.stmts[0].span), "if a { 1 } else { 2 }");
    let StmtKind::Expr(Expr {
        kind: ExprKind::If {
            arms,
            otherwise: Some(o),
        },
        ..
    }) = &body.stmts[0].kind
    else {
        panic!()
    };
    assert_eq!(text(&arms[0].1.span), "{ 1 }");
    assert_eq!(text(&o.span), "{ 2 }");
}

#[test]
fn spans_are_shifted_by_base() {
    let src = "x = a + 1";
    let at0 = parse_program(src, 0).unwrap();
    let at100 = parse_program(src, 100).unwrap();
    let StmtKind::Assign { value: v0, .. } = &at0.stmts[0].kind else {
        panic!()
    };
    let StmtKind::Assign { value: v100, .. } = &at100.stmts[0].kind else {
        panic!()
    };
    assert_eq!(v0.span, 4..9);
    assert_eq!(v100.span, 104..109);
    assert_eq!(at100.stmts[0].span, 100..109);
    let d = &parse_program("x = )", 100).unwrap_err()[0];
    assert_eq!(d.span, Some(104..105));
    let d = &parse_program("x = $", 100).unwrap_err()[0];
    assert_eq!(d.span, Some(104..105));
    let d = &parse_program("x = (", 100).unwrap_err()[0];
    assert_eq!(d.span, Some(104..105));
}

// ---------------------------------------------------------------------------
// Every error code, with its span.

#[test]
fn e0001_unexpected_token() {
    let (d, text) = one_error("let x = (1, 2) + (1 + )");
    assert_eq!((d.code, text.as_str()), ("E0001", ")"));
    assert_eq!(d.message, "unexpected `)`");
    assert_eq!(d.primary_label.as_deref(), Some("found `)`"));
    assert_eq!(d.hint.as_deref(), Some("expected an expression"));

    let (d, text) = one_error("let a = [1, 2 3]");
    assert_eq!((d.code, text.as_str()), ("E0001", "3"));
    assert_eq!(d.message, "unexpected number `3`");
    assert_eq!(d.hint.as_deref(), Some("expected an operator, `,` or `]`"));

    let (d, text) = one_error("f(1, )\nlet = 3");
    assert_eq!((d.code, text.as_str()), ("E0001", "="));
    assert_eq!(d.hint.as_deref(), Some("expected a name or `(`"));

    let (d, text) = one_error("let x = *2");
    assert_eq!((d.code, text.as_str()), ("E0001", "*"));
    assert_eq!(d.hint.as_deref(), Some("expected an expression"));

    let (d, text) = one_error("x = [1, ");
    assert_eq!(d.code, "E0002");
    assert_eq!(text, ",");
    assert_eq!(d.hint.as_deref(), Some("expected an expression or `]`"));

    let (d, text) = one_error("if x = 1 { 2 }");
    assert_eq!((d.code, text.as_str()), ("E0001", "="));
    assert_eq!(d.hint.as_deref(), Some("expected `{` (use `==` to compare)"));

    // Brackets that close nothing, or the wrong bracket, are named.
    let (d, text) = one_error("let x = (1, 2))");
    assert_eq!((d.code, text.as_str()), ("E0001", ")"));
    assert_eq!(d.primary_label.as_deref(), Some("this `)` closes nothing"));
    let (d, text) = one_error("f(a, [1, 2)");
    assert_eq!((d.code, text.as_str()), ("E0001", ")"));
    assert_eq!(d.primary_label.as_deref(), Some("this `)` does not match the `[`"));
    assert_eq!(d.labels, [(5..6, "this `[` is still open".to_string())]);

    let (d, text) = one_error("f(a; b)");
    assert_eq!((d.code, text.as_str()), ("E0001", ";"));
    assert_eq!(d.message, "unexpected `;`");

    let (d, text) = one_error("let x = (1 +\n2)\n)");
    assert_eq!((d.code, text.as_str()), ("E0001", ")"));

    let (d, text) = one_error("x = 1\n2 3");
    assert_eq!((d.code, text.as_str()), ("E0001", "3"));

    let (d, text) = one_error("f(x)\n= 3");
    assert_eq!((d.code, text.as_str()), ("E0001", "="));

    let (d, text) = one_error("while x\n{ }");
    assert_eq!((d.code, text.as_str()), ("E0001", "\n"));
    assert_eq!(d.message, "unexpected end of line");

    let (d, text) = one_error("}");
    assert_eq!((d.code, text.as_str()), ("E0001", "}"));
    assert_eq!(d.hint.as_deref(), Some("expected a statement"));

    let (d, text) = one_error("let let = 1");
    assert_eq!((d.code, text.as_str()), ("E0001", "let"));
    assert_eq!(d.message, "unexpected `let`");
}

#[test]
fn e0002_unexpected_end_of_input() {
    // It points at the last token, after which the input ends.
    for (src, last) in [
        ("let x =", "="),
        ("f(1, 2", "2"),
        ("while x {", "{"),
        ("a[1:", ":"),
        ("x +  # comment\n\n", "+"),
        ("fn f(x) =", "="),
        ("if a { 1 } else", "else"),
    ] {
        let (d, text) = one_error(src);
        assert_eq!(d.code, "E0002", "{src}");
        assert_eq!(d.message, "unexpected end of input");
        assert_eq!(text, last, "{src}");
    }
    // The unclosed bracket is pointed out.
    let src = "let y = f(a, [1, 2\n";
    let (d, _) = one_error(src);
    assert_eq!(d.code, "E0002");
    assert_eq!(d.labels[0], (13..14, "this `[` is not closed".to_string()));
    assert_eq!(d.labels[1], (9..10, "this `(` is not closed".to_string()));
}

#[test]
fn e0003_invalid_character() {
    let (d, text) = one_error("let x = a $ b");
    assert_eq!((d.code, text.as_str()), ("E0003", "$"));
    assert_eq!(d.message, "invalid character `$`");

    let (d, text) = one_error("x = a && b");
    assert_eq!((d.code, text.as_str()), ("E0003", "&&"));
    assert_eq!(d.hint.as_deref(), Some("use `and` for logical and"));

    let (d, text) = one_error("let é = 1");
    assert_eq!((d.code, text.as_str()), ("E0003", "é"));

    // Every lexer error is reported, plus the first syntax error.
    let diags = errors("a ?\nc d\ne ` f");
    let codes: Vec<_> = diags.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0003", "E0001", "E0003"], "{diags:#?}");
    assert_eq!(diags[0].span, Some(2..3));
    assert_eq!(diags[1].span, Some(6..7));
    assert_eq!(diags[2].span, Some(10..11));
    // ... except a syntax error right after invalid characters, which they caused.
    assert_eq!(one_error("x = $\n").0.code, "E0003");
    assert_eq!(one_error("f(a, b ?)").0.code, "E0003");
    let (d, text) = one_error("x = a || b");
    assert_eq!((d.code, text.as_str()), ("E0003", "||"));
    assert_eq!(d.hint.as_deref(), Some("use `or` for logical or"));

    let (d, text) = one_error("x\0");
    assert_eq!((d.code, text.as_str()), ("E0003", "\0"));
}

#[test]
fn e0004_invalid_literal() {
    let (d, text) = one_error("let n = 9223372036854775808");
    assert_eq!((d.code, text.as_str()), ("E0004", "9223372036854775808"));
    assert_eq!(d.message, "integer literal too large");
    // after a binary minus 2^63 is still too large (only a negation makes it i64::MIN)
    let (d, text) = one_error("let n = 3 - 9223372036854775808");
    assert_eq!((d.code, text.as_str()), ("E0004", "9223372036854775808"));

    let (d, text) = one_error("x = 1e999");
    assert_eq!((d.code, text.as_str()), ("E0004", "1e999"));

    let (d, text) = one_error("x = 2.5e+ * 3");
    assert_eq!((d.code, text.as_str()), ("E0004", "2.5e+"));

    let (d, text) = one_error(r#"save("a\qb", x)"#);
    assert_eq!((d.code, text.as_str()), ("E0004", r"\q"));

    // Literal errors do not hide each other.
    let diags = errors("[99999999999999999999, 1e400]");
    assert_eq!(diags.iter().map(|d| d.code).collect::<Vec<_>>(), ["E0004", "E0004"]);
}

#[test]
fn e0005_invalid_assignment_target() {
    for (src, target) in [
        ("f(x) = 1", "f(x)"),
        ("a + b = 1", "a + b"),
        ("1 += 2", "1"),
        ("(a, b) = t", "(a, b)"),
        ("f(x)[0] = 1", "f(x)[0]"),
        ("-x = 1", "-x"),
    ] {
        let (d, text) = one_error(src);
        assert_eq!(d.code, "E0005", "{src}");
        assert_eq!(d.message, "cannot assign to this expression");
        assert_eq!(text, target, "{src}");
    }
    // Parsing goes on after a bad target.
    let diags = errors("f(x) = 1\ng(y) = 2");
    assert_eq!(diags.iter().map(|d| d.code).collect::<Vec<_>>(), ["E0005", "E0005"]);
}

#[test]
fn e0006_unterminated_string() {
    let (d, text) = one_error("let p = \"data/x.npy");
    assert_eq!((d.code, text.as_str()), ("E0006", "\"data/x.npy"));
    // The string ends at the line break; the next line is lexed normally.
    let diags = errors("print(\"abc)\nlet x = 1");
    assert_eq!(diags[0].code, "E0006");
    assert_eq!(diags[0].span, Some(6..11));
    let (d, _) = one_error("\"abc\\");
    assert_eq!(d.code, "E0006");
}

#[test]
fn e0007_too_deep() {
    let src = format!("x = {}1", "-".repeat(100_000));
    let (d, _) = one_error(&src);
    assert_eq!(d.code, "E0007");
    // An operator chain is not nesting: 100000 terms parse (tests/robustness_lang.rs runs them).
    let src = format!("x = 1{}", " + 1".repeat(100_000));
    assert!(parse_program(&src, 0).is_ok(), "a long chain parses");
    let src = format!("x = {}1{}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(one_error(&src).0.code, "E0007");
    let src = format!("{}{}", "{".repeat(10_000), "}".repeat(10_000));
    assert_eq!(one_error(&src).0.code, "E0007");
    let src = format!("x = 2{}", " ** 2".repeat(10_000));
    assert_eq!(one_error(&src).0.code, "E0007");
    // Parentheses alone add no depth to the tree.
    let src = format!("x = {}1{}", "(".repeat(100_000), ")".repeat(100_000));
    assert_eq!(s(&src), "(= x 1)");
    // Moderate nesting is fine.
    let src = format!("x = 1{}", " + 1".repeat(200));
    parse_ok(&src);
}

// ---------------------------------------------------------------------------
// Robustness: nothing panics, whatever the input.

#[test]
fn never_panics() {
    let inputs = [
        "\0\0\0",
        "é",
        "日本語 = 1",
        "\"日本",
        "x = \"\\日\"",
        "🦀(🦀)",
        "((((((((((",
        "))))))))",
        "[[[[[[",
        "{{{{",
        "}}}}",
        "else",
        "fn",
        "fn f(",
        "fn f(x: ",
        "fn f(x: f32[",
        "let (a, b",
        "a[",
        "a[::",
        "1..2",
        "...",
        "..",
        ".",
        "->",
        "\\",
        "\r",
        "\t\t\n\n;;",
        "#",
        "1e",
        "1_",
        "0x10",
        "a.b",
        "99999999999999999999999999999999999999999",
        "let x = 1\nlet y = ",
    ];
    for src in inputs {
        let _ = parse_program(src, 0);
        let _ = is_incomplete(src);
        let _ = parse_program(src, usize::MAX / 2);
    }
    // Every prefix and suffix of a real program, cut at any character.
    let program = "fn f(x: f32[n] = 1.5) -> f32 {\n  let (a, b) = (x[1:-1, ::2], \"s\\n\")\n  if a > 0 { a += 1 } else { b }\n}\nfor i in 0..n { while not done { break } }\n";
    for (i, _) in program.char_indices() {
        let _ = parse_program(&program[..i], 0);
        let _ = is_incomplete(&program[..i]);
        let _ = parse_program(&program[i..], 0);
    }
}

#[test]
fn diagnostics_render() {
    for src in ["let x = (1, 2))", "x = [1,", "a $ b", "\"abc", "f(x) = 1"] {
        for d in parse_program(src, 0).unwrap_err() {
            let text = d.render("t.arr", src, false);
            assert!(text.contains(d.code), "{text}");
        }
    }
}

// ---------------------------------------------------------------------------
// is_incomplete: whether the REPL should ask for another line.

#[test]
fn incomplete_inputs() {
    for src in [
        "let x =",
        "let x = (1,",
        "f(1, 2",
        "a[1:",
        "x +",
        "x ** ",
        "while i < 3 {",
        "fn f(x) {\n  let y = x\n",
        "if a { 1 } else",
        "for i in 0..",
        "[[1, 2],\n [3, 4],",
        "let (a, b",
        "fn f(x) =",
        "not",
        "a +\n",
        "let x =\n\n",
    ] {
        assert!(is_incomplete(src), "{src:?} should be incomplete");
    }
}

#[test]
fn complete_or_broken_inputs() {
    for src in [
        "",
        "let x = 1",
        "f(1, 2)",
        "if a { 1 }",
        "while i < 3 { i += 1 }",
        "fn f(x) = x\n",
        // Broken, not unfinished: more input cannot fix these.
        "let x = )",
        "f(1, 2))",
        "}",
        "let x = 1 $",
        "let s = \"abc",
        "x = 99999999999999999999 +",
    ] {
        assert!(!is_incomplete(src), "{src:?} should not count as incomplete");
    }
}

/// Every diagnostic of each input, compactly: code, the text its span covers,
/// message, primary label, other labels and hint.
#[test]
fn corpus_of_errors() {
    let mut out = String::new();
    for src in [
        "let x = (1, 2))",
        "let a = [1, 2 3]",
        "x = [1,\n",
        "let y = f(a, [1, 2\n",
        "a + b = 1",
        "if x = 1 { 2 }",
        "let s = \"abc",
        "x = 99999999999999999999",
        "x = a && b",
        "fn f(x) { x }}",
        "let x = 1 2",
        "a[1:2:3:4]",
        "f(x)(y)",
        "let (a, 1) = t",
        "for i in 0..n\n{ }",
        "x = 1,",
        "fn f(x: f32[n, 2.5]) = x",
        "while { }",
        "print(\"a\\qb\", 'c')",
    ] {
        writeln!(out, "{src:?}").unwrap();
        for d in parse_program(src, 0).unwrap_err() {
            let span = d.span.clone().unwrap();
            write!(out, "  {} {:?} {}", d.code, &src[span], d.message).unwrap();
            if let Some(label) = &d.primary_label {
                write!(out, " | {label}").unwrap();
            }
            for (span, label) in &d.labels {
                write!(out, " | {:?}: {label}", &src[span.clone()]).unwrap();
            }
            if let Some(hint) = &d.hint {
                write!(out, " | hint: {hint}").unwrap();
            }
            out.push('\n');
        }
    }
    insta::assert_snapshot!(out);
}
