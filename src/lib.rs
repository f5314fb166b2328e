//! Arr: a small array language whose programs run as fused kernels on the
//! CPU or an NVIDIA GPU.
//!
//! The embedding API is [`Session`]: set inputs, evaluate source, get results.
//!
//! ```
//! use arr::{HostArray, Session};
//!
//! let mut session = Session::cpu();
//! session.set("x", HostArray::f32(vec![1.0, 2.0, 3.0, 4.0], &[2, 2])).unwrap();
//! session.eval("let y = sum(x * 2, axis=1)").unwrap();
//! let y = session.get("y").unwrap();
//! assert_eq!(y.shape, vec![2]);
//! assert_eq!(y.to_f64_vec(), vec![6.0, 14.0]);
//! ```

// Diagnostics are large by design (labels, hints) and travel only on the error path.
#![allow(clippy::result_large_err)]

pub mod backend;
pub mod check;
pub mod diag;
pub mod format;
pub mod format_spec;
pub mod graph;
pub mod interp;
pub mod interrupt;
pub mod io;
pub mod plan;
pub mod session;
pub mod syntax;
pub mod trace;

pub use check::dtype::DType;
pub use diag::Diagnostic;
pub use session::{BackendChoice, HostArray, Session};
