//! The numeric rules of docs/language.md, one table row each, against NumPy:
//! `tests/golden/make_numerics.py` computes every row's dtype and values with
//! NumPy (and SciPy) and writes `tests/golden/numerics/table.json`, committed so
//! that this test needs no Python. Rows where Arr differs from NumPy on purpose
//! say so, and their expected values are NumPy's computation in the dtype Arr
//! documents; rows with `error` expect that diagnostic code.

use arr::Session;
use std::collections::BTreeMap;
use std::path::Path;

mod common;
use common::golden;
use common::json::{Json, text};

fn table() -> Vec<BTreeMap<String, Json>> {
    rows_of("table.json")
}

/// The rows of one table in tests/golden/numerics/.
fn rows_of(file: &str) -> Vec<BTreeMap<String, Json>> {
    golden::rows(&format!("numerics/{file}"))
}

/// Runs one row; `Err` says how it differs from the table.
fn check_row(row: &BTreeMap<String, Json>) -> Result<(), String> {
    golden::check_row(row, Session::cpu())
}

#[test]
fn numeric_rules_match_numpy_or_the_documented_difference() {
    let rows = table();
    assert!(rows.len() >= 40, "only {} rows", rows.len());
    let mut failures = Vec::new();
    for row in &rows {
        if let Err(why) = check_row(row) {
            let src = text(row, "src").unwrap_or_default();
            let note = text(row, "numpy").unwrap_or_default();
            failures.push(format!("{src:?}: {why}\n    NumPy: {note}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows differ:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

/// The primitives of `src/check/prim.rs` and the functions built on them
/// (`tests/golden/make_prims.py`), on both CPU executors.
#[test]
fn primitives_match_numpy() {
    table_matches_on_both_executors("prims.json", 80);
}

/// Positions and orders (`tests/golden/make_order.py`): argmin and argmax
/// across the fused executor's pieces, chunks and layouts, on both CPU
/// executors.
#[test]
fn orders_match_numpy() {
    table_matches_on_both_executors("order.json", 50);
}

/// The half floats f16 and bf16 against NumPy's float16 and ml_dtypes'
/// bfloat16 (`tests/golden/make_half.py`), on both CPU executors.
#[test]
fn half_floats_match_numpy() {
    table_matches_on_both_executors("half.json", 100);
}

/// Every row of the golden table `file` (at least `min_rows` of them) on the
/// fused and the reference CPU executors.
fn table_matches_on_both_executors(file: &str, min_rows: usize) {
    let rows = rows_of(file);
    assert!(rows.len() >= min_rows, "only {} rows", rows.len());
    let mut failures = Vec::new();
    for row in &rows {
        let reference = || Session::with_backend(std::rc::Rc::new(arr::backend::cpu::CpuBackend::reference()));
        for (executor, session) in [("fused", Session::cpu()), ("reference", reference())] {
            if let Err(why) = golden::check_row(row, session) {
                failures.push(format!(
                    "{:?} ({executor}): {why}",
                    text(row, "src").unwrap_or_default()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows differ:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

/// NumPy's own float16 `.npy` file loads to its values, and Arr's save of
/// them writes the same bytes.
#[test]
fn half_npy_round_trips_numpy_bytes() {
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/numerics/half.npy");
    let out = std::env::temp_dir().join(format!("arr-half-{}.npy", std::process::id()));
    let mut session = Session::cpu();
    session.set_output(Box::new(std::io::sink()));
    let src = format!(
        "let r = load({:?})\nsave({:?}, r)",
        golden.display().to_string(),
        out.display().to_string()
    );
    if let Err(d) = session.eval(&src) {
        panic!("{}", session.render(&d, false));
    }
    let r = session.get("r").expect("r");
    assert_eq!(r.dtype().name(), "f16");
    assert_eq!(r.shape, vec![2, 3]);
    // the values NumPy stores for [[0.1, -2.5, 65504], [1e-5, inf, 3.3]] as float16 (hand-checked bits)
    let want = [
        0.0999755859375,
        -2.5,
        65504.0,
        1.0013580322265625e-05,
        f64::INFINITY,
        3.30078125,
    ];
    assert_eq!(r.to_f64_vec(), want);
    let (a, b) = (
        std::fs::read(&golden).expect("golden"),
        std::fs::read(&out).expect("saved"),
    );
    let _ = std::fs::remove_file(&out);
    assert_eq!(a, b, "Arr's float16 .npy differs from NumPy's");
}

#[test]
fn every_documented_difference_is_in_the_docs() {
    // A row that differs from NumPy must be a rule docs/language.md states; the
    // phrases below are the ones the docs use for each difference.
    let docs = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/language.md"))
        .expect("docs/language.md");
    for phrase in [
        "`i32 + f32` is `f32`",
        "literal list is weak",
        "saturate",
        "E0307",
        "`flatten` copies",
        "`true + true` is `2`",
        "Promotion follows PyTorch and JAX",
        "accumulate in `f32`",
    ] {
        assert!(docs.contains(phrase), "docs/language.md does not say {phrase:?}");
    }
    let differences = table()
        .iter()
        .filter(|r| text(r, "numpy").is_some_and(|n| !n.starts_with("same")))
        .count();
    assert!(
        differences >= 5,
        "only {differences} documented differences in the table"
    );
}
