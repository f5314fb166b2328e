//! The interpreter: statements, control flow, environments, calls of
//! builtins and user functions; it builds the lazy graph and realizes it
//! where a value must exist.

pub mod value;
