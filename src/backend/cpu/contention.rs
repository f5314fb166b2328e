//! Whether the machine has cores to spare for a parallel kernel right now.
//!
//! On a machine with more runnable threads than cores (a build beside the
//! program, a test harness running many programs, a busy laptop) the
//! scheduler takes threads off their cores for time slices of milliseconds.
//! A parallel kernel then waits for whichever worker holds its last chunk:
//! kernels of tens of microseconds took milliseconds, and a loop of them
//! (shallow water at 200^2, two busy processes beside it on this project's
//! 2-core VM) ran 1.5-2.5x slower on two threads than on one, where on an
//! idle machine two threads were 15% faster.
//!
//! The program thread measures how much of the time it was runnable but
//! waiting for a core: the second field of Linux's
//! `/proc/thread-self/schedstat`, read at most every `SAMPLE` and only when
//! a kernel is deciding whether to go parallel. Idle, that is well under 1%
//! of the time; beside two busy processes on two cores, 30-65%. While it is
//! above `BUSY`, a kernel goes parallel only with `CONTENDED_FACTOR` times
//! the work it needs otherwise (milliseconds of work, where a stalled chunk
//! costs about a time slice and the other workers' share still pays), and
//! `warm::keep_warm` keeps no workers spinning (a spinner would take a share
//! of a core from the program thread too). Where the file cannot be read
//! (another OS, a kernel without schedstats) the machine counts as idle.

use std::cell::Cell;
use std::fs::File;
use std::time::{Duration, Instant};

/// How often the program thread reads its scheduling statistics.
const SAMPLE: Duration = Duration::from_millis(5);

/// The share of wall time spent waiting for a core above which the machine counts as busy.
const BUSY: f64 = 0.10;

/// While busy, a kernel goes parallel only with this many times the work
/// that it needs on an idle machine.
pub const CONTENDED_FACTOR: usize = 64;

/// One thread's last sample.
struct Sampler {
    /// The open statistics file (`None`: not available here).
    file: Option<File>,
    at: Instant,
    /// Nanoseconds spent waiting for a core at `at`.
    waited: u64,
    busy: bool,
    /// Samples that found the machine busy, since the thread started.
    busy_samples: usize,
}

thread_local! {
    static SAMPLER: Cell<Option<Box<Sampler>>> = const { Cell::new(None) };
}

/// Nanoseconds this thread has waited on a run queue, from its schedstat file.
fn waited(file: &File) -> Option<u64> {
    let mut buf = [0u8; 96];
    #[cfg(unix)]
    let n = std::os::unix::fs::FileExt::read_at(file, &mut buf, 0).ok()?;
    #[cfg(not(unix))]
    let n = {
        let _ = file;
        0
    };
    let text = std::str::from_utf8(&buf[..n]).ok()?;
    text.split_ascii_whitespace().nth(1)?.parse().ok()
}

fn open() -> Option<File> {
    let file = File::open("/proc/thread-self/schedstat").ok()?;
    waited(&file).map(|_| file)
}

/// Whether this thread spent more than `BUSY` of its recent time waiting
/// for a core (sampled at most every `SAMPLE`; the first call only starts
/// measuring).
pub fn contended() -> bool {
    SAMPLER.with(|cell| {
        let mut s = cell.take().unwrap_or_else(|| {
            let file = open();
            let waited = file.as_ref().and_then(waited).unwrap_or(0);
            Box::new(Sampler {
                file,
                at: Instant::now(),
                waited,
                busy: false,
                busy_samples: 0,
            })
        });
        if let Some(file) = &s.file {
            let elapsed = s.at.elapsed();
            if elapsed >= SAMPLE
                && let Some(now_waited) = waited(file)
            {
                let share = now_waited.saturating_sub(s.waited) as f64 / elapsed.as_nanos().max(1) as f64;
                s.busy = share > BUSY;
                s.busy_samples += usize::from(s.busy);
                s.at = Instant::now();
                s.waited = now_waited;
            }
        }
        let busy = s.busy;
        cell.set(Some(s));
        busy
    })
}

/// Samples of this thread that found the machine busy (for the profile).
pub fn busy_samples() -> usize {
    SAMPLER.with(|cell| {
        let s = cell.take();
        let n = s.as_ref().map_or(0, |s| s.busy_samples);
        cell.set(s);
        n
    })
}

/// Whether, for `work` of a kernel's own measure, spreading it over the
/// pool pays, where `threshold` of it pays on an idle machine: never on one
/// thread, and on a busy machine only for `CONTENDED_FACTOR` times as much.
pub fn parallel_pays(work: usize, threshold: usize) -> bool {
    rayon::current_num_threads() > 1 && work >= threshold && busy_allows(work, threshold)
}

/// Whether the machine's load leaves `work`, which pays going parallel on
/// an idle machine from `threshold` on, going parallel now.
pub fn busy_allows(work: usize, threshold: usize) -> bool {
    work >= threshold.saturating_mul(CONTENDED_FACTOR) || !contended()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_machine_keeps_small_kernels_serial() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("a thread pool");
        pool.install(|| {
            let t = 1000;
            assert!(!parallel_pays(t - 1, t));
            // as if the last sample had found the thread waiting for a core
            contended();
            SAMPLER.with(|cell| {
                let mut s = cell.take().expect("a sampler after the first call");
                s.busy = true;
                s.at = Instant::now();
                cell.set(Some(s));
            });
            assert!(!parallel_pays(t, t), "a small kernel went parallel on a busy machine");
            assert!(parallel_pays(t * CONTENDED_FACTOR, t), "a big kernel stayed serial");
        });
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a thread pool");
        one.install(|| assert!(!parallel_pays(usize::MAX, 1)));
    }

    /// On Linux the statistics are there and an idle thread is not busy;
    /// a thread that only sleeps waits for no core.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_sleeping_thread_is_not_busy() {
        std::thread::spawn(|| {
            assert!(open().is_some(), "no /proc/thread-self/schedstat");
            assert!(!contended());
            std::thread::sleep(SAMPLE * 4);
            assert!(!contended(), "a thread that slept counted as waiting for a core");
        })
        .join()
        .expect("the sampling thread");
    }
}
