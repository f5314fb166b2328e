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
    let rows = rows_of("prims.json");
    assert!(rows.len() >= 80, "only {} rows", rows.len());
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
