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
