//! Static meaning: dtypes and promotion, shape rules, the table of builtins,
//! and the checker that finds errors before anything runs.

pub mod builtins;
pub mod checker;
pub mod dtype;
pub mod einsum;
pub mod npsort;
pub mod prim;
pub mod shape;
