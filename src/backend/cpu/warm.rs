//! Keeps the pool's other workers awake between parallel kernels.
//!
//! A rayon worker that finds no work spins for a few microseconds, then
//! parks on a futex. Waking it for the next kernel costs about 15 us from
//! inside the pool on this project's 2-core VMs (80 us from outside it): more
//! than a kernel of a few tens of thousands of elements saves by going
//! parallel, and a loop of such kernels (n-body's step, a stencil sweep) has
//! gaps of interpreter work between them that are always long enough for the
//! workers to park. OpenMP runtimes keep their workers spinning for a while
//! after a parallel region for the same reason (`KMP_BLOCKTIME`,
//! `GOMP_SPINCOUNT`); Numba's parallel loops run on such a runtime.
//!
//! So before a kernel big enough to go parallel, the thread that runs the
//! program hands each other worker a job that spins, taking any work the
//! pool has (`rayon::yield_now`), until no kernel has asked for `SPIN` of
//! time. A spinner never runs on the thread that spawned it (that thread is
//! running the program), and never inside another spinner. What it costs is
//! the other cores' time while a program runs kernels; an idle REPL or a
//! program doing serial work spins at most `SPIN` after its last big kernel.
//! `ARR_CPU_WARM=0` turns it off, to measure what it saves. On a busy
//! machine (`contention`) it hands out no spinners: there a spinning worker
//! takes a share of a core from the program thread, and small kernels stay
//! on that thread anyway.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long spinners outlive the last kernel that asked for them.
const SPIN: Duration = Duration::from_millis(2);

/// The spinners one program thread keeps, and when they may stop.
struct Spinners {
    /// Running (or spawned and not yet started) spinners.
    running: AtomicUsize,
    /// Nanoseconds after `epoch` past which a spinner stops.
    until: AtomicU64,
    epoch: Instant,
}

impl Spinners {
    fn now(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

thread_local! {
    /// This thread's spinners (one set per program thread: tests run several).
    static MINE: Arc<Spinners> = Arc::new(Spinners {
        running: AtomicUsize::new(0),
        until: AtomicU64::new(0),
        epoch: Instant::now(),
    });
    /// Whether this worker is running a spinner now.
    static SPINNING: Cell<bool> = const { Cell::new(false) };
    /// Spinners this thread has handed out since it started.
    static STARTED: Cell<usize> = const { Cell::new(0) };
}

/// Keeps every other worker of the current pool spinning until `SPIN` from
/// now; a no-op on one thread, outside a pool, or with `ARR_CPU_WARM=0`.
pub fn keep_warm() {
    let threads = rayon::current_num_threads();
    let Some(me) = rayon::current_thread_index() else {
        return;
    };
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if threads < 2 || *OFF.get_or_init(|| std::env::var("ARR_CPU_WARM").is_ok_and(|v| v == "0")) {
        return;
    }
    if super::contention::contended() {
        // on a busy machine a spinner takes a share of a core from this thread
        return;
    }
    let spinners = MINE.with(Arc::clone);
    let until = spinners.now().saturating_add(SPIN.as_nanos() as u64);
    spinners.until.store(until, Ordering::Relaxed);
    while spinners.running.load(Ordering::Relaxed) < threads - 1 {
        spinners.running.fetch_add(1, Ordering::Relaxed);
        STARTED.set(STARTED.get() + 1);
        let spinners = Arc::clone(&spinners);
        rayon::spawn(move || {
            if rayon::current_thread_index() != Some(me) && !SPINNING.get() {
                SPINNING.set(true);
                spin(&spinners);
                SPINNING.set(false);
            }
            spinners.running.fetch_sub(1, Ordering::Relaxed);
        });
    }
}

/// Spinners this thread keeps running now (or has spawned and not yet seen
/// stop): none once `SPIN` has passed without a big kernel.
pub fn spinners() -> usize {
    MINE.with(|m| m.running.load(Ordering::Relaxed))
}

/// Spinners this thread has handed out since it started (a count that only
/// grows: whether a program kept the workers warm, read however long after).
pub fn spinners_started() -> usize {
    STARTED.get()
}

/// Takes the pool's work until `spinners.until` passes with none to take.
fn spin(spinners: &Spinners) {
    loop {
        match rayon::yield_now() {
            Some(rayon::Yield::Executed) => {}
            _ if spinners.now() > spinners.until.load(Ordering::Relaxed) => return,
            _ => std::hint::spin_loop(),
        }
    }
}
