//! Starting CUDA at the first computation, not with the session: creating the
//! context and loading the driver and NVRTC take hundreds of milliseconds, which
//! a REPL prompt, a script that computes nothing, or a syntax error should not
//! wait for. `LazyCuda` is the session's backend for `--backend cuda` and
//! `auto`; it starts `CudaBackend` on the first call that needs a device
//! (`execute`, `adopt`, ...) and forwards everything to it, or, for `auto`
//! where no GPU is usable, to the CPU backend.

// Diagnostic is the crate's one error type; boxing it here alone would buy nothing.
#![allow(clippy::result_large_err)]

use super::CudaBackend;
use crate::backend::cpu::CpuBackend;
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::view::View;
use crate::graph::{Array, Backend, Buffer, Node, Storage};
use std::cell::{Cell, OnceCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

pub struct LazyCuda {
    /// `auto`: the CPU backend when CUDA cannot start.
    fallback: bool,
    started: OnceCell<Result<Rc<dyn Backend>, Diagnostic>>,
    /// Profiling asked for before the start: switched on at the start.
    profiling: Cell<bool>,
    /// How long the start took.
    start_up: Cell<Duration>,
}

impl LazyCuda {
    /// `fallback`: run on the CPU where no GPU is usable (`auto`), instead of
    /// failing the first computation with E0404 (`cuda`).
    pub fn new(fallback: bool) -> LazyCuda {
        LazyCuda {
            fallback,
            started: OnceCell::new(),
            profiling: Cell::new(false),
            start_up: Cell::new(Duration::ZERO),
        }
    }

    /// Whether the backend has started (for tests and start-up checks).
    pub fn is_started(&self) -> bool {
        self.started.get().is_some()
    }

    fn get(&self) -> Result<&Rc<dyn Backend>, Diagnostic> {
        let started = self.started.get_or_init(|| {
            let t0 = Instant::now();
            let backend: Result<Rc<dyn Backend>, Diagnostic> = match CudaBackend::new() {
                Ok(cuda) => Ok(Rc::new(cuda)),
                Err(_) if self.fallback => Ok(Rc::new(CpuBackend::new())),
                Err(e) => Err(e),
            };
            if let Ok(b) = &backend
                && self.profiling.get()
            {
                b.start_profiling();
            }
            self.start_up.set(t0.elapsed());
            backend
        });
        started.as_ref().map_err(Clone::clone)
    }
}

impl Backend for LazyCuda {
    fn describe(&self) -> String {
        match self.started.get() {
            Some(Ok(b)) => b.describe(),
            Some(Err(e)) => format!("cuda (not usable: {})", e.message),
            None if self.fallback => "auto (CUDA when usable, else CPU; starts at the first computation)".into(),
            None => "cuda (starts at the first computation)".into(),
        }
    }

    fn execute(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Result<(), Diagnostic> {
        self.get()?.execute(nodes, outputs)
    }

    fn read(&self, buffer: &Buffer, view: &View, dtype: DType) -> Result<HostData, Diagnostic> {
        // host values (the constants `pi`, `inf`, ... the checker looks at) need no device
        if !self.is_started()
            && let Storage::Host(data) = &*buffer.storage()
        {
            return Ok(super::pool::host_gather(data, view));
        }
        self.get()?.read(buffer, view, dtype)
    }

    fn write(&self, dst: &Buffer, dst_view: &View, src: &Array) -> Result<(), Diagnostic> {
        self.get()?.write(dst, dst_view, src)
    }

    fn adopt(&self, data: HostData) -> Result<Buffer, Diagnostic> {
        self.get()?.adopt(data)
    }

    fn explain(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> String {
        match self.get() {
            // on the CPU fallback too: what the fused CPU executor runs, not a GPU's plan
            Ok(b) => b.explain(nodes, outputs),
            Err(e) => e.message,
        }
    }

    fn start_up_time(&self) -> Duration {
        self.start_up.get()
    }

    fn start_profiling(&self) {
        match self.started.get() {
            Some(Ok(b)) => b.start_profiling(),
            Some(Err(_)) => {}
            None => self.profiling.set(true),
        }
    }

    fn profile_report(&self) -> Option<String> {
        self.started.get()?.as_ref().ok()?.profile_report()
    }

    fn profile_json(&self) -> Option<String> {
        self.started.get()?.as_ref().ok()?.profile_json()
    }

    fn profiling(&self) -> bool {
        match self.started.get() {
            Some(Ok(b)) => b.profiling(),
            Some(Err(_)) => false,
            None => self.profiling.get(),
        }
    }

    fn record_host(&self, name: &str, label: &str, elapsed: Duration, bytes: u64) {
        if let Some(Ok(b)) = self.started.get() {
            b.record_host(name, label, elapsed, bytes);
        }
    }

    fn lu(&self, job: crate::graph::linalg::LuJob, a: &Array, b: Option<&Array>) -> Option<Result<Array, Diagnostic>> {
        match self.get() {
            Ok(backend) => backend.lu(job, a, b),
            Err(e) => Some(Err(e)),
        }
    }

    fn bincount(&self, x: &Array, weights: Option<&Array>, minlength: usize) -> Option<Result<Array, Diagnostic>> {
        match self.get() {
            Ok(backend) => backend.bincount(x, weights, minlength),
            Err(e) => Some(Err(e)),
        }
    }

    fn sort(&self, x: &Array, argsort: bool) -> Option<Result<Array, Diagnostic>> {
        match self.get() {
            Ok(backend) => backend.sort(x, argsort),
            Err(e) => Some(Err(e)),
        }
    }

    fn compress(&self, x: Option<&Array>, mask: &Array) -> Option<Result<Array, Diagnostic>> {
        match self.get() {
            Ok(backend) => backend.compress(x, mask),
            Err(e) => Some(Err(e)),
        }
    }
}
