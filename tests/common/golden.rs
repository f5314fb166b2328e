//! The golden tables the scripts in tests/golden write (one JSON list of
//! rows: `src`, and either `error` or NumPy's `dtype`, `shape` and `values`
//! of the variable `r`), and how a session's result is held against a row.

use super::json::{Json, Parser, field, number, text};
use arr::Session;
use std::collections::BTreeMap;
use std::path::Path;

/// The rows of `tests/golden/<file>`.
pub fn rows(file: &str) -> Vec<BTreeMap<String, Json>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(file);
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    rows_of_text(&json, &path)
}

/// The rows of a table's text (for a test binary that carries its table,
/// as the GPU suite does: it runs where the source tree is not).
pub fn rows_of_text(json: &str, path: &Path) -> Vec<BTreeMap<String, Json>> {
    let mut parser = Parser {
        text: json.as_bytes(),
        at: 0,
    };
    let Json::Arr(rows) = parser
        .value()
        .unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()))
    else {
        panic!("{} is not a list", path.display())
    };
    rows.into_iter()
        .map(|r| match r {
            Json::Obj(o) => o,
            other => panic!("a row is not an object: {other:?}"),
        })
        .collect()
}

/// Equal as NumPy's `allclose` with the dtype's precision, NaN equal to NaN,
/// infinities exactly. The half floats allow one unit in the last place
/// (f16: 2^-10, bf16: 2^-7): a function computed in f32 may round to either
/// neighbour when libm's f32 result differs in its last bit.
pub fn close(got: f64, want: f64, dtype: &str) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    // (relative tolerance, absolute one: the half floats' smallest subnormal)
    let (rtol, atol) = match dtype {
        "f16" => (1.0 / 1024.0, 6e-8),
        "bf16" => (1.0 / 128.0, 1e-40),
        "f32" => (1e-6, 1e-6),
        _ => (1e-12, 1e-12),
    };
    (got - want).abs() <= rtol * want.abs() + atol
}

/// Runs one row on `session`; `Err` says how it differs from the table.
pub fn check_row(row: &BTreeMap<String, Json>, mut session: Session) -> Result<(), String> {
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
