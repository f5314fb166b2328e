//! A small reader of the JSON the golden scripts in tests/golden write
//! (objects, arrays, strings, numbers; "nan"/"inf" as strings), so the
//! golden tests need no Python and no JSON crate.

use std::collections::BTreeMap;

/// The JSON the script writes: objects, arrays, strings, numbers.
#[derive(Debug, Clone)]
pub enum Json {
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(BTreeMap<String, Json>),
}

pub struct Parser<'a> {
    pub text: &'a [u8],
    pub at: usize,
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

    pub fn value(&mut self) -> Result<Json, String> {
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

pub fn field<'a>(row: &'a BTreeMap<String, Json>, key: &str) -> Option<&'a Json> {
    row.get(key)
}

pub fn text(row: &BTreeMap<String, Json>, key: &str) -> Option<String> {
    match field(row, key) {
        Some(Json::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

/// A number as the script writes it: a JSON number, or "nan" / "inf" / "-inf".
pub fn number(j: &Json) -> f64 {
    match j {
        Json::Num(v) => *v,
        Json::Str(s) if s == "nan" => f64::NAN,
        Json::Str(s) if s == "inf" => f64::INFINITY,
        Json::Str(s) if s == "-inf" => f64::NEG_INFINITY,
        other => panic!("not a number: {other:?}"),
    }
}
