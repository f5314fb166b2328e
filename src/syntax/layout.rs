//! The layout pass between lexer and parser: decides which line breaks end a
//! statement. Line breaks inside `( )` and `[ ]` are dropped; runs of line
//! breaks and `;` become one `Sep`; a `Sep` is dropped at the start and end,
//! after `{`, before `}` and before `else`. A line break after a token that
//! cannot end a statement (an operator, `=`, `,`, a keyword such as `let`) is
//! dropped too, so `x = a +` continues on the next line: a separator there
//! could only be a syntax error, and the REPL's "ask for another line" on a
//! trailing operator then means what it says. The grammar only has to accept
//! `Stmt (Sep Stmt)*`.

use super::token::{Spanned, Tok};
use std::ops::Range;

/// An opening bracket and where it is.
pub type Opener = (Tok, Range<usize>);

/// The tokens with separators settled, and what the bracket matching found,
/// for the parser's error messages to point at.
pub struct Layout {
    pub tokens: Vec<Spanned>,
    /// Brackets still open at the end, innermost last.
    pub unclosed: Vec<Opener>,
    /// Closing brackets that close nothing, or the wrong kind of bracket
    /// (with the opening bracket they met).
    pub unmatched: Vec<(Range<usize>, Option<Opener>)>,
}

pub fn layout(tokens: Vec<Spanned>) -> Layout {
    let mut out: Vec<Spanned> = Vec::with_capacity(tokens.len());
    let mut open: Vec<Opener> = Vec::new();
    let mut unmatched = Vec::new();
    // The first separator of the current run, not yet emitted.
    let mut pending: Option<(usize, usize)> = None;
    for (start, tok, end) in tokens {
        let in_parens = matches!(open.last(), Some((Tok::LParen | Tok::LBracket, _)));
        let continues = matches!(out.last(), Some((_, last, _)) if !can_end_statement(last));
        match tok {
            Tok::Newline if in_parens || continues => continue,
            Tok::Newline | Tok::Semi | Tok::Sep => {
                let after_open = matches!(out.last(), None | Some((_, Tok::LBrace, _)));
                if !after_open && pending.is_none() {
                    pending = Some((start, end));
                }
                continue;
            }
            _ => {}
        }
        if let Some((s, e)) = pending.take()
            && !matches!(tok, Tok::RBrace | Tok::Else)
        {
            out.push((s, Tok::Sep, e));
        }
        match tok {
            Tok::LParen | Tok::LBracket | Tok::LBrace => open.push((tok.clone(), start..end)),
            // A mismatched closer is the parser's to report; popping keeps the
            // nesting sensible for the rest of the input.
            Tok::RParen | Tok::RBracket | Tok::RBrace => match open.pop() {
                Some((opener, _)) if closes(&opener, &tok) => {}
                met => unmatched.push((start..end, met)),
            },
            _ => {}
        }
        out.push((start, tok, end));
    }
    Layout {
        tokens: out,
        unclosed: open,
        unmatched,
    }
}

fn closes(opener: &Tok, closer: &Tok) -> bool {
    matches!(
        (opener, closer),
        (Tok::LParen, Tok::RParen) | (Tok::LBracket, Tok::RBracket) | (Tok::LBrace, Tok::RBrace)
    )
}

/// Whether a statement can end with `tok`; a line break after any other token
/// cannot be a separator.
fn can_end_statement(tok: &Tok) -> bool {
    matches!(
        tok,
        Tok::Int(_)
            | Tok::Float(_)
            | Tok::Str(_)
            | Tok::FStr(_)
            | Tok::Ident(_)
            | Tok::True
            | Tok::False
            | Tok::RParen
            | Tok::RBracket
            | Tok::RBrace
            | Tok::Break
            | Tok::Continue
    )
}
