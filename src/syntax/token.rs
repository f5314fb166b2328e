//! The lexer: logos recognises the raw tokens, and `lex` turns them into the
//! parser's `Tok`s with decoded literal values, collecting a diagnostic for
//! every bad character or literal instead of stopping at the first.

use crate::diag::Diagnostic;
use logos::Logos;
use std::fmt;

/// A token as the parser sees it, with literal values decoded.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Int(i64),
    Float(f64),
    Str(String),
    /// `f"..."`: the text between the quotes, escapes not yet decoded
    /// (`syntax::fstring` splits it into literal text and expressions).
    FStr(String),
    Ident(String),
    Let,
    Fn,
    For,
    In,
    While,
    If,
    Else,
    True,
    False,
    And,
    Or,
    Not,
    As,
    NewAxis,
    Break,
    Continue,
    Plus,
    Minus,
    Star,
    Slash,
    SlashSlash,
    Percent,
    StarStar,
    At,
    EqEq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Assign,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    /// `//=`, `%=` and `**=`.
    SlashSlashEq,
    PercentEq,
    StarStarEq,
    Amp,
    Pipe,
    Caret,
    Tilde,
    Shl,
    Shr,
    AmpEq,
    PipeEq,
    CaretEq,
    ShlEq,
    ShrEq,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    DotDot,
    Ellipsis,
    Arrow,
    /// A line break; the layout pass turns it into `Sep` or drops it.
    Newline,
    /// `;`; the layout pass turns it into `Sep`.
    Semi,
    /// A statement separator: one or more line breaks and `;`s.
    Sep,
}

/// A token with its byte span (already shifted by the source's base).
pub type Spanned = (usize, Tok, usize);

impl fmt::Display for Tok {
    /// Names the token the way a diagnostic talks about it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            Tok::Int(n) => return write!(f, "number `{n}`"),
            Tok::Float(x) => return write!(f, "number `{x:?}`"),
            Tok::Str(_) => "string",
            Tok::FStr(_) => "f-string",
            Tok::Ident(name) => return write!(f, "name `{name}`"),
            Tok::Newline | Tok::Sep => "end of line",
            other => return write!(f, "`{}`", other.symbol()),
        };
        f.write_str(text)
    }
}

impl Tok {
    /// The fixed text of a keyword or punctuation token ("" for the others).
    pub fn symbol(&self) -> &'static str {
        match self {
            Tok::Let => "let",
            Tok::Fn => "fn",
            Tok::For => "for",
            Tok::In => "in",
            Tok::While => "while",
            Tok::If => "if",
            Tok::Else => "else",
            Tok::True => "true",
            Tok::False => "false",
            Tok::And => "and",
            Tok::Or => "or",
            Tok::Not => "not",
            Tok::As => "as",
            Tok::NewAxis => "newaxis",
            Tok::Break => "break",
            Tok::Continue => "continue",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::SlashSlash => "//",
            Tok::Percent => "%",
            Tok::StarStar => "**",
            Tok::At => "@",
            Tok::EqEq => "==",
            Tok::Ne => "!=",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::Assign => "=",
            Tok::PlusEq => "+=",
            Tok::MinusEq => "-=",
            Tok::StarEq => "*=",
            Tok::SlashEq => "/=",
            Tok::SlashSlashEq => "//=",
            Tok::PercentEq => "%=",
            Tok::StarStarEq => "**=",
            Tok::Amp => "&",
            Tok::Pipe => "|",
            Tok::Caret => "^",
            Tok::Tilde => "~",
            Tok::Shl => "<<",
            Tok::Shr => ">>",
            Tok::AmpEq => "&=",
            Tok::PipeEq => "|=",
            Tok::CaretEq => "^=",
            Tok::ShlEq => "<<=",
            Tok::ShrEq => ">>=",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::DotDot => "..",
            Tok::Ellipsis => "...",
            Tok::Arrow => "->",
            Tok::Semi | Tok::Sep => ";",
            Tok::Int(_) | Tok::Float(_) | Tok::Str(_) | Tok::FStr(_) | Tok::Ident(_) | Tok::Newline => "",
        }
    }
}

/// What logos recognises; literal text is decoded afterwards so that a bad
/// literal becomes a diagnostic with a span rather than a lexer failure.
#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(skip r"[ \t\r\f]+")]
#[logos(skip(r"#[^\n]*", allow_greedy = true))]
enum Raw {
    #[regex(r"[0-9][0-9_]*")]
    Int,
    #[regex(r"[0-9][0-9_]*\.[0-9][0-9_]*([eE][+-]?[0-9][0-9_]*)?")]
    #[regex(r"[0-9][0-9_]*[eE][+-]?[0-9][0-9_]*")]
    Float,
    /// A number with an exponent marker but no exponent digits (`1e`, `2.5e+`).
    #[regex(r"[0-9][0-9_]*(\.[0-9][0-9_]*)?[eE][+-]?")]
    BadFloat,
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    Str,
    #[regex(r#"f"([^"\\\n]|\\[^\n])*""#)]
    FStr,
    /// A string that reaches the end of its line without a closing quote.
    #[regex(r#""([^"\\\n]|\\[^\n])*\\?"#)]
    UnterminatedStr,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident,
    #[token("let")]
    Let,
    #[token("fn")]
    Fn,
    #[token("for")]
    For,
    #[token("in")]
    In,
    #[token("while")]
    While,
    #[token("if")]
    If,
    #[token("else")]
    Else,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("and")]
    And,
    #[token("or")]
    Or,
    #[token("not")]
    Not,
    #[token("as")]
    As,
    #[token("newaxis")]
    NewAxis,
    #[token("break")]
    Break,
    #[token("continue")]
    Continue,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("//")]
    SlashSlash,
    #[token("%")]
    Percent,
    #[token("**")]
    StarStar,
    #[token("@")]
    At,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("=")]
    Assign,
    #[token("+=")]
    PlusEq,
    #[token("-=")]
    MinusEq,
    #[token("*=")]
    StarEq,
    #[token("/=")]
    SlashEq,
    #[token("//=")]
    SlashSlashEq,
    #[token("%=")]
    PercentEq,
    #[token("**=")]
    StarStarEq,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("&=")]
    AmpEq,
    #[token("|=")]
    PipeEq,
    #[token("^=")]
    CaretEq,
    #[token("<<=")]
    ShlEq,
    #[token(">>=")]
    ShrEq,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token("..")]
    DotDot,
    #[token("...")]
    Ellipsis,
    #[token("->")]
    Arrow,
    /// C's `&&` and `||`: reported, and read as `and` / `or` so that parsing goes on.
    #[token("&&")]
    AmpAmp,
    #[token("||")]
    PipePipe,
    #[token("\n")]
    Newline,
    #[token(";")]
    Semi,
}

impl Tok {
    /// Whether an operand can end with this token (a literal, a name, a
    /// closing bracket): a `-` after it subtracts, a line break after it may
    /// end a statement (`layout`).
    pub fn ends_operand(&self) -> bool {
        matches!(
            self,
            Tok::Int(_)
                | Tok::Float(_)
                | Tok::Str(_)
                | Tok::FStr(_)
                | Tok::Ident(_)
                | Tok::True
                | Tok::False
                | Tok::NewAxis
                | Tok::RParen
                | Tok::RBracket
        )
    }
}

/// Splits `source` into tokens whose spans are shifted by `base`. Bad input
/// never stops the lexer: it records a diagnostic, skips or replaces the bad
/// token, and goes on, so that the parser can still report its own error.
pub fn lex(source: &str, base: usize) -> (Vec<Spanned>, Vec<Diagnostic>) {
    // A token takes about five bytes of source (names, operators, spaces,
    // comments): room for twice that many, so that lexing the standard
    // library at start-up does not regrow the vector (each regrowth copied it
    // into freshly faulted pages). Capped: a huge script grows it as usual.
    let mut tokens = Vec::with_capacity((source.len() / 2 + 16).min(1 << 18));
    let mut diags = Vec::new();
    // A run of unrecognised characters, reported as one diagnostic.
    let mut bad: Option<std::ops::Range<usize>> = None;
    let mut lexer = Raw::lexer(source);
    while let Some(result) = lexer.next() {
        let mut span = lexer.span();
        let raw = match result {
            Ok(raw) => raw,
            Err(()) => {
                // Keep spans on character boundaries so rendering never cuts a character.
                while span.end < source.len() && !source.is_char_boundary(span.end) {
                    span.end += 1;
                    lexer.bump(1);
                }
                bad = Some(match bad {
                    Some(run) if run.end == span.start => run.start..span.end,
                    Some(run) => {
                        diags.push(invalid_chars(source, run, base));
                        span
                    }
                    None => span,
                });
                continue;
            }
        };
        if let Some(run) = bad.take() {
            diags.push(invalid_chars(source, run, base));
        }
        let text = lexer.slice();
        let at = span.start + base..span.end + base;
        let tok = match raw {
            // 2^63 after a unary minus is the most negative i64: the literal reads
            // as i64::MIN, which the minus leaves as it is (negation wraps)
            Raw::Int if after_unary_minus(&tokens) && is_two_to_the_63(text) => Tok::Int(i64::MIN),
            Raw::Int => Tok::Int(int_value(text, &at, &mut diags)),
            Raw::Float => Tok::Float(float_value(text, &at, &mut diags)),
            Raw::BadFloat => {
                diags.push(
                    Diagnostic::new("E0004", format!("invalid number `{text}`"), at.clone())
                        .with_primary_label("the exponent has no digits")
                        .with_hint("write the exponent in full, as in `1.5e-3` or `2e6`"),
                );
                Tok::Float(0.0)
            }
            Raw::Str => Tok::Str(string_value(text, at.start, &mut diags)),
            Raw::FStr => Tok::FStr(text[2..text.len() - 1].to_string()),
            Raw::UnterminatedStr => {
                diags.push(
                    Diagnostic::new("E0006", "unterminated string", at.clone())
                        .with_primary_label("this string has no closing `\"`")
                        .with_hint("close the string with `\"` on the same line"),
                );
                Tok::Str(String::new())
            }
            Raw::Ident => Tok::Ident(text.to_string()),
            Raw::Let => Tok::Let,
            Raw::Fn => Tok::Fn,
            Raw::For => Tok::For,
            Raw::In => Tok::In,
            Raw::While => Tok::While,
            Raw::If => Tok::If,
            Raw::Else => Tok::Else,
            Raw::True => Tok::True,
            Raw::False => Tok::False,
            Raw::And => Tok::And,
            Raw::Or => Tok::Or,
            Raw::Not => Tok::Not,
            Raw::As => Tok::As,
            Raw::NewAxis => Tok::NewAxis,
            Raw::Break => Tok::Break,
            Raw::Continue => Tok::Continue,
            Raw::Plus => Tok::Plus,
            Raw::Minus => Tok::Minus,
            Raw::Star => Tok::Star,
            Raw::Slash => Tok::Slash,
            Raw::SlashSlash => Tok::SlashSlash,
            Raw::Percent => Tok::Percent,
            Raw::StarStar => Tok::StarStar,
            Raw::At => Tok::At,
            Raw::EqEq => Tok::EqEq,
            Raw::Ne => Tok::Ne,
            Raw::Lt => Tok::Lt,
            Raw::Le => Tok::Le,
            Raw::Gt => Tok::Gt,
            Raw::Ge => Tok::Ge,
            Raw::Assign => Tok::Assign,
            Raw::PlusEq => Tok::PlusEq,
            Raw::MinusEq => Tok::MinusEq,
            Raw::StarEq => Tok::StarEq,
            Raw::SlashEq => Tok::SlashEq,
            Raw::SlashSlashEq => Tok::SlashSlashEq,
            Raw::PercentEq => Tok::PercentEq,
            Raw::StarStarEq => Tok::StarStarEq,
            Raw::Amp => Tok::Amp,
            Raw::Pipe => Tok::Pipe,
            Raw::Caret => Tok::Caret,
            Raw::Tilde => Tok::Tilde,
            Raw::Shl => Tok::Shl,
            Raw::Shr => Tok::Shr,
            Raw::AmpEq => Tok::AmpEq,
            Raw::PipeEq => Tok::PipeEq,
            Raw::CaretEq => Tok::CaretEq,
            Raw::ShlEq => Tok::ShlEq,
            Raw::ShrEq => Tok::ShrEq,
            Raw::LParen => Tok::LParen,
            Raw::RParen => Tok::RParen,
            Raw::LBracket => Tok::LBracket,
            Raw::RBracket => Tok::RBracket,
            Raw::LBrace => Tok::LBrace,
            Raw::RBrace => Tok::RBrace,
            Raw::Comma => Tok::Comma,
            Raw::Colon => Tok::Colon,
            Raw::DotDot => Tok::DotDot,
            Raw::Ellipsis => Tok::Ellipsis,
            Raw::Arrow => Tok::Arrow,
            Raw::AmpAmp | Raw::PipePipe => {
                let (word, tok) = if raw == Raw::AmpAmp {
                    ("and", Tok::And)
                } else {
                    ("or", Tok::Or)
                };
                diags.push(
                    Diagnostic::new("E0003", format!("invalid characters `{text}`"), at.clone())
                        .with_primary_label("not part of the language")
                        .with_hint(format!("use `{word}` for logical {word}")),
                );
                tok
            }
            Raw::Newline => Tok::Newline,
            Raw::Semi => Tok::Semi,
        };
        tokens.push((at.start, tok, at.end));
    }
    if let Some(run) = bad.take() {
        diags.push(invalid_chars(source, run, base));
    }
    (tokens, diags)
}

fn invalid_chars(source: &str, run: std::ops::Range<usize>, base: usize) -> Diagnostic {
    let text = source.get(run.clone()).unwrap_or("");
    let shown: String = text
        .chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_debug().collect()
            } else {
                vec![c]
            }
        })
        .collect();
    let (message, label) = if text.chars().count() == 1 {
        (format!("invalid character `{shown}`"), "not part of the language")
    } else {
        (format!("invalid characters `{shown}`"), "not part of the language")
    };
    let mut diag = Diagnostic::new("E0003", message, run.start + base..run.end + base).with_primary_label(label);
    // `x.shape`, `x.sum(axis=0)`: a NumPy habit; name the call to write instead
    let attribute: String = source
        .get(run.end..)
        .unwrap_or("")
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    // the name before the dot: `np.sum`, `add.reduce`
    let before: String = {
        let head = source.get(..run.start).unwrap_or("");
        let tail: Vec<char> = head
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        tail.into_iter().rev().collect()
    };
    let method;
    let hint = match text.chars().next() {
        Some('.') if text.len() == 1 && attribute.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_') => {
            method = match (before.as_str(), attribute.as_str()) {
                ("np" | "numpy" | "jnp" | "cp" | "cupy" | "torch" | "math", "linalg" | "random" | "fft") => format!(
                    "there are no modules: NumPy's `{before}.{attribute}` functions are builtins, written without a prefix (`inv(a)`, `rand([3])`)"
                ),
                ("np" | "numpy" | "jnp" | "cp" | "cupy" | "torch" | "math" | "linalg" | "random" | "fft", name) => {
                    format!(
                        "there are no modules: NumPy's functions are builtins, written without a prefix: `{name}(...)` for `{before}.{name}(...)`"
                    )
                }
                (ufunc, "reduce" | "accumulate" | "outer" | "at") if ufunc_method(ufunc, &attribute).is_some() => {
                    ufunc_method(ufunc, &attribute).unwrap_or_default()
                }
                _ => match attribute.as_str() {
                    "T" => "there are no attributes or methods: write `transpose(x)` for `x.T`".to_string(),
                    "astype" => {
                        "there are no attributes or methods: write `astype(x, f64)` (or `x as f64`) for `x.astype(f64)`"
                            .to_string()
                    }
                    // NumPy methods with no builtin of their name
                    "item" => "there are no attributes or methods: an element indexed out of an array is already a \
                               scalar: write `x[i, j]` for `x.item(i, j)`"
                        .to_string(),
                    "tolist" => "there are no attributes or methods, and no lists of values: `print(x)` shows an \
                                 array's values, `x[i]` takes one"
                        .to_string(),
                    "fill" => "there are no attributes or methods: write `x[...] = v` for `x.fill(v)`".to_string(),
                    name if source
                        .get(run.end + name.len()..)
                        .is_some_and(|rest| rest.starts_with('(')) =>
                    {
                        format!("there are no attributes or methods: write `{name}(x, ...)` for `x.{name}(...)`")
                    }
                    name => format!("there are no attributes or methods: write `{name}(x)` for `x.{name}`"),
                },
            };
            Some(method.as_str())
        }
        Some('!') => Some("use `not` for logical negation (`!=` is not-equal)"),
        Some('\'') => Some("strings use double quotes: \"text\""),
        Some('.') => Some("`..` is a range and `...` an ellipsis; there is no `.` operator"),
        _ => None,
    };
    if let Some(hint) = hint {
        diag = diag.with_hint(hint);
    }
    diag
}

/// What to write for NumPy's ufunc methods (`add.reduce(x, axis)`, `maximum.accumulate`,
/// `multiply.outer`, `add.at`), which Arr spells as functions.
fn ufunc_method(ufunc: &str, method: &str) -> Option<String> {
    let (reduce, accumulate, symbol) = match ufunc {
        "add" => ("sum", Some("cumsum"), Some("+")),
        "multiply" => ("prod", Some("cumprod"), Some("*")),
        "maximum" => ("max", Some("cummax"), None),
        "minimum" => ("min", Some("cummin"), None),
        "logical_and" => ("all", None, None),
        "logical_or" => ("any", None, None),
        "subtract" | "divide" | "power" => ("", None, Some("")),
        _ => return None,
    };
    Some(match method {
        "reduce" if !reduce.is_empty() => {
            format!("there are no ufunc methods: write `{reduce}(x, axis=0)` for `{ufunc}.reduce(x)`")
        }
        "accumulate" => format!(
            "there are no ufunc methods: write `{}(x, axis=0)` for `{ufunc}.accumulate(x)`",
            accumulate?
        ),
        "outer" => match symbol {
            Some("*") => "there are no ufunc methods: write `outer(a, b)` for `multiply.outer(a, b)`".to_string(),
            _ => format!(
                "there are no ufunc methods: write `{ufunc}(a[:, newaxis], b[newaxis, :])` for `{ufunc}.outer(a, b)`"
            ),
        },
        "at" if ufunc == "add" => "there are no ufunc methods: write `add_at(a, idx, v)` for `add.at(a, idx, v)` \
            (`a[idx] += v` adds once per repeated index, as NumPy's)"
            .to_string(),
        _ => return None,
    })
}

/// Whether the last token is a minus that negates what follows rather than
/// subtracting it: nothing that ends an operand comes before it.
fn after_unary_minus(tokens: &[Spanned]) -> bool {
    match tokens {
        [.., (_, before, _), (_, Tok::Minus, _)] => !before.ends_operand(),
        [(_, Tok::Minus, _)] => true,
        _ => false,
    }
}

/// Whether an integer literal is 9223372036854775808 (2^63), one past the largest i64.
fn is_two_to_the_63(text: &str) -> bool {
    text.bytes().filter(|&b| b != b'_').eq("9223372036854775808".bytes())
}

fn int_value(text: &str, at: &std::ops::Range<usize>, diags: &mut Vec<Diagnostic>) -> i64 {
    let digits: String = text.chars().filter(|c| *c != '_').collect();
    match digits.parse::<i64>() {
        Ok(n) => n,
        Err(_) => {
            diags.push(
                Diagnostic::new("E0004", "integer literal too large", at.clone())
                    .with_primary_label("does not fit in a 64-bit integer")
                    .with_hint(format!(
                        "the largest integer is {}; write a float such as `1e20`",
                        i64::MAX
                    )),
            );
            0
        }
    }
}

fn float_value(text: &str, at: &std::ops::Range<usize>, diags: &mut Vec<Diagnostic>) -> f64 {
    let digits: String = text.chars().filter(|c| *c != '_').collect();
    match digits.parse::<f64>() {
        Ok(x) if x.is_finite() => x,
        _ => {
            diags.push(
                Diagnostic::new("E0004", "float literal out of range", at.clone())
                    .with_primary_label("too large for a 64-bit float"),
            );
            0.0
        }
    }
}

/// Decodes the escapes of a string literal (`text` includes the quotes;
/// `start` is its position, base included).
pub(super) fn string_value(text: &str, start: usize, diags: &mut Vec<Diagnostic>) -> String {
    let inner = &text[1..text.len() - 1];
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.char_indices();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some((_, 'n')) => out.push('\n'),
            Some((_, 't')) => out.push('\t'),
            Some((_, '"')) => out.push('"'),
            Some((_, '\\')) => out.push('\\'),
            Some((j, other)) => {
                let at = start + 1 + i..start + 1 + j + other.len_utf8();
                let shown: String = other.escape_debug().collect();
                diags.push(
                    Diagnostic::new("E0004", format!("unknown escape `\\{shown}` in string"), at)
                        .with_primary_label("unknown escape")
                        .with_hint("the escapes are \\\" \\\\ \\n \\t"),
                );
            }
            // The regex only accepts a backslash followed by a character.
            None => {}
        }
    }
    out
}
