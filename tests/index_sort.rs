//! Indexing, sorting, searching and counting against NumPy:
//! `tests/golden/make_index_sort.py` computes each row's dtype, shape and
//! values with NumPy and writes `tests/golden/index_sort/table.json`
//! (committed, so this test needs no Python). Every row runs on both CPU
//! executors (fused and reference); rows with `error` expect that code from
//! both the checker-and-run path and the plain run.

use arr::Session;
use arr::backend::cpu::CpuBackend;
use std::collections::BTreeMap;
use std::rc::Rc;

mod common;
use common::golden;
use common::json::{Json, text};

fn table() -> Vec<BTreeMap<String, Json>> {
    golden::rows("index_sort/table.json")
}

fn run_table(make: fn() -> Session, executor: &str) {
    let rows = table();
    assert!(rows.len() >= 80, "only {} rows", rows.len());
    let mut failures = Vec::new();
    for row in &rows {
        if let Err(why) = golden::check_row(row, make()) {
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
