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
use common::json::{Json, Parser, field, number, text};

fn table() -> Vec<BTreeMap<String, Json>> {
    rows_of("table.json")
}

/// The rows of one table in tests/golden/numerics/.
fn rows_of(file: &str) -> Vec<BTreeMap<String, Json>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/numerics")
        .join(file);
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut parser = Parser {
        text: json.as_bytes(),
        at: 0,
    };
    let Json::Arr(rows) = parser.value().expect("table.json parses") else {
        panic!("table.json is not a list")
    };
    rows.into_iter()
        .map(|r| match r {
            Json::Obj(o) => o,
            other => panic!("a row is not an object: {other:?}"),
        })
        .collect()
}

/// Equal as NumPy's `allclose` with the dtype's precision, NaN equal to NaN,
/// infinities exactly.
fn close(got: f64, want: f64, dtype: &str) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    let rtol = if dtype == "f32" { 1e-6 } else { 1e-12 };
    (got - want).abs() <= rtol * want.abs() + rtol
}

/// Runs one row; `Err` says how it differs from the table.
fn check_row(row: &BTreeMap<String, Json>) -> Result<(), String> {
    check_row_on(row, Session::cpu())
}

fn check_row_on(row: &BTreeMap<String, Json>, mut session: Session) -> Result<(), String> {
    let src = text(row, "src").ok_or("a row without src")?;
    session.set_output(Box::new(std::io::sink()));
    let result = session.eval(&src);
    if let Some(code) = text(row, "error") {
        return match result {
            Err(diags) if diags.iter().any(|d| d.code == code) => Ok(()),
            Err(diags) => Err(format!(
                "expected {code}, got {:?}",
                diags.iter().map(|d| d.code.to_string()).collect::<Vec<_>>()
            )),
            Ok(_) => Err(format!("expected {code}, but it ran")),
        };
    }
    if let Err(diags) = result {
        return Err(format!("failed: {}", session.render(&diags, false)));
    }
    let r = session.get("r").map_err(|d| format!("no `r`: {}", d.message))?;
    let dtype = text(row, "dtype").ok_or("a row without dtype")?;
    if r.dtype().name() != dtype {
        return Err(format!("dtype {} (table: {dtype})", r.dtype()));
    }
    let shape: Vec<usize> = match field(row, "shape") {
        Some(Json::Arr(s)) => s.iter().map(|d| number(d) as usize).collect(),
        _ => return Err("a row without shape".into()),
    };
    if r.shape != shape {
        return Err(format!("shape {:?} (table: {shape:?})", r.shape));
    }
    let want: Vec<f64> = match field(row, "values") {
        Some(Json::Arr(v)) => v.iter().map(number).collect(),
        _ => return Err("a row without values".into()),
    };
    let got = r.to_f64_vec();
    if got.len() != want.len() || got.iter().zip(&want).any(|(&g, &w)| !close(g, w, &dtype)) {
        return Err(format!("values {got:?} (table: {want:?})"));
    }
    Ok(())
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
            if let Err(why) = check_row_on(row, session) {
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
