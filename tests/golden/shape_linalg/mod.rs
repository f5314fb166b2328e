//! The NumPy goldens of `tests/golden/shape_linalg/cases.txt` (made by
//! `tests/golden/make_shape_linalg.py`): reading them and checking one
//! session's results, shared by `tests/shape_linalg.rs` (both CPU executors)
//! and `tests/gpu.rs` (CUDA).

use arr::graph::data::HostData;

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

fn check(case: &Case, got: &arr::HostArray) -> Result<(), String> {
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

/// Runs every case in a fresh session from `session` and fails listing the cases that differ.
pub fn run_all(session: &dyn Fn() -> arr::Session) {
    let (prelude, cases) = cases();
    assert!(cases.len() > 50, "the golden file has its cases");
    let mut failures = Vec::new();
    for case in &cases {
        let mut session = session();
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
