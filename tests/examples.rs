//! Runs every program in `examples/` on the CPU backend and checks what it prints: every number
//! against an independent NumPy computation of the same thing (`tests/golden/NAME.json`, written
//! by `tests/golden/make_goldens.py`), and the whole text against an insta snapshot.

mod common;
use common::Captured;

use std::collections::BTreeSet;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `examples/NAME.arr` in a fresh CPU session and returns everything it printed.
fn run_example(name: &str) -> String {
    let path = root().join("examples").join(format!("{name}.arr"));
    let out = Captured::default();
    {
        let mut session = arr::Session::cpu();
        session.set_output(Box::new(out.clone()));
        if let Err(diags) = session.run_file(&path) {
            panic!("examples/{name}.arr failed:\n{}", session.render(&diags, false));
        }
        // The session and its sink end here, so anything it buffered has been written.
    }
    out.text()
}

/// One token of printed output as a number, if it is one: decimal and scientific floats and
/// ints (NumPy's `1.` and `-2.5e-05` included), `true`/`false` as 1/0, `nan`, `inf`, `-inf`.
/// Words (labels, dtype names) are not numbers.
fn number_token(token: &str) -> Option<f64> {
    match token.to_ascii_lowercase().as_str() {
        "true" => return Some(1.0),
        "false" => return Some(0.0),
        "nan" | "-nan" | "+nan" => return Some(f64::NAN),
        "inf" | "+inf" | "infinity" => return Some(f64::INFINITY),
        "-inf" | "-infinity" => return Some(f64::NEG_INFINITY),
        _ => {}
    }
    // Rust's float parser also takes words such as "infinity"; only tokens that look like
    // numbers get this far.
    let body = token.strip_prefix(['-', '+']).unwrap_or(token);
    let body = body.strip_prefix('.').unwrap_or(body);
    if !body.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    token.parse::<f64>().ok()
}

/// Every number in printed text, in order; arrays and tuples contribute their elements.
fn numbers_in(text: &str) -> Vec<f64> {
    text.split(|c: char| c.is_whitespace() || matches!(c, '[' | ']' | '(' | ')' | ',' | ';'))
        .filter_map(number_token)
        .collect()
}

/// The contents of `tests/golden/NAME.json`.
#[derive(Debug)]
struct Golden {
    values: Vec<f64>,
    rtol: f64,
    atol: f64,
}

/// A JSON number as Python's `json` module writes it (which includes NaN and +-Infinity).
fn json_number(text: &str) -> Result<f64, String> {
    let text = text.trim();
    match text {
        "NaN" => Ok(f64::NAN),
        "Infinity" => Ok(f64::INFINITY),
        "-Infinity" => Ok(f64::NEG_INFINITY),
        _ => text.parse::<f64>().map_err(|e| format!("bad number {text:?}: {e}")),
    }
}

/// The text after `"key":` in a flat JSON object.
fn after_key<'a>(json: &'a str, key: &str) -> Result<&'a str, String> {
    let quoted = format!("\"{key}\"");
    let start = json.find(&quoted).ok_or(format!("no {quoted}"))? + quoted.len();
    let rest = json[start..].trim_start();
    rest.strip_prefix(':').ok_or(format!("no ':' after {quoted}"))
}

/// Reads `{"values": [numbers], "rtol": r, "atol": a}`; the files are written by
/// make_goldens.py, so this small reader is all the JSON the tests need.
fn parse_golden(json: &str) -> Result<Golden, String> {
    let values = after_key(json, "values")?.trim_start();
    let values = values.strip_prefix('[').ok_or("\"values\" is not a list")?;
    let end = values.find(']').ok_or("unterminated \"values\" list")?;
    let values = values[..end]
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(json_number)
        .collect::<Result<Vec<f64>, String>>()?;
    let scalar = |key: &str| -> Result<f64, String> {
        let rest = after_key(json, key)?;
        let end = rest.find([',', '}']).ok_or(format!("unterminated \"{key}\""))?;
        json_number(&rest[..end])
    };
    Ok(Golden {
        values,
        rtol: scalar("rtol")?,
        atol: scalar("atol")?,
    })
}

fn load_golden(name: &str) -> Golden {
    let path = root().join("tests").join("golden").join(format!("{name}.json"));
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse_golden(&json).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// NumPy's `isclose`: |got - expected| <= atol + rtol * |expected|; NaN matches only NaN and an
/// infinity only itself.
fn close(got: f64, expected: f64, rtol: f64, atol: f64) -> bool {
    if expected.is_nan() {
        return got.is_nan();
    }
    if expected.is_infinite() {
        return got == expected;
    }
    (got - expected).abs() <= atol + rtol * expected.abs()
}

/// Panics with every mismatch and the whole output when the numbers printed differ from golden.
fn check_numbers(name: &str, output: &str, golden: &Golden) {
    let got = numbers_in(output);
    let mut problems = Vec::new();
    if got.len() != golden.values.len() {
        problems.push(format!(
            "printed {} numbers, the golden file has {}",
            got.len(),
            golden.values.len()
        ));
    }
    for (i, (&g, &e)) in got.iter().zip(&golden.values).enumerate() {
        if !close(g, e, golden.rtol, golden.atol) {
            let tol = golden.atol + golden.rtol * e.abs();
            problems.push(format!(
                "number #{i}: printed {g}, expected {e} (|diff| {:e} > {tol:e})",
                (g - e).abs()
            ));
        }
    }
    if !problems.is_empty() {
        panic!(
            "examples/{name}.arr does not match tests/golden/{name}.json (rtol {}, atol {}):\n  {}\n\
             numbers printed: {got:?}\nnumbers expected: {:?}\n--- output ---\n{output}",
            golden.rtol,
            golden.atol,
            problems.join("\n  "),
            golden.values,
        );
    }
}

macro_rules! example_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let output = run_example(stringify!($name));
                check_numbers(stringify!($name), &output, &load_golden(stringify!($name)));
                insta::assert_snapshot!(concat!("example_", stringify!($name)), output);
            }
        )*

        /// The examples that have a test above.
        const EXAMPLES: &[&str] = &[$(stringify!($name)),*];
    };
}

example_tests!(
    heat,
    leibniz_pi,
    monte_carlo_pi,
    nbody,
    shallow_water,
    black_scholes,
    game_of_life,
    softmax,
    lu,
    lbm,
);

/// Names of the files in `dir` that end in `.ext`, without the extension.
fn stems(dir: &str, ext: &str) -> BTreeSet<String> {
    let dir = root().join(dir);
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    entries
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            (path.extension()? == ext).then(|| path.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect()
}

#[test]
fn every_example_has_a_test_and_a_golden_file() {
    let tested: BTreeSet<String> = EXAMPLES.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        stems("examples", "arr"),
        tested,
        "examples/*.arr vs the tests in tests/examples.rs"
    );
    assert_eq!(
        stems("tests/golden", "json"),
        tested,
        "tests/golden/*.json vs the tests in tests/examples.rs"
    );
}

#[test]
fn golden_files_are_well_formed() {
    for name in EXAMPLES {
        let golden = load_golden(name);
        assert!(!golden.values.is_empty(), "{name}: no values");
        assert!(golden.rtol >= 0.0 && golden.atol >= 0.0, "{name}: negative tolerance");
        assert!(
            golden.rtol < 1e-2,
            "{name}: rtol {} is too loose to test anything",
            golden.rtol
        );
    }
}

#[test]
fn numbers_are_found_in_numpy_style_output() {
    let text = "sweeps: 558\nmean: 24.94273340019366\n[1.         0.99999994 -2.5e-05]\n\
                [[1 2]\n [3 4]]\n(true, false) nan -inf inf 1e+30 .5 +3";
    let expected = [
        558.0,
        24.94273340019366,
        1.0,
        0.99999994,
        -2.5e-05,
        1.0,
        2.0,
        3.0,
        4.0,
        1.0,
        0.0,
        f64::NAN,
        f64::NEG_INFINITY,
        f64::INFINITY,
        1e30,
        0.5,
        3.0,
    ];
    let got = numbers_in(text);
    assert_eq!(got.len(), expected.len(), "{got:?}");
    for (g, e) in got.iter().zip(expected) {
        assert!(close(*g, e, 0.0, 0.0), "{got:?}");
    }
}

#[test]
fn labels_are_not_numbers() {
    let text = "pi is about 2.5 - f32 e E infinity? x1 centre_of_mass: -";
    assert_eq!(numbers_in(text), vec![2.5]);
}

#[test]
fn golden_reader_reads_what_python_writes() {
    let json = "{\n \"values\": [\n  558,\n  0.9983467268228002,\n  NaN,\n  -Infinity,\n  1e-06\n ],\n \
                \"rtol\": 1e-09,\n \"atol\": 0.0\n}\n";
    let golden = parse_golden(json).expect("parses");
    assert_eq!(golden.values.len(), 5);
    assert_eq!(golden.values[0], 558.0);
    assert_eq!(golden.values[1], 0.9983467268228002);
    assert!(golden.values[2].is_nan());
    assert_eq!(golden.values[3], f64::NEG_INFINITY);
    assert_eq!(golden.values[4], 1e-6);
    assert_eq!((golden.rtol, golden.atol), (1e-9, 0.0));
    assert!(parse_golden("{\"values\": [1, x], \"rtol\": 0, \"atol\": 0}").is_err());
    assert!(parse_golden("{\"values\": [1], \"atol\": 0}").is_err());
}

#[test]
fn closeness_is_numpy_isclose() {
    assert!(close(100.0, 100.0, 0.0, 0.0));
    assert!(!close(100.5, 100.0, 0.0, 0.0));
    assert!(close(100.0 + 1e-3, 100.0, 1e-4, 0.0));
    assert!(!close(100.0 + 2e-2, 100.0, 1e-4, 0.0));
    assert!(close(1e-7, 0.0, 1e-4, 1e-6));
    assert!(!close(f64::NAN, 1.0, 1.0, 1.0));
    assert!(close(f64::NAN, f64::NAN, 0.0, 0.0));
    assert!(!close(1.0, f64::INFINITY, 1.0, 1.0));
}

#[test]
fn number_check_accepts_the_golden_values_and_rejects_a_change() {
    let golden = load_golden("heat");
    let printed = |values: &[f64]| values.iter().map(|v| format!("value: {v:?}\n")).collect::<String>();
    check_numbers("heat", &printed(&golden.values), &golden);

    let mut changed = golden.values.clone();
    changed[1] *= 1.0 + 1e-6;
    let wrong = printed(&changed);
    let short = printed(&golden.values[1..]);
    for bad in [wrong, short] {
        let result = std::panic::catch_unwind(|| check_numbers("heat", &bad, &golden));
        assert!(result.is_err(), "accepted {bad:?}");
    }
}

/// The goldens against facts known without NumPy, so a broken golden script is caught too.
#[test]
fn goldens_agree_with_known_facts() {
    let pi = std::f64::consts::PI;
    let leibniz = load_golden("leibniz_pi").values;
    // The Leibniz partial sum with n terms falls short of pi by about 1/n.
    assert!(
        (pi - leibniz[0] - 1e-6).abs() < 1e-12 && (leibniz[1] - 1e-6).abs() < 1e-12,
        "{leibniz:?}"
    );

    let mc = load_golden("monte_carlo_pi").values;
    assert_eq!(mc[2], 4.0 * mc[0] / mc[1]);
    assert!((mc[2] - pi).abs() < 0.02 && mc[0].fract() == 0.0, "{mc:?}");

    let heat = load_golden("heat").values;
    assert!(
        (heat[3] - heat[2] / (24.0 * 24.0)).abs() < 1e-9 && heat[1] <= 1.0,
        "{heat:?}"
    );

    let bs = load_golden("black_scholes").values;
    assert!(bs[0] > 0.0 && bs[1] > 0.0 && bs[4].abs() < 1e-9, "{bs:?}");

    let life = load_golden("game_of_life").values;
    // Generation 0: the glider's 5 cells plus a soup of about 35% of 256 cells.
    assert!(
        life[0] == 0.0 && (5.0 + 60.0..5.0 + 120.0).contains(&life[1]),
        "{life:?}"
    );
    assert!(life.iter().all(|v| v.fract() == 0.0 && *v >= 0.0), "{life:?}");

    let soft = load_golden("softmax").values;
    assert!(soft[..8].iter().all(|s| (s - 1.0).abs() < 1e-6), "row sums {soft:?}");
    // Entropy of a distribution over 16 outcomes lies in [0, ln 16].
    assert!(
        soft[21..].iter().all(|h| (0.0..=16f64.ln()).contains(h)),
        "entropies {soft:?}"
    );

    let water = load_golden("shallow_water").values;
    // The scheme conserves the water in the tank up to rounding.
    assert!(
        (water[0] - water[2]).abs() < 1e-3 * water[0] && water[1] == 1.5,
        "{water:?}"
    );
}
