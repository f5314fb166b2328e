//! CUDA starts at the first computation, not with the session: a script that
//! computes nothing never waits for (or fails on) the driver. Runs on any
//! machine: without a GPU the first computation of a `cuda` session is E0404,
//! and an `auto` session computes on the CPU.

use arr::backend::cuda::lazy::LazyCuda;
use arr::graph::Backend;
use arr::{BackendChoice, Session};
use std::rc::Rc;

#[test]
fn a_session_that_computes_nothing_does_not_start_cuda() {
    let lazy = Rc::new(LazyCuda::new(false));
    let mut session = Session::with_backend(lazy.clone());
    assert!(!lazy.is_started(), "loading the stdlib started CUDA");
    session
        .run_source("t.arr", "let n = 3\nfn twice(x) { 2 * x }\nlet m = n + 1\n")
        .unwrap_or_else(|d| panic!("{}", session.render(&d, false)));
    assert!(!lazy.is_started(), "the stdlib or the script started CUDA");
    assert!(lazy.describe().contains("first computation"), "{}", lazy.describe());
}

#[test]
fn the_first_computation_starts_it() {
    let lazy = Rc::new(LazyCuda::new(false));
    let mut session = Session::with_backend(lazy.clone());
    let result = session.run_source("t.arr", "let x = sum(arange(10) * 2)\nprint(x)\n");
    assert!(lazy.is_started());
    if let Err(diags) = result {
        // no usable GPU here: the error a `cuda` session gives
        assert_eq!(diags[0].code, "E0404", "{}", session.render(&diags, false));
    }
}

#[test]
fn auto_computes_on_the_cpu_where_there_is_no_gpu() {
    let mut session = Session::new(BackendChoice::Auto).expect("auto never fails");
    session.eval("let x = sum(arange(10) * 2)").expect("computes");
    // 2 * (0 + 1 + ... + 9), on the GPU where there is one, else on the CPU
    assert_eq!(session.get("x").expect("x").to_f64_vec(), vec![90.0]);
}
