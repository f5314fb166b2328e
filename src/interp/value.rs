//! Runtime values: arrays (rank 0 for scalars), tuples, strings and functions.

use crate::graph::Array;
use crate::syntax::ast::FnDef;
use std::rc::Rc;

#[derive(Clone)]
pub enum Value {
    Array(Array),
    Tuple(Vec<Value>),
    Str(String),
    /// A user-defined function (from a script, the REPL or the stdlib).
    Func(Rc<FnDef>),
    /// What statements and `print` evaluate to.
    Unit,
}
