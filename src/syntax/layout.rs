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

pub fn layout(mut tokens: Vec<Spanned>) -> Layout {
    // In place: a `Sep` stands for a separator token already read, so the
    // tokens written never overtake the tokens read (`kept <= read`), and no
    // second vector of the whole input is allocated.
    let mut kept: usize = 0;
    let mut open: Vec<Opener> = Vec::new();
    let mut unmatched = Vec::new();
    // The first separator of the current run, not yet emitted.
    let mut pending: Option<(usize, usize)> = None;
    for read in 0..tokens.len() {
        let (start, tok, end) = std::mem::replace(&mut tokens[read], (0, Tok::Sep, 0));
        let last = kept.checked_sub(1).map(|k| &tokens[k].1);
        let in_parens = matches!(open.last(), Some((Tok::LParen | Tok::LBracket, _)));
        let continues = matches!(last, Some(last) if !can_end_statement(last));
        match tok {
            Tok::Newline if in_parens || continues => continue,
            Tok::Newline | Tok::Semi | Tok::Sep => {
                let after_open = matches!(last, None | Some(Tok::LBrace));
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
            tokens[kept] = (s, Tok::Sep, e);
            kept += 1;
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
        tokens[kept] = (start, tok, end);
        kept += 1;
    }
    tokens.truncate(kept);
    Layout {
        tokens,
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
    tok.ends_operand() || matches!(tok, Tok::RBrace | Tok::Break | Tok::Continue)
}
