//! The user's request to stop (Ctrl-C), as one process-wide flag. The REPL's
//! signal handler sets it; the interpreter checks it between statements and
//! loop iterations, and long CPU kernels check it at block boundaries, so a
//! long computation stops with an `interrupted` diagnostic instead of ending
//! the process and every variable with it.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Whether the REPL is waiting at its prompt, where nothing runs that a
/// Ctrl-C could stop: a SIGINT then (the terminal not yet in raw mode) is only
/// recorded, and never counts as the second Ctrl-C that ends the process.
static AT_PROMPT: AtomicBool = AtomicBool::new(false);

/// Tells the SIGINT handler whether the REPL is waiting for input.
pub fn set_at_prompt(waiting: bool) {
    AT_PROMPT.store(waiting, Ordering::Relaxed);
}

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

/// The diagnostic a stopped computation returns (E0407), or `Ok` when no stop
/// was asked for: the one check every stopping point calls.
pub fn check() -> Result<(), crate::diag::Diagnostic> {
    if requested() {
        Err(crate::diag::Diagnostic::spanless("E0407", "interrupted")
            .with_hint("variables keep the values of the statements and loop iterations that finished"))
    } else {
        Ok(())
    }
}

/// Makes Ctrl-C (SIGINT) call `request` instead of ending the process. A
/// second Ctrl-C before anything handled the first (a long kernel with no
/// stopping point) ends the process with status 130, as a shell expects.
/// Idempotent; does nothing where there are no Unix signals.
pub fn install_handler() {
    #[cfg(unix)]
    {
        extern "C" fn on_sigint(_: libc::c_int) {
            if requested() && !AT_PROMPT.load(Ordering::Relaxed) {
                // SAFETY: `_exit` is async-signal-safe; it ends the process without running
                // anything that could deadlock inside a signal handler.
                unsafe { libc::_exit(130) };
            }
            request();
        }
        // SAFETY: `sigaction` with a zeroed, then filled, struct is the documented way to set a
        // handler; the handler only touches an atomic or calls `_exit`, both async-signal-safe.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // SA_RESTART: a read or write the signal lands in resumes rather than failing with EINTR.
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
        }
    }
}
