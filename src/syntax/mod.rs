//! Source text to AST: the logos lexer, a layout pass that turns line breaks
//! into statement separators, and the lalrpop parser. (Being written.)

pub mod ast;

use crate::diag::Diagnostic;
use ast::Program;

/// Parses a whole program. Spans are byte offsets into `source` plus `base`
/// (the session numbers all the sources it has seen in one space).
pub fn parse_program(source: &str, base: usize) -> Result<Program, Vec<Diagnostic>> {
    let _ = (source, base);
    todo!()
}

/// True when `source` fails to parse only because it ended too early (an open
/// bracket or block, a trailing operator): the REPL then asks for another line.
pub fn is_incomplete(source: &str) -> bool {
    let _ = source;
    todo!()
}
