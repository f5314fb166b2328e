//! f-strings (`f"x = {x:.3f}"`): the lexer keeps an f-string's text whole;
//! here it is split into literal text and `{expression:spec}` parts, each
//! expression parsed on its own with spans in the program's numbering.

use super::ast::{FPart, StmtKind};
use super::build::MAX_DEPTH;
use crate::diag::Diagnostic;

fn bad(message: impl Into<String>, at: std::ops::Range<usize>) -> Diagnostic {
    Diagnostic::new("E0008", message, at)
        .with_hint("an f-string holds text and `{expression}` or `{expression:spec}`; write `{{` and `}}` for braces")
}

/// The parts of an f-string whose text (between the quotes) is `raw` and
/// starts at `start`, and a bound on the depth of their expressions.
pub fn parts(raw: &str, start: usize) -> Result<(Vec<FPart>, u32), Diagnostic> {
    let bytes = raw.as_bytes();
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut text_start = 0;
    let mut depth = 1;
    let mut i = 0;
    let flush = |text: &mut String, at: usize, parts: &mut Vec<FPart>| -> Result<(), Diagnostic> {
        if !text.is_empty() {
            let mut diags = Vec::new();
            let decoded = super::token::string_value(&format!("\"{text}\""), start + at - 1, &mut diags);
            if let Some(d) = diags.into_iter().next() {
                return Err(d);
            }
            parts.push(FPart::Text(decoded));
            text.clear();
        }
        Ok(())
    };
    while i < bytes.len() {
        match bytes[i] {
            b'{' if bytes.get(i + 1) == Some(&b'{') => {
                text.push('{');
                i += 2;
            }
            b'}' if bytes.get(i + 1) == Some(&b'}') => {
                text.push('}');
                i += 2;
            }
            b'}' => return Err(bad("a single `}` in an f-string", start + i..start + i + 1)),
            b'{' => {
                flush(&mut text, text_start, &mut parts)?;
                let open = i;
                // the expression ends at a `:`, `!` conversion or `}` outside brackets
                let mut nest = 0usize;
                let mut j = i + 1;
                let mut expr_end = None;
                while j < bytes.len() {
                    match bytes[j] {
                        b'(' | b'[' | b'{' => nest += 1,
                        b')' | b']' | b'}' if nest > 0 => nest -= 1,
                        b'}' => break,
                        b':' if nest == 0 && expr_end.is_none() => expr_end = Some(j),
                        b'!' if nest == 0
                            && expr_end.is_none()
                            && matches!(bytes.get(j + 1), Some(b'r' | b's' | b'a'))
                            && matches!(bytes.get(j + 2), Some(b':' | b'}')) =>
                        {
                            expr_end = Some(j);
                        }
                        _ => {}
                    }
                    j += 1;
                }
                if j >= bytes.len() {
                    return Err(bad(
                        "an f-string `{` with no closing `}`",
                        start + open..start + raw.len(),
                    ));
                }
                let end = expr_end.unwrap_or(j);
                let spec = match raw[end..j].find(':') {
                    Some(c) => raw[end + c + 1..j].to_string(),
                    None => String::new(),
                };
                if spec.contains('{') {
                    return Err(bad(
                        "nested `{}` in a format spec are not supported",
                        start + end..start + j,
                    ));
                }
                let mut src = &raw[open + 1..end];
                // `{x=}` (and `{x = :.3f}`), Python's self-documenting form: the text up to and
                // including `=` (its spaces kept), then the value; `==`, `!=`, `<=`, `>=` compare
                let trimmed = src.trim_end();
                if let Some(before) = trimmed.strip_suffix('=')
                    && !before.ends_with(['=', '!', '<', '>'])
                    && !before.trim().is_empty()
                {
                    parts.push(FPart::Text(src.to_string()));
                    src = before;
                }
                if src.trim().is_empty() {
                    return Err(bad("an empty expression in an f-string", start + open..start + j + 1));
                }
                let program = super::parse_program(src, start + open + 1).map_err(|mut ds| ds.remove(0))?;
                let expr = match <[_; 1]>::try_from(program.stmts) {
                    Ok([stmt]) => match stmt.kind {
                        StmtKind::Expr(e) => e,
                        _ => return Err(bad("an f-string holds expressions, not statements", stmt.span)),
                    },
                    Err(_) => {
                        return Err(bad(
                            "one expression per `{}` in an f-string",
                            start + open..start + j + 1,
                        ));
                    }
                };
                // no deeper than its parse allowed, and no deeper than it has operators and brackets
                let ops = src
                    .chars()
                    .filter(|c| !c.is_alphanumeric() && *c != '_' && *c != '.')
                    .count()
                    + src.split_whitespace().count();
                depth = depth.max((ops as u32).min(MAX_DEPTH) + 1);
                parts.push(FPart::Value { expr, spec });
                i = j + 1;
                text_start = i;
            }
            _ => {
                let c = raw[i..].chars().next().unwrap_or(' ');
                if c == '\\' {
                    // an escape's second character is never a brace delimiter
                    text.push('\\');
                    i += 1;
                    if let Some(n) = raw[i..].chars().next() {
                        text.push(n);
                        i += n.len_utf8();
                    }
                    continue;
                }
                text.push(c);
                i += c.len_utf8();
            }
        }
        if text.is_empty() {
            text_start = i;
        }
    }
    flush(&mut text, text_start, &mut parts)?;
    Ok((parts, depth))
}
