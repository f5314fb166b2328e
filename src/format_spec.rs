//! Python's format-spec mini-language for f-strings (`{x:>8.3f}`):
//! `[[fill]align][sign][#][0][width][,|_][.precision][type]` with the types
//! d, f, F, e, E, g, G, %, s, x, X, o, b and none, for one scalar or string.

/// A scalar to format.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

#[derive(Clone, Copy, Debug, Default)]
struct Spec {
    fill: Option<char>,
    align: Option<char>,
    sign: Option<char>,
    alternate: bool,
    zero: bool,
    width: usize,
    grouping: Option<char>,
    precision: Option<usize>,
    ty: Option<char>,
}

fn parse(spec: &str) -> Result<Spec, String> {
    let c: Vec<char> = spec.chars().collect();
    let mut s = Spec::default();
    let mut i = 0;
    if c.len() >= 2 && "<>^=".contains(c[1]) {
        s.fill = Some(c[0]);
        s.align = Some(c[1]);
        i = 2;
    } else if !c.is_empty() && "<>^=".contains(c[0]) {
        s.align = Some(c[0]);
        i = 1;
    }
    if i < c.len() && "+- ".contains(c[i]) {
        s.sign = Some(c[i]);
        i += 1;
    }
    if i < c.len() && c[i] == '#' {
        s.alternate = true;
        i += 1;
    }
    if i < c.len() && c[i] == '0' {
        s.zero = true;
        i += 1;
    }
    let digits = |i: &mut usize| -> Result<Option<usize>, String> {
        let start = *i;
        while *i < c.len() && c[*i].is_ascii_digit() {
            *i += 1;
        }
        if *i == start {
            return Ok(None);
        }
        let n: String = c[start..*i].iter().collect();
        n.parse::<usize>()
            .ok()
            .filter(|&n| n <= 10_000)
            .map(Some)
            .ok_or_else(|| format!("the number {n} in format spec '{spec}' is too large"))
    };
    s.width = digits(&mut i)?.unwrap_or(0);
    if i < c.len() && (c[i] == ',' || c[i] == '_') {
        s.grouping = Some(c[i]);
        i += 1;
    }
    if i < c.len() && c[i] == '.' {
        i += 1;
        s.precision = Some(digits(&mut i)?.ok_or_else(|| format!("format spec '{spec}' has no precision after '.'"))?);
    }
    if i < c.len() && "dfFeEgGsxXobc%n".contains(c[i]) {
        s.ty = Some(c[i]);
        i += 1;
    }
    if i != c.len() {
        return Err(format!("invalid format spec '{spec}'"));
    }
    Ok(s)
}

/// `body` (no sign) padded to the spec's width; numbers align right by default.
fn pad(sign: &str, body: &str, s: &Spec, numeric: bool) -> String {
    let len = sign.chars().count() + body.chars().count();
    let zero_fill = s.zero && s.fill.is_none() && s.align.is_none();
    let fill = if zero_fill { '0' } else { s.fill.unwrap_or(' ') };
    let align = s.align.unwrap_or(if zero_fill {
        '='
    } else if numeric {
        '>'
    } else {
        '<'
    });
    let gap = s.width.saturating_sub(len);
    let run = |n: usize| fill.to_string().repeat(n);
    match align {
        '<' => format!("{sign}{body}{}", run(gap)),
        '^' => format!("{}{sign}{body}{}", run(gap / 2), run(gap - gap / 2)),
        '=' => format!("{sign}{}{body}", run(gap)),
        _ => format!("{}{sign}{body}", run(gap)),
    }
}

/// Separators every three digits of the integer part of `body`.
fn group(body: &str, sep: Option<char>) -> String {
    let Some(sep) = sep else {
        return body.to_string();
    };
    let end = body.find(|c: char| !c.is_ascii_digit()).unwrap_or(body.len());
    let (int, rest) = body.split_at(end);
    let mut out = String::new();
    for (k, ch) in int.chars().enumerate() {
        if k > 0 && (int.len() - k) % 3 == 0 {
            out.push(sep);
        }
        out.push(ch);
    }
    out + rest
}

/// `m.dddde+XX` as Python writes it (Rust writes `m.dddde2`).
fn exp_form(x: f64, precision: usize, alternate: bool) -> String {
    let s = format!("{:.*e}", precision, x);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mant = if alternate && precision == 0 {
        format!("{mant}.")
    } else {
        mant.to_string()
    };
    format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

fn strip_zeros(s: &str) -> String {
    if !s.contains('.') {
        return s.to_string();
    }
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Python's 'g' of a finite non-negative x.
fn general(x: f64, precision: usize, alternate: bool) -> String {
    let p = precision.max(1);
    let exp = if x == 0.0 {
        0
    } else {
        let s = format!("{:.*e}", p - 1, x);
        s.split_once('e').and_then(|(_, e)| e.parse::<i32>().ok()).unwrap_or(0)
    };
    if -4 <= exp && exp < p as i32 {
        let fixed = format!("{:.*}", (p as i32 - 1 - exp).max(0) as usize, x);
        if alternate { fixed } else { strip_zeros(&fixed) }
    } else {
        let e = exp_form(x, p - 1, alternate);
        if alternate {
            return e;
        }
        let (mant, rest) = e.split_once('e').unwrap_or((&e, ""));
        format!("{}e{rest}", strip_zeros(mant))
    }
}

/// Formats a float by a parsed spec with a numeric type (or none with a precision).
fn float(x: f64, s: &Spec) -> String {
    let negative = x.is_sign_negative() && !x.is_nan();
    let sign = match (negative, s.sign) {
        (true, _) => "-",
        (false, Some('+')) => "+",
        (false, Some(' ')) => " ",
        _ => "",
    };
    let a = x.abs();
    let upper = matches!(s.ty, Some('F' | 'E' | 'G'));
    let body = if !a.is_finite() {
        let t = if a.is_nan() { "nan" } else { "inf" };
        let t = if upper { t.to_uppercase() } else { t.to_string() };
        t + if s.ty == Some('%') { "%" } else { "" }
    } else {
        match s.ty {
            Some('f' | 'F') => group(&format!("{:.*}", s.precision.unwrap_or(6), a), s.grouping),
            Some('e' | 'E') => exp_form(a, s.precision.unwrap_or(6), s.alternate),
            Some('%') => group(&format!("{:.*}", s.precision.unwrap_or(6), a * 100.0), s.grouping) + "%",
            _ => group(&general(a, s.precision.unwrap_or(6), s.alternate), s.grouping),
        }
    };
    let body = if upper { body.to_uppercase() } else { body };
    let s2 = Spec {
        zero: s.zero && a.is_finite(),
        ..*s
    };
    pad(sign, &body, &s2, true)
}

/// Formats one scalar by a format spec; `plain` is how `print` shows it (used
/// for an empty type, as Python's `str`). Errors are messages for E0008-like
/// diagnostics.
pub fn format_scalar(x: Scalar, spec: &str, plain: &str) -> Result<String, String> {
    let s = parse(spec)?;
    match (x, s.ty) {
        (_, Some('s')) | (Scalar::Bool(_), None) => format_text(plain, spec),
        (Scalar::Float(_), None) if s.precision.is_none() => {
            // print's spelling of the value, signed and padded by the spec
            let (sign, body) = match plain.strip_prefix('-') {
                Some(rest) => ("-", rest),
                None => (
                    match s.sign {
                        Some('+') => "+",
                        Some(' ') => " ",
                        _ => "",
                    },
                    plain,
                ),
            };
            Ok(pad(sign, &group(body, s.grouping), &s, true))
        }
        // Python's ValueError "Unknown format code 'd' for object of type 'float'",
        // the value as print spells it (5.0, not 5: that it is a float is the point)
        (Scalar::Float(_), Some(c @ ('d' | 'x' | 'X' | 'o' | 'b' | 'c' | 'n'))) => Err(format!(
            "unknown format code '{c}' for the float {plain}: '{c}' formats integers"
        )),
        (Scalar::Float(f), _) => Ok(float(f, &s)),
        (Scalar::Int(i), Some('f' | 'F' | 'e' | 'E' | 'g' | 'G' | '%')) => Ok(float(i as f64, &s)),
        (Scalar::Bool(b), Some('f' | 'F' | 'e' | 'E' | 'g' | 'G' | '%')) => Ok(float(b as i64 as f64, &s)),
        (Scalar::Int(_) | Scalar::Bool(_), Some(_)) | (Scalar::Int(_), None) => {
            let i = match x {
                Scalar::Int(i) => i,
                Scalar::Bool(b) => b as i64,
                Scalar::Float(_) => 0,
            };
            if s.precision.is_some() {
                return Err(format!("precision is not allowed in an integer format spec '{spec}'"));
            }
            let sign = match (i < 0, s.sign) {
                (true, _) => "-",
                (false, Some('+')) => "+",
                (false, Some(' ')) => " ",
                _ => "",
            };
            let a = i.unsigned_abs();
            if s.ty == Some('c') {
                // the character with code point i, as Python's
                if s.sign.is_some() || s.alternate {
                    return Err(format!(
                        "a sign or '#' is not allowed with the character format 'c' ('{spec}')"
                    ));
                }
                let ch = u32::try_from(i)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| format!("{i} is not a character's code point (0 to 0x10ffff) for format 'c'"))?;
                return Ok(pad("", &ch.to_string(), &s, true));
            }
            let body = match s.ty {
                Some('x') => format!("{}{a:x}", if s.alternate { "0x" } else { "" }),
                Some('X') => format!("{}{a:X}", if s.alternate { "0X" } else { "" }),
                Some('o') => format!("{}{a:o}", if s.alternate { "0o" } else { "" }),
                Some('b') => format!("{}{a:b}", if s.alternate { "0b" } else { "" }),
                _ => group(&a.to_string(), s.grouping),
            };
            Ok(pad(sign, &body, &s, true))
        }
    }
}

/// Formats text by a format spec (type 's' or none; precision truncates).
pub fn format_text(text: &str, spec: &str) -> Result<String, String> {
    let s = parse(spec)?;
    if !matches!(s.ty, None | Some('s')) {
        return Err(format!(
            "format type '{}' is for numbers, not text",
            s.ty.unwrap_or('s')
        ));
    }
    let body: String = match s.precision {
        Some(p) => text.chars().take(p).collect(),
        None => text.to_string(),
    };
    Ok(pad("", &body, &s, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f64, spec: &str) -> String {
        format_scalar(Scalar::Float(x), spec, &x.to_string()).unwrap()
    }

    // Expected strings are Python 3's f"{x:spec}" (hand-checked against CPython).
    #[test]
    fn characters_match_python() {
        let c = |i: i64, spec: &str| format_scalar(Scalar::Int(i), spec, &i.to_string());
        assert_eq!(c(65, "c").as_deref(), Ok("A"));
        assert_eq!(c(0x263a, "c").as_deref(), Ok("\u{263a}"));
        assert_eq!(c(97, "5c").as_deref(), Ok("    a"));
        assert_eq!(c(97, "<3c").as_deref(), Ok("a  "));
        assert!(c(-1, "c").is_err());
        assert!(c(0x110000, "c").is_err());
        assert!(c(65, "+c").is_err());
        assert!(format_scalar(Scalar::Float(65.0), "c", "65.0").is_err());
    }

    #[test]
    fn floats_match_python() {
        assert_eq!(f(3.14158, ".3f"), "3.142");
        assert_eq!(f(3.14158, "8.2f"), "    3.14");
        assert_eq!(f(-3.14158, "<8.2f"), "-3.14   ");
        assert_eq!(f(3.14158, "^9.1f"), "   3.1   ");
        assert_eq!(f(3.14158, "+.2f"), "+3.14");
        assert_eq!(f(-2.5, "08.2f"), "-0002.50");
        assert_eq!(f(1234567.891, ",.2f"), "1,234,567.89");
        assert_eq!(f(12345.678, ".3e"), "1.235e+04");
        assert_eq!(f(0.000123, "E"), "1.230000E-04");
        assert_eq!(f(0.0001234, "g"), "0.0001234");
        assert_eq!(f(0.00001234, "g"), "1.234e-05");
        assert_eq!(f(123456789.0, "g"), "1.23457e+08");
        assert_eq!(f(100.0, ".3g"), "100");
        assert_eq!(f(2.0, "g"), "2");
        assert_eq!(f(0.25, ".1%"), "25.0%");
        assert_eq!(f(f64::NAN, ".2f"), "nan");
        assert_eq!(f(f64::NEG_INFINITY, "8.2f"), "    -inf");
        assert_eq!(f(2.5, "*>7.1f"), "****2.5");
        assert_eq!(f(1234.5, ","), "1,234.5");
        assert_eq!(f(-1234567.25, "_"), "-1_234_567.25");
    }

    #[test]
    fn ints_and_text_match_python() {
        let i = |x: i64, spec: &str| format_scalar(Scalar::Int(x), spec, &x.to_string()).unwrap();
        assert_eq!(i(42, "5d"), "   42");
        assert_eq!(i(42, "<5"), "42   ");
        assert_eq!(i(-42, "05d"), "-0042");
        assert_eq!(i(1234567, ","), "1,234,567");
        assert_eq!(i(255, "#x"), "0xff");
        assert_eq!(i(5, "b"), "101");
        assert_eq!(i(3, ".2f"), "3.00");
        assert_eq!(format_text("ab", ">4").unwrap(), "  ab");
        assert_eq!(format_text("abcdef", ".3").unwrap(), "abc");
        assert!(format_scalar(Scalar::Float(1.5), "d", "1.5").is_err());
        assert!(format_scalar(Scalar::Int(1), ".2d", "1").is_err());
        assert!(parse("abc").is_err());
    }
}
