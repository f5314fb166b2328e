//! The CUDA backend: plans each pending graph (`crate::plan`), generates and
//! compiles one module per kernel (NVRTC for the device's own architecture,
//! cached in memory and on disk), keeps arrays resident in pooled device
//! buffers, and launches on the legacy default stream so that every copy
//! and kernel is ordered without extra synchronisation.
//!
//! The driver and NVRTC are loaded at run time (cudarc `dynamic-loading`):
//! on a machine without them `CudaBackend::new` returns an E0404 diagnostic.
//!
//! Files: `pool.rs` (device memory and host transfers), `codegen.rs` (CUDA C
//! from a plan), `compile.rs` (NVRTC), `module.rs` (module caches in memory
//! and on disk, loading), `launch.rs` (the realize loop and launches),
//! `profile.rs` (kernel timings and host seconds), `blas.rs` (cuBLAS),
//! `classes.rs` (specialised or shape-generic modules), `lazy.rs` (starting
//! CUDA at the first computation), `solver.rs` (cuSOLVER: inv, solve, det), `count.rs` (bincount),
//! `sort.rs` (radix sort and boolean-mask compaction).

// Diagnostic is the crate's one error type; boxing it here alone would buy nothing.
#![allow(clippy::result_large_err)]

pub mod blas;
pub mod classes;
pub mod codegen;
mod compile;
pub mod count;
mod launch;
pub mod lazy;
mod module;
mod pool;
mod profile;
pub mod solver;
pub mod sort;
mod storage_only;
pub mod worker;

pub use pool::{DeviceBuffer, Pool};
pub use profile::{KernelGroup, KernelTiming, ProfileSummary, group_timings, profile_json, profile_table};

use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::view::View;
use crate::graph::{Array, Backend, Buffer, Node};
use crate::plan::cache::{CacheStats, PlanCache};
use crate::plan::{DeviceInfo, Plan};
use codegen::{Param, Sizes};
use cudarc::driver::sys;
use launch::Prepared;
use module::Module;
use pool::device_ptr;
use profile::HostSeconds;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

fn no_device(why: impl Into<String>) -> Diagnostic {
    Diagnostic::spanless("E0404", format!("no usable CUDA device: {}", why.into()))
        .with_hint("run with the CPU backend (`--backend cpu`), or check the NVIDIA driver with `nvidia-smi`")
}

fn cuda_error(what: &str, e: impl std::fmt::Debug) -> Diagnostic {
    // E0499: an internal failure (driver, NVRTC); E0405 is taken by recursion depth
    Diagnostic::spanless("E0499", format!("CUDA error while {what}: {e:?}"))
}

pub struct CudaBackend {
    ctx: Arc<cudarc::driver::CudaContext>,
    pool: Rc<Pool>,
    info: DeviceInfo,
    /// NVRTC with its options and the disk cache.
    compiler: compile::Compiler,
    modules: RefCell<HashMap<u64, Rc<Module>>>,
    /// CUBINs compiled ahead by `precompile`, not yet loaded.
    images: RefCell<HashMap<u64, Vec<u8>>>,
    /// Per-kernel timings of the launches since profiling was switched on.
    profile: RefCell<Option<Vec<KernelTiming>>>,
    /// Device-to-device copy bandwidth, measured once, the first time profiling starts.
    copy_gb_s: RefCell<Option<Option<f64>>>,
    /// Counts for tests and `arr explain --stats`: compiles, disk hits, memory hits.
    pub stats: RefCell<[u64; 3]>,
    /// Seconds spent in NVRTC.
    pub compile_seconds: RefCell<f64>,
    /// Host seconds by activity, for the profile.
    host: RefCell<HostSeconds>,
    /// Plans by graph structure, each kernel with its module: a loop plans once.
    plans: RefCell<PlanCache<Rc<Prepared>>>,
    /// Which kernels have met a second shape and get shape-generic modules.
    classes: RefCell<classes::ShapeClasses>,
    /// cuBLAS, loaded on the first f32/f64 matmul (`Some(None)`: not available).
    blas: RefCell<Option<Option<Rc<blas::Blas>>>>,
    /// cuSOLVER, loaded on the first `inv`/`solve`/`det` (`Some(None)`: not available).
    solver: RefCell<Option<Option<Rc<solver::Solver>>>>,
}

fn probe() -> Result<(), Diagnostic> {
    // SAFETY: these only try to load the shared libraries; a failure is caught.
    let present = std::panic::catch_unwind(|| unsafe {
        (
            cudarc::driver::sys::is_culib_present(),
            cudarc::nvrtc::sys::is_culib_present(),
        )
    });
    match present {
        Ok((true, true)) => Ok(()),
        Ok((false, _)) => Err(no_device("the NVIDIA driver library (libcuda) was not found")),
        Ok((true, false)) => Err(no_device("the NVRTC library (libnvrtc) was not found")),
        Err(_) => Err(no_device("loading the CUDA libraries failed")),
    }
}

impl CudaBackend {
    pub fn new() -> Result<CudaBackend, Diagnostic> {
        probe()?;
        // started first: their NVRTC warms up while the driver creates the context
        let workers = worker::Workers::start().map(std::sync::Arc::new);
        let ctx = std::panic::catch_unwind(|| cudarc::driver::CudaContext::new(0))
            .map_err(|_| no_device("initialising the driver failed"))?
            .map_err(|e| no_device(format!("{e:?}")))?;
        let attr = |a| ctx.attribute(a).unwrap_or(0);
        use sys::CUdevice_attribute::*;
        let (major, minor) = ctx.compute_capability().map_err(|e| no_device(format!("{e:?}")))?;
        let info = DeviceInfo {
            name: ctx.name().unwrap_or_else(|_| "CUDA device".into()),
            sm_count: attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).max(1) as u32,
            arch: (major * 10 + minor) as u32,
            max_threads_per_sm: attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR).max(256) as u32,
            gpu_kernels: true,
        };
        let mut v = (0i32, 0i32);
        // SAFETY: NVRTC is loaded (`probe`) and writes two ints into `v`.
        unsafe {
            let _ = cudarc::nvrtc::sys::nvrtcVersion(&mut v.0, &mut v.1);
        }
        let compiler = compile::Compiler {
            arch: info.arch,
            // `-minimal` (NVRTC 12.4+) leaves out texture, device-runtime and driver-type
            // headers the kernels never use: 62 ms -> 8 ms per module on an H200
            extra_opts: std::env::var("ARR_NVRTC_OPTS")
                .map(|v| v.split_whitespace().map(str::to_string).collect())
                .unwrap_or_else(|_| vec!["-minimal".to_string()]),
            cache_dir: std::env::var_os("ARR_CACHE_DIR")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("arr"))),
            dump_dir: std::env::var_os("ARR_DUMP_DIR").map(PathBuf::from),
            nvrtc_version: v,
            workers,
        };
        let pool = Rc::new(Pool {
            _ctx: ctx.clone(),
            free: RefCell::new(HashMap::new()),
            cached: RefCell::new(0),
            driver_allocs: Cell::new((0, 0.0)),
            arena: Cell::new((0, 0)),
        });
        Ok(CudaBackend {
            ctx,
            pool,
            info,
            compiler,
            modules: RefCell::new(HashMap::new()),
            images: RefCell::new(HashMap::new()),
            profile: RefCell::new(None),
            copy_gb_s: RefCell::new(None),
            stats: RefCell::new([0; 3]),
            compile_seconds: RefCell::new(0.0),
            host: RefCell::new(HostSeconds::default()),
            plans: RefCell::new(PlanCache::new()),
            classes: RefCell::new(classes::ShapeClasses::new()),
            blas: RefCell::new(None),
            solver: RefCell::new(None),
        })
    }

    pub fn device_info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Graphs planned from scratch and plans taken from the plan cache.
    pub fn plan_stats(&self) -> CacheStats {
        self.plans.borrow().stats
    }

    /// cuBLAS, loaded on first use; `None` where the library is missing.
    fn blas(&self) -> Option<Rc<blas::Blas>> {
        self.blas
            .borrow_mut()
            .get_or_insert_with(|| blas::Blas::new().map(Rc::new))
            .clone()
    }

    /// cuSOLVER, loaded on first use; `None` where the library is missing.
    fn solver(&self) -> Option<Rc<solver::Solver>> {
        self.solver
            .borrow_mut()
            .get_or_insert_with(|| solver::Solver::new().map(Rc::new))
            .clone()
    }

    pub fn synchronize(&self) -> Result<(), Diagnostic> {
        self.ctx.synchronize().map_err(|e| cuda_error("synchronising", e))
    }

    /// Plans `nodes` for this device without running them.
    pub fn plan(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Plan {
        crate::plan::plan(nodes, outputs, &self.info)
    }
}

impl Backend for CudaBackend {
    fn describe(&self) -> String {
        format!("cuda: {} (sm_{})", self.info.name, self.info.arch)
    }

    fn execute(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Result<(), Diagnostic> {
        if storage_only::needs_host(nodes) {
            return self.host_timed(|h| &mut h.realize, || self.run_on_host(nodes));
        }
        self.host_timed(|h| &mut h.realize, || self.run_graph(nodes, outputs))
    }

    fn read(&self, buffer: &Buffer, view: &View, dtype: DType) -> Result<HostData, Diagnostic> {
        self.host_timed(|h| &mut h.read, || self.read_to_host(buffer, view, dtype))
    }

    fn write(&self, dst: &Buffer, dst_view: &View, src: &Array) -> Result<(), Diagnostic> {
        self.ensure_device(dst)?;
        let src_buffer = src
            .node
            .buffer()
            .ok_or_else(|| Diagnostic::spanless("E0499", "internal: source not realized"))?;
        let (dp, _) = device_ptr(dst).ok_or_else(|| Diagnostic::spanless("E0499", "internal: no device buffer"))?;
        // A contiguous source in another buffer (a stencil's freshly computed
        // interior) is scattered as it is; otherwise copy it first, since it
        // may view the very buffer being written.
        let direct = src.view.is_contiguous()
            && device_ptr(&src_buffer).is_some_and(|(p, len)| p != dp && src.view.offset + src.view.size() <= len);
        let (tmp_buf, src_off) = if direct {
            (src_buffer.clone(), src.view.offset as u64)
        } else {
            let tmp = self.gather(&src_buffer, &src.view, src.dtype())?;
            let b = tmp
                .buffer()
                .ok_or_else(|| Diagnostic::spanless("E0499", "internal: gather failed"))?;
            (b, 0)
        };
        let (sp, _) = device_ptr(&tmp_buf).ok_or_else(|| Diagnostic::spanless("E0499", "internal: gather failed"))?;
        if dst_view.size() == 0 {
            return Ok(());
        }
        let chosen = self.host_timed(
            |h| &mut h.codegen,
            || self.classes.borrow_mut().scatter_chosen(src.dtype(), dst_view),
        );
        let module = self.module_hashed(&chosen.generated, chosen.hash)?;
        let g = chosen.generated;
        let mut values: Vec<u64> = g
            .params
            .iter()
            .map(|p| match *p {
                Param::Out => dp,
                Param::Ptr(_) => sp,
                Param::Off(0) => src_off,
                Param::Off(1) => dst_view.offset as u64,
                Param::Dim(d) => dst_view.dim(d) as u64,
                Param::Part | Param::OutN(_) | Param::Off(_) | Param::Key(_) | Param::Aux(_) => 0,
            })
            .collect();
        let grid = (dst_view.size() as u64)
            .div_ceil(256)
            .min(self.info.sm_count as u64 * 32) as u32;
        self.launch(module.main, (grid, 1), 256, &mut values)
    }

    fn adopt(&self, data: HostData) -> Result<Buffer, Diagnostic> {
        Ok(Buffer::device(Box::new(self.upload(&data)?)))
    }

    fn explain(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> String {
        self.plan(nodes, outputs).to_string()
    }

    fn start_profiling(&self) {
        self.start_profile();
    }

    fn profile_report(&self) -> Option<String> {
        let prof = self.profile.borrow();
        let timings = prof.as_ref()?;
        Some(profile_table(timings, &self.profile_summary()))
    }

    fn profile_json(&self) -> Option<String> {
        let prof = self.profile.borrow();
        let timings = prof.as_ref()?;
        Some(profile_json(timings, &self.profile_summary()))
    }

    fn lu(&self, job: crate::graph::linalg::LuJob, a: &Array, b: Option<&Array>) -> Option<Result<Array, Diagnostic>> {
        Some(self.lu_job(job, a, b))
    }

    fn bincount(&self, x: &Array, weights: Option<&Array>, minlength: usize) -> Option<Result<Array, Diagnostic>> {
        self.bincount_job(x, weights, minlength)
    }

    fn sort(&self, x: &Array, argsort: bool) -> Option<Result<Array, Diagnostic>> {
        self.sort_job(x, argsort)
    }

    fn compress(&self, x: Option<&Array>, mask: &Array) -> Option<Result<Array, Diagnostic>> {
        self.compress_job(x, mask)
    }
}
