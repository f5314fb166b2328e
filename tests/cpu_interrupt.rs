//! Ctrl-C during a fused CPU kernel: the kernel stops at a block boundary
//! with the `interrupted` diagnostic (E0407) instead of ending the process.
//! A test binary of its own, because the request is one flag for the whole process.

use arr::backend::cpu::{CpuBackend, CpuMode};
use std::rc::Rc;

#[test]
fn interrupt_stops_a_kernel() {
    let mut session = arr::Session::with_backend(Rc::new(CpuBackend::with_mode(CpuMode::Fused)));
    session.set_output(Box::new(std::io::sink()));
    arr::interrupt::request();
    let result = session.eval("print(sum(rand([100000]) * 2))");
    arr::interrupt::clear();
    let diags = result.expect_err("an interrupted kernel fails");
    assert!(
        diags.iter().any(|d| d.code == "E0407"),
        "{:?}",
        diags.iter().map(|d| &d.code).collect::<Vec<_>>()
    );
    // and the session goes on afterwards
    assert!(session.eval("print(sum(rand([100000]) * 2))").is_ok());
}
