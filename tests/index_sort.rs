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

/// The JSON the script writes: objects, arrays, strings, numbers.
#[derive(Debug, Clone)]
enum Json {
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(BTreeMap<String, Json>),
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.at < self.text.len() && self.text[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.skip_ws();
        if self.text.get(self.at) == Some(&c) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at byte {}", c as char, self.at))
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.skip_ws();
        match self.text.get(self.at) {
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                self.skip_ws();
                if self.text.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Ok(Json::Arr(items));
                }
                loop {
                    items.push(self.value()?);
                    self.skip_ws();
                    match self.text.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b']') => {
                            self.at += 1;
                            return Ok(Json::Arr(items));
                        }
                        _ => return Err(format!("bad array at byte {}", self.at)),
                    }
                }
            }
            Some(b'{') => {
                self.at += 1;
                let mut fields = BTreeMap::new();
                loop {
                    let Json::Str(key) = self.value()? else {
                        return Err(format!("bad key at byte {}", self.at));
                    };
                    self.eat(b':')?;
                    fields.insert(key, self.value()?);
                    self.skip_ws();
                    match self.text.get(self.at) {
                        Some(b',') => self.at += 1,
                        Some(b'}') => {
                            self.at += 1;
                            return Ok(Json::Obj(fields));
                        }
                        _ => return Err(format!("bad object at byte {}", self.at)),
                    }
                }
            }
            Some(b'"') => {
                self.at += 1;
                let mut out = String::new();
                loop {
                    let c = *self.text.get(self.at).ok_or("unterminated string")?;
                    self.at += 1;
                    match c {
                        b'"' => return Ok(Json::Str(out)),
                        b'\\' => {
                            let e = *self.text.get(self.at).ok_or("bad escape")?;
                            self.at += 1;
                            out.push(match e {
                                b'n' => '\n',
                                b't' => '\t',
                                b'"' => '"',
                                b'\\' => '\\',
                                b'/' => '/',
                                _ => return Err(format!("unsupported escape \\{}", e as char)),
                            });
                        }
                        _ => {
                            // Multi-byte UTF-8 passes through byte by byte.
                            let start = self.at - 1;
                            let mut end = self.at;
                            while end < self.text.len() && (self.text[end] & 0xC0) == 0x80 {
                                end += 1;
                            }
                            out.push_str(std::str::from_utf8(&self.text[start..end]).map_err(|e| e.to_string())?);
                            self.at = end;
                        }
                    }
                }
            }
            Some(_) => {
                let start = self.at;
                while self.at < self.text.len() && !b",]} \n".contains(&self.text[self.at]) {
                    self.at += 1;
                }
                let token = std::str::from_utf8(&self.text[start..self.at]).map_err(|e| e.to_string())?;
                token
                    .parse::<f64>()
                    .map(Json::Num)
                    .map_err(|e| format!("bad number {token:?}: {e}"))
            }
            None => Err("unexpected end".to_string()),
        }
    }
}

fn field<'a>(row: &'a BTreeMap<String, Json>, key: &str) -> Option<&'a Json> {
    row.get(key)
}

fn text(row: &BTreeMap<String, Json>, key: &str) -> Option<String> {
    match field(row, key) {
        Some(Json::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

/// A number as the script writes it: a JSON number, or "nan" / "inf" / "-inf".
fn number(j: &Json) -> f64 {
    match j {
        Json::Num(v) => *v,
        Json::Str(s) if s == "nan" => f64::NAN,
        Json::Str(s) if s == "inf" => f64::INFINITY,
        Json::Str(s) if s == "-inf" => f64::NEG_INFINITY,
        other => panic!("not a number: {other:?}"),
    }
}

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
