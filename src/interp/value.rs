//! Runtime values: arrays (rank 0 for scalars), tuples, strings, dtypes,
//! functions and `none`.

use crate::check::dtype::DType;
use crate::graph::Array;
use crate::syntax::ast::FnDef;
use std::rc::Rc;

#[derive(Clone)]
pub enum Value {
    Array(Array),
    Tuple(Vec<Value>),
    Str(String),
    /// A dtype name used as a value (`zeros([3], dtype=i32)`, `dtype(x)`).
    DType(DType),
    /// A user-defined function (from a script, the REPL or the stdlib).
    Func(Rc<FnDef>),
    /// The absent value of optional arguments (`axis=none`).
    None,
    /// What statements and `print` evaluate to.
    Unit,
}

impl Value {
    /// A word for error messages: "an array", "a tuple", ...
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Array(_) => "an array",
            Value::Tuple(_) => "a tuple",
            Value::Str(_) => "a string",
            Value::DType(_) => "a dtype",
            Value::Func(_) => "a function",
            Value::None => "none",
            Value::Unit => "nothing (a statement's value)",
        }
    }

    /// A string, or a tuple holding one: what makes a list literal a tuple.
    pub fn holds_text(&self) -> bool {
        match self {
            Value::Str(_) => true,
            Value::Tuple(items) => items.iter().any(Value::holds_text),
            _ => false,
        }
    }
}
