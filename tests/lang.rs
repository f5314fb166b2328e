//! Language tests written in Arr: each `tests/cases/*.arr` prints values and
//! states the expected output, worked out by hand, in `# out:` lines.

mod common;
use common::Captured;

fn run_case(name: &str) {
    let path = format!("{}/tests/cases/{name}.arr", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("case file");
    let expected: Vec<&str> = source
        .lines()
        .filter_map(|l| l.strip_prefix("# out: ").or_else(|| (l == "# out:").then_some("")))
        .collect();
    assert!(!expected.is_empty(), "{name}: no `# out:` lines");
    let mut session = arr::Session::cpu();
    let out = Captured::default();
    session.set_output(Box::new(out.clone()));
    if let Err(diags) = session.eval(&source) {
        panic!("{name} failed:\n{}", session.render(&diags, false));
    }
    let printed = out.text();
    let printed: Vec<&str> = printed.lines().collect();
    for (k, (got, want)) in printed.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "{name}: output line {} differs", k + 1);
    }
    assert_eq!(
        printed.len(),
        expected.len(),
        "{name}: {} lines printed, {} expected",
        printed.len(),
        expected.len()
    );
}

macro_rules! cases {
    ($($name:ident),*) => { $( #[test] fn $name() { run_case(stringify!($name)); } )* };
}

cases!(
    arithmetic,
    views,
    reductions,
    functions,
    control,
    narrow_ints,
    numpy_habits,
    signed_zero,
    builtins,
    stdlib,
    segments,
    loops_and_fstrings,
    slice_assign,
    slice_direct,
    half,
    row_outputs,
    numpy_names,
    concat_parts,
    numpy_stdlib,
    linalg,
    random,
    bitwise,
    out_param,
    span_mixed,
    compound_ops,
    tuples,
    enumerate_zip,
    add_at,
    storage_fused,
    fast_paths,
    numpy_stdlib_more,
    user_names,
    quantile_methods
);

/// Arithmetic and comparisons on literals and host scalars take a fast path
/// (`Interp::host_eval`, with no arrays); a call in front of each operand
/// (`id(x)`) sends the same values through the graph. Both must give the
/// same value, dtype and error, for every operator and operand kind: weak
/// and strong integers and floats, bools, i64 limits, signed zeros.
#[test]
fn scalar_fast_path_agrees_with_the_graph() {
    let mut session = arr::Session::cpu();
    let out = Captured::default();
    session.set_output(Box::new(out.clone()));
    let prelude = "fn id(v) = v\nlet i = 5\nlet f = 0.75\nlet s = asarray(-4)\nlet g = asarray(0.5)\nlet b = true\nlet big = 9223372036854775807";
    session.eval(prelude).expect("the prelude runs");
    let values = ["0", "1", "-3", "2.5", "-0.0", "1e300", "i", "f", "s", "g", "b", "big"];
    let ops = [
        "+", "-", "*", "/", "//", "%", "**", "<", "<=", ">", ">=", "==", "!=", "&", "|", "^", "<<", ">>",
    ];
    let mut run = |expr: &str| -> String {
        match session.eval(&format!("print({expr}, dtype({expr}))")) {
            Ok(_) => out.take(),
            Err(diags) => {
                out.take();
                diags.iter().map(|d| d.code).collect::<Vec<_>>().join(" ")
            }
        }
    };
    let mut compared = 0;
    for a in values {
        for op in ops {
            for b in values {
                let fast = run(&format!("({a}) {op} ({b})"));
                let general = run(&format!("id({a}) {op} id({b})"));
                assert_eq!(fast, general, "`{a} {op} {b}`");
                // nested: the fast path folds a whole tree
                let fast = run(&format!("(({a}) {op} ({b})) - ({a})"));
                let general = run(&format!("(id({a}) {op} id({b})) - id({a})"));
                assert_eq!(fast, general, "`({a} {op} {b}) - {a}`");
                compared += 2;
            }
        }
    }
    assert_eq!(compared, 2 * values.len() * ops.len() * values.len());
}
