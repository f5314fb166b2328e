//! NumPy goldens for the shape, construction and linear-algebra builtins:
//! `tests/golden/make_shape_linalg.py` evaluates each case with NumPy and
//! writes `tests/golden/shape_linalg/cases.txt`; here each case's Arr
//! expression runs on both CPU executors (fused and reference) and must give
//! NumPy's shape, kind of dtype and values (floats within a relative 1e-5 of
//! the array's largest magnitude: Arr's default float is f32).

#[path = "golden/shape_linalg/mod.rs"]
mod golden;

use arr::backend::cpu::{CpuBackend, CpuMode};
use std::rc::Rc;

#[test]
fn shape_and_linalg_match_numpy_on_the_fused_executor() {
    golden::run_all(&|| arr::Session::with_backend(Rc::new(CpuBackend::with_mode(CpuMode::Fused))));
}

#[test]
fn shape_and_linalg_match_numpy_on_the_reference_executor() {
    golden::run_all(&|| arr::Session::with_backend(Rc::new(CpuBackend::with_mode(CpuMode::Reference))));
}
