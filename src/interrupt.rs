//! The user's request to stop (Ctrl-C), as one process-wide flag. The REPL's
//! signal handler sets it; the interpreter checks it between statements and
//! loop iterations, and long CPU kernels check it at block boundaries, so a
//! long computation stops with an `interrupted` diagnostic instead of ending
//! the process and every variable with it.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Asks the running computation to stop at its next check. Safe to call from a
/// signal handler: it only stores to an atomic.
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Whether a stop was asked for and not yet handled.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Forgets a pending request (before a new statement starts).
pub fn clear() {
    REQUESTED.store(false, Ordering::Relaxed);
}
