//! Indexing, sorting, searching and counting against NumPy:
//! `tests/golden/make_index_sort.py` computes each row's dtype, shape and
//! values with NumPy and writes `tests/golden/index_sort/table.json`
//! (committed, so this test needs no Python). Every row runs on both CPU
//! executors (fused and reference); rows with `error` expect that code from
//! both the checker-and-run path and the plain run.

use arr::Session;
use arr::backend::cpu::CpuBackend;
use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;

mod common;
use common::json::{Json, Parser, field, number, text};

fn table() -> Vec<BTreeMap<String, Json>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/index_sort/table.json");
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

/// Equal as NumPy's `allclose` with the dtype's precision, NaN equal to NaN.
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

fn check_row(row: &BTreeMap<String, Json>, mut session: Session) -> Result<(), String> {
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
        return Err(format!("dtype {} (NumPy: {dtype})", r.dtype()));
    }
    let shape: Vec<usize> = match field(row, "shape") {
        Some(Json::Arr(s)) => s.iter().map(|d| number(d) as usize).collect(),
        _ => return Err("a row without shape".into()),
    };
    if r.shape != shape {
        return Err(format!("shape {:?} (NumPy: {shape:?})", r.shape));
    }
    let want: Vec<f64> = match field(row, "values") {
        Some(Json::Arr(v)) => v.iter().map(number).collect(),
        _ => return Err("a row without values".into()),
    };
    let got = r.to_f64_vec();
    if got.len() != want.len() || got.iter().zip(&want).any(|(&g, &w)| !close(g, w, &dtype)) {
        return Err(format!("values {got:?} (NumPy: {want:?})"));
    }
    Ok(())
}

fn run_table(make: fn() -> Session, executor: &str) {
    let rows = table();
    assert!(rows.len() >= 80, "only {} rows", rows.len());
    let mut failures = Vec::new();
    for row in &rows {
        if let Err(why) = check_row(row, make()) {
            failures.push(format!("{:?}: {why}", text(row, "src").unwrap_or_default()));
        }
    }
    assert!(
        failures.is_empty(),
        "{executor}: {} of {} rows differ from NumPy:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

#[test]
fn fused_executor_matches_numpy() {
    run_table(Session::cpu, "fused");
}

#[test]
fn reference_executor_matches_numpy() {
    run_table(|| Session::with_backend(Rc::new(CpuBackend::reference())), "reference");
}

#[test]
fn static_errors_are_found_by_check() {
    // what does not depend on data is reported before running
    for (src, code) in [
        ("let m = zeros([3, 4])\nlet r = m[[true, false]]", "E0212"),
        ("let m = zeros([3, 4])\nlet r = m[[0.0, 1.0]]", "E0300"),
        ("let r = take(arange(4), [1.0])", "E0300"),
        ("let r = sort(zeros([3, 4]), axis=2)", "E0201"),
        ("let r = bincount([1.0, 2.0])", "E0300"),
        ("let r = quantile(arange(4), 1.5)", "E0413"),
        ("let r = searchsorted(ones([2, 2]), 1.0)", "E0212"),
        ("let r = nonzero(zeros([]))", "E0212"),
    ] {
        let mut session = Session::cpu();
        let diags = session.check("t.arr", src);
        assert!(
            diags.iter().any(|d| d.code == code),
            "{src:?}: check gave {:?}, expected {code}",
            diags.iter().map(|d| d.code).collect::<Vec<_>>()
        );
    }
}
