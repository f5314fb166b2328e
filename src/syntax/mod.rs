//! Source text to AST: the logos lexer (`token`), a layout pass that turns
//! line breaks into statement separators (`layout`), and the lalrpop parser
//! (grammar/arr.lalrpop), with every failure turned into a `Diagnostic`.

pub mod ast;
mod build;
mod fstring;
pub mod layout;
pub mod token;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused)]
    grammar,
    "/arr.rs"
);

use crate::diag::Diagnostic;
use ast::{Program, Span};
use lalrpop_util::ParseError;
use token::Tok;

pub use build::MAX_DEPTH;

/// Parses a whole program. Spans are byte offsets into `source` plus `base`
/// (the session numbers all the sources it has seen in one space).
///
/// On failure, returns every lexer error and invalid assignment target found,
/// plus the first syntax error, in source order.
pub fn parse_program(source: &str, base: usize) -> Result<Program, Vec<Diagnostic>> {
    match parse(source, base) {
        Outcome {
            program: Some(program),
            diags,
            ..
        } if diags.is_empty() => Ok(program),
        Outcome { diags, .. } => Err(diags),
    }
}

/// True when `source` fails to parse only because it ended too early (an open
/// bracket or block, a trailing operator): the REPL then asks for another line.
pub fn is_incomplete(source: &str) -> bool {
    parse(source, 0).only_eof
}

struct Outcome {
    program: Option<Program>,
    diags: Vec<Diagnostic>,
    /// The only problem is that the input ended too early.
    only_eof: bool,
}

fn parse(source: &str, base: usize) -> Outcome {
    let (tokens, mut diags) = token::lex(source, base);
    let lexer_ok = diags.is_empty();
    let mut layout = layout::layout(tokens);
    let mut user_errors = Vec::new();
    let result =
        grammar::ProgramParser::new().parse(&mut user_errors, std::mem::take(&mut layout.tokens).into_iter().map(Ok));
    let no_other_errors = lexer_ok && user_errors.is_empty();
    diags.append(&mut user_errors);
    let (program, only_eof) = match result {
        Ok(program) => (Some(program), false),
        Err(err) => {
            let eof = matches!(err, ParseError::UnrecognizedEof { .. });
            let at = match &err {
                ParseError::UnrecognizedToken { token: (l, ..), .. } | ParseError::ExtraToken { token: (l, ..) } => *l,
                _ => source.len() + base,
            };
            // The messages that look at the tokens around the error (`1 < x < 3`)
            // lex again: the parser took the tokens, and a copy of them for this
            // rare case was a twentieth of every start-up.
            let tokens = layout::layout(token::lex(source, base).0).tokens;
            let diag = convert_error(err, source, base, &layout, &tokens);
            // An unterminated string swallows the rest of the line; the end of input that follows is no news.
            let after_open_string = eof && diags.iter().any(|d| d.code == "E0006");
            if !after_open_string && !follows_invalid_chars(at, &diags, &tokens) {
                diags.push(diag);
            }
            (None, eof && no_other_errors)
        }
    };
    diags.sort_by_key(|d| d.span.as_ref().map_or(0, |s| s.start));
    Outcome {
        program,
        diags,
        only_eof,
    }
}

/// Whether a syntax error is at the first token after skipped invalid
/// characters: it is then most likely caused by them (`a $ b` is not two
/// errors), and only the invalid characters are reported.
fn follows_invalid_chars(at: usize, lexer_diags: &[Diagnostic], tokens: &[token::Spanned]) -> bool {
    let before = tokens.partition_point(|&(_, _, end)| end <= at);
    let previous_end = if before == 0 { 0 } else { tokens[before - 1].2 };
    lexer_diags
        .iter()
        .any(|d| d.code == "E0003" && d.span.as_ref().is_some_and(|s| s.start >= previous_end && s.end <= at))
}

/// Python's `return`, which Arr does not have: the hint of the parser, and
/// of the checker for a `return` it reads as a name.
pub const RETURN_HINT: &str = "Arr has no `return`: a function's value is the value of its last expression \
     (`fn f(x) { if x > 0 { x } else { 0 } }`), and `if` is an expression";

fn convert_error(
    err: ParseError<usize, Tok, Diagnostic>,
    source: &str,
    base: usize,
    layout: &layout::Layout,
    tokens: &[token::Spanned],
) -> Diagnostic {
    let last_token = tokens.last().map(|(l, _, r)| *l..*r);
    match err {
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let found = describe_found(&tok, l..r, source, base);
            let mut diag = Diagnostic::new("E0001", format!("unexpected {found}"), l..r)
                .with_primary_label(format!("found {found}"));
            if let Some((_, met)) = layout.unmatched.iter().find(|(span, _)| *span == (l..r)) {
                diag = match met {
                    Some((opener, at)) => diag
                        .with_primary_label(format!(
                            "this `{}` does not match the `{}`",
                            tok.symbol(),
                            opener.symbol()
                        ))
                        .with_label(at.clone(), format!("this `{}` is still open", opener.symbol())),
                    None => diag.with_primary_label(format!("this `{}` closes nothing", tok.symbol())),
                };
            }
            let mut hint = expected_in_words(&expected);
            // After a complete operand (no name expected), a stray `=` is most
            // likely a comparison, as in `if x = 1 {`.
            if tok == Tok::Assign && !expected.iter().any(|e| e == "Ident") {
                hint = Some(match hint {
                    Some(h) => format!("{h} (use `==` to compare)"),
                    None => "use `==` to compare".to_string(),
                });
            }
            // `1j`, `2.5j`: a Python complex literal, a number followed at once by `j`
            let text_at = |a: usize, b: usize| source.get(a.saturating_sub(base)..b.saturating_sub(base));
            if matches!(text_at(l, r), Some("j" | "J"))
                && l > base
                && text_at(l - 1, l).is_some_and(|c| c.chars().all(|c| c.is_ascii_digit() || c == '.'))
            {
                hint = Some(
                    "Arr has no complex numbers: keep the real and imaginary parts as two arrays \
                     (`zr`, `zi`), as a port of complex NumPy code does"
                        .to_string(),
                );
            }
            // `return x`: a Python habit
            if let Some(k) = tokens.iter().position(|t| t.0 == l)
                && k > 0
                && matches!(&tokens[k - 1].1, Tok::Ident(name) if name == "return")
            {
                hint = Some(RETURN_HINT.to_string());
            }
            if let Some(chained) = chained_comparison(tokens, l, source, base) {
                diag = Diagnostic::new("E0001", "comparisons cannot be chained", l..r)
                    .with_primary_label(format!("a second {found}"))
                    .with_hint(chained);
                hint = None;
            }
            if let Some(hint) = hint {
                diag = diag.with_hint(hint);
            }
            diag
        }
        ParseError::ExtraToken { token: (l, tok, r) } => {
            let found = describe_found(&tok, l..r, source, base);
            Diagnostic::new("E0001", format!("unexpected {found}"), l..r).with_primary_label(format!("found {found}"))
        }
        ParseError::UnrecognizedEof { expected, .. } => {
            // The last token, not the empty span after it: that renders
            // clearly even when the input ends in blank lines or comments.
            let (span, label) = match last_token {
                Some(span) => (span, "the input ends after this"),
                None => (source.len() + base..source.len() + base, "the input ends here"),
            };
            let mut diag = Diagnostic::new("E0002", "unexpected end of input", span).with_primary_label(label);
            // Innermost first: that is the bracket the user most likely forgot.
            for (tok, span) in layout.unclosed.iter().rev().take(3) {
                diag = diag.with_label(span.clone(), format!("this `{}` is not closed", tok.symbol()));
            }
            if let Some(hint) = expected_in_words(&expected) {
                diag = diag.with_hint(hint);
            }
            diag
        }
        // The external lexer reports its problems as diagnostics, not here.
        ParseError::InvalidToken { location } => Diagnostic::new("E0003", "unrecognised token", location..location + 1),
        ParseError::User { error } => error,
    }
}

fn is_comparison(tok: &Tok) -> bool {
    matches!(tok, Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge | Tok::EqEq | Tok::Ne)
}

/// When the token at `at` is a comparison that follows another one in the
/// same operand (`1 < x < 3`), the hint that spells out the `and` form.
fn chained_comparison(tokens: &[token::Spanned], at: usize, source: &str, base: usize) -> Option<String> {
    let k = tokens.iter().position(|t| t.0 == at)?;
    if !is_comparison(&tokens[k].1) {
        return None;
    }
    // Tokens that end an operand on the left or the right at bracket depth 0.
    let ends = |t: &Tok| {
        matches!(
            t,
            Tok::Sep
                | Tok::Comma
                | Tok::And
                | Tok::Or
                | Tok::Not
                | Tok::Assign
                | Tok::If
                | Tok::While
                | Tok::Else
                | Tok::Colon
                | Tok::DotDot
                | Tok::LBrace
                | Tok::RBrace
                | Tok::PlusEq
                | Tok::MinusEq
                | Tok::StarEq
                | Tok::SlashEq
                | Tok::SlashSlashEq
                | Tok::PercentEq
                | Tok::StarStarEq
                | Tok::AmpEq
                | Tok::PipeEq
                | Tok::CaretEq
                | Tok::ShlEq
                | Tok::ShrEq
        )
    };
    let mut depth = 0i32;
    let mut first_op = None;
    let mut start = 0;
    for j in (0..k).rev() {
        match &tokens[j].1 {
            Tok::RParen | Tok::RBracket => depth += 1,
            Tok::LParen | Tok::LBracket if depth == 0 => {
                start = j + 1;
                break;
            }
            Tok::LParen | Tok::LBracket => depth -= 1,
            t if depth == 0 && ends(t) => {
                start = j + 1;
                break;
            }
            t if depth == 0 && is_comparison(t) && first_op.is_none() => first_op = Some(j),
            _ => {}
        }
    }
    let first = first_op?;
    depth = 0;
    let mut end = tokens.len();
    for (j, (_, t, _)) in tokens.iter().enumerate().skip(k + 1) {
        match t {
            Tok::LParen | Tok::LBracket => depth += 1,
            Tok::RParen | Tok::RBracket if depth == 0 => {
                end = j;
                break;
            }
            Tok::RParen | Tok::RBracket => depth -= 1,
            t if depth == 0 && (ends(t) || is_comparison(t)) => {
                end = j;
                break;
            }
            _ => {}
        }
    }
    let text = |from: usize, to: usize| -> Option<&str> {
        if from >= to {
            return None;
        }
        source.get(tokens[from].0.checked_sub(base)?..tokens[to - 1].2.checked_sub(base)?)
    };
    let op = |j: usize| text(j, j + 1);
    // `a > 0 & b < 1`, NumPy's mask idiom: `&` (`|`, `^`) binds tighter than a
    // comparison, as in Python, so the middle operand is `0 & b`
    let mut bit_op = None;
    depth = 0;
    for (j, (_, t, _)) in tokens.iter().enumerate().take(k).skip(first + 1) {
        match t {
            Tok::LParen | Tok::LBracket => depth += 1,
            Tok::RParen | Tok::RBracket => depth -= 1,
            Tok::Amp | Tok::Pipe | Tok::Caret if depth == 0 => bit_op = Some(j),
            _ => {}
        }
    }
    if let Some(j) = bit_op {
        let (left, right) = (text(start, j)?, text(j + 1, end)?);
        let sym = op(j)?;
        return Some(format!(
            "`{sym}` binds tighter than a comparison (as in Python): write `({left}) {sym} ({right})`"
        ));
    }
    let (a, b, c) = (text(start, first)?, text(first + 1, k)?, text(k + 1, end)?);
    Some(format!(
        "comparisons do not chain; write `{a} {} {b} and {b} {} {c}`",
        op(first)?,
        op(k)?
    ))
}

fn describe_found(tok: &Tok, span: Span, source: &str, base: usize) -> String {
    let text = source
        .get(span.start.saturating_sub(base)..span.end.saturating_sub(base))
        .unwrap_or("");
    match tok {
        Tok::Sep if text == ";" => "`;`".to_string(),
        Tok::Sep => "end of line".to_string(),
        Tok::Int(_) | Tok::Float(_) => format!("number `{text}`"),
        _ => tok.to_string(),
    }
}

/// Terminals that can begin an expression, as lalrpop names them.
const EXPR_START: &[&str] = &[
    "Int",
    "Float",
    "Str",
    "FStr",
    "Ident",
    "\"true\"",
    "\"false\"",
    "\"(\"",
    "\"[\"",
    "\"-\"",
    "\"~\"",
    "\"not\"",
    "\"if\"",
    "\"{\"",
];
/// Terminals that can begin a statement but not an expression.
const STMT_START: &[&str] = &["\"let\"", "\"fn\"", "\"for\"", "\"while\"", "\"break\"", "\"continue\""];
/// Terminals that can continue an expression.
const OPERATORS: &[&str] = &[
    "\"+\"", "\"-\"", "\"*\"", "\"/\"", "\"//\"", "\"%\"", "\"**\"", "\"@\"", "\"==\"", "\"!=\"", "\"<\"", "\"<=\"",
    "\">\"", "\">=\"", "\"and\"", "\"or\"", "\"as\"", "\"[\"", "\"&\"", "\"|\"", "\"^\"", "\"<<\"", "\">>\"",
];
const COMPOUND_ASSIGN: &[&str] = &[
    "\"+=\"", "\"-=\"", "\"*=\"", "\"/=\"", "\"//=\"", "\"%=\"", "\"**=\"", "\"&=\"", "\"|=\"", "\"^=\"", "\"<<=\"",
    "\">>=\"",
];

/// Turns lalrpop's list of expected terminals into a short phrase: whole
/// groups (anything that starts an expression, any operator) are named as
/// one item, so the user reads "an expression" rather than twelve tokens.
fn expected_in_words(expected: &[String]) -> Option<String> {
    let has = |name: &str| expected.iter().any(|e| e == name);
    let mut items: Vec<String> = Vec::new();
    let mut covered: Vec<&str> = Vec::new();
    let statement = has("\"let\"");
    // Dimensions in a type take numbers and names too, but not expressions.
    let expression = has("Int") && has("Ident") && has("\"(\"");
    if statement {
        items.push("a statement".to_string());
        covered.extend(STMT_START);
        covered.extend(EXPR_START);
    } else if expression {
        items.push("an expression".to_string());
        covered.extend(EXPR_START);
    }
    if has("\"+\"") && has("\"*\"") {
        items.push("an operator".to_string());
        covered.extend(OPERATORS);
    }
    if has("\"+=\"") {
        covered.extend(COMPOUND_ASSIGN);
    }
    let mut end_of_line = false;
    for name in expected {
        if covered.contains(&name.as_str()) {
            continue;
        }
        if name == "Sep" {
            end_of_line = true;
        } else if let Some(sym) = name.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            items.push(format!("`{}`", sym.replace("\\\"", "\"")));
        } else {
            let word = match name.as_str() {
                "Int" | "Float" => "a number",
                "Str" | "FStr" => "a string",
                "Ident" => "a name",
                other => other,
            };
            if !items.iter().any(|item| item == word) {
                items.push(word.to_string());
            }
        }
    }
    // An operator listed alone is an artefact of the parser having already
    // reduced its operand (`if x = 1` would say "expected `or` or `{`").
    let lone_operator = |i: &String| {
        !matches!(i.as_str(), "`-`" | "`[`") && OPERATORS.iter().any(|op| format!("`{}`", op.trim_matches('"')) == *i)
    };
    if items.iter().any(|i| !lone_operator(i)) {
        items.retain(|i| !lone_operator(i));
    }
    // Closing brackets read best last: "`,` or `]`".
    let (closers, mut items): (Vec<String>, Vec<String>) = items
        .into_iter()
        .partition(|i| matches!(i.as_str(), "`)`" | "`]`" | "`}`"));
    items.extend(closers);
    if end_of_line {
        items.push("end of line".to_string());
    }
    if items.len() > 6 {
        items.truncate(5);
        items.push("another token".to_string());
    }
    match items.len() {
        0 => None,
        1 => Some(format!("expected {}", items[0])),
        n => Some(format!("expected {} or {}", items[..n - 1].join(", "), items[n - 1])),
    }
}
