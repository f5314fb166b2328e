//! NumPy goldens for the shape, construction and linear-algebra builtins:
//! `tests/golden/make_shape_linalg.py` evaluates each case with NumPy and
//! writes `tests/golden/shape_linalg/cases.txt`; here each case's Arr
//! expression runs on both CPU executors (fused and reference) and must give
//! NumPy's shape, kind of dtype and values (floats within a relative 1e-5 of
//! the array's largest magnitude: Arr's default float is f32).

use arr::backend::cpu::{CpuBackend, CpuMode};
use arr::graph::data::HostData;
use std::rc::Rc;

struct Case {
    name: String,
    arr: String,
    kind: String,
    shape: Vec<usize>,
    values: Vec<String>,
}

fn cases() -> (String, Vec<Case>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/shape_linalg/cases.txt");
    let text = std::fs::read_to_string(path).expect("cases.txt");
    let mut prelude = String::new();
    let mut out: Vec<Case> = Vec::new();
    for line in text.lines() {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "prelude" => prelude = rest.replace(" ; ", "\n"),
            "case" => out.push(Case {
                name: rest.to_string(),
                arr: String::new(),
                kind: String::new(),
                shape: vec![],
                values: vec![],
            }),
            "arr" => out.last_mut().expect("a case").arr = rest.to_string(),
            "want" => {
                let c = out.last_mut().expect("a case");
                let (kind, shape) = rest.split_once(' ').expect("kind and shape");
                c.kind = kind.to_string();
                c.shape = if shape == "-" {
                    vec![]
                } else {
                    shape.split(',').map(|d| d.parse().expect("a size")).collect()
                };
            }
            "values" => out.last_mut().expect("a case").values = rest.split_whitespace().map(String::from).collect(),
            _ => {}
        }
    }
    (prelude, out)
}

fn check(case: &Case, got: &arr::session::HostArray) -> Result<(), String> {
    if got.shape != case.shape {
        return Err(format!("shape {:?}, NumPy {:?}", got.shape, case.shape));
    }
    let kind = match got.data {
        HostData::Bool(_) => "bool",
        HostData::I32(_) | HostData::I64(_) => "int",
        _ => "float",
    };
    if kind != case.kind {
        return Err(format!("{kind} result, NumPy gives {}", case.kind));
    }
    let want: Vec<f64> = case
        .values
        .iter()
        .map(|v| match v.as_str() {
            "true" => 1.0,
            "false" => 0.0,
            x => x.parse().expect("a number"),
        })
        .collect();
    let got = got.to_f64_vec();
    if got.len() != want.len() {
        return Err(format!("{} values, NumPy {}", got.len(), want.len()));
    }
    let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        let ok = if kind == "float" {
            (g - w).abs() <= 1e-5 * scale
        } else {
            g == w
        };
        if !ok {
            return Err(format!("element {k}: {g}, NumPy {w}"));
        }
    }
    Ok(())
}

fn run_all(mode: CpuMode) {
    let (prelude, cases) = cases();
    assert!(cases.len() > 50, "the golden file has its cases");
    let mut failures = Vec::new();
    for case in &cases {
        let mut session = arr::Session::with_backend(Rc::new(CpuBackend::with_mode(mode)));
        let source = format!("{prelude}\nlet result__ = {}\n", case.arr);
        if let Err(d) = session.eval(&source) {
            failures.push(format!("{}: {}\n{}", case.name, case.arr, session.render(&d, false)));
            continue;
        }
        match session.get("result__") {
            Ok(got) => {
                if let Err(e) = check(case, &got) {
                    failures.push(format!("{}: {}: {e}", case.name, case.arr));
                }
            }
            Err(d) => failures.push(format!("{}: {}", case.name, d.message)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from NumPy:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn shape_and_linalg_match_numpy_on_the_fused_executor() {
    run_all(CpuMode::Fused);
}

#[test]
fn shape_and_linalg_match_numpy_on_the_reference_executor() {
    run_all(CpuMode::Reference);
}
