//! The CUDA backend: plans each pending graph (`crate::plan`), generates and
//! compiles one module per kernel (NVRTC for the device's own architecture,
//! cached in memory and on disk), keeps arrays resident in pooled device
//! buffers, and launches on the legacy default stream so that every copy
//! and kernel is ordered without extra synchronisation.
//!
//! The driver and NVRTC are loaded at run time (cudarc `dynamic-loading`):
//! on a machine without them `CudaBackend::new` returns an E0404 diagnostic.

// Diagnostic is the crate's one error type; boxing it here alone would buy nothing.
#![allow(clippy::result_large_err)]

pub mod blas;
pub mod codegen;

use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::{Op, ReduceOp};
use crate::graph::view::View;
use crate::graph::{Array, Backend, Buffer, DeviceStorage, Node, NodeState, Storage};
use crate::plan::cache::{CacheStats, PlanCache};
use crate::plan::{DeviceInfo, KernelPlan, Plan, Source, Strategy};
use codegen::{Generated, Param};
use cudarc::driver::result as cu;
use cudarc::driver::sys;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::{CString, c_void};
use std::hash::{Hash, Hasher};
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

fn mib(b: usize) -> String {
    format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)
}

/// Size classes: powers of two up to 1 MiB, then multiples of 2 MiB, so that
/// freed blocks are reused by arrays of similar size.
fn size_class(bytes: usize) -> usize {
    let b = bytes.max(256);
    if b <= 1 << 20 {
        b.next_power_of_two()
    } else {
        b.div_ceil(2 << 20) * (2 << 20)
    }
}

/// Blocks of a size class up to this come from shared slabs: a script's
/// scalars and short vectors would otherwise cost a driver allocation each
/// (tens of microseconds, which dominate a short program).
const SLAB_CLASS_MAX: usize = 64 << 10;
const SLAB_BYTES: usize = 2 << 20;

/// Device memory pool: a free list per size class. Allocation is ordered on
/// the one stream, so a block freed after its last launch can be handed to
/// the next launch at once.
pub struct Pool {
    _ctx: Arc<cudarc::driver::CudaContext>,
    free: RefCell<HashMap<usize, Vec<sys::CUdeviceptr>>>,
    /// Bytes in the free lists of classes above `SLAB_CLASS_MAX` (given back by `trim`).
    cached: RefCell<usize>,
    /// Blocks taken from the driver (not the free lists), and the seconds that took.
    driver_allocs: Cell<(u64, f64)>,
}

impl Pool {
    fn alloc(&self, bytes: usize) -> Result<(sys::CUdeviceptr, usize), Diagnostic> {
        if bytes == 0 {
            return Ok((0, 0));
        }
        let class = size_class(bytes);
        if let Some(p) = self.free.borrow_mut().get_mut(&class).and_then(|v| v.pop()) {
            if class > SLAB_CLASS_MAX {
                *self.cached.borrow_mut() -= class;
            }
            return Ok((p, class));
        }
        if class <= SLAB_CLASS_MAX {
            // one slab, cut into blocks of this class; the rest go to the free list
            let slab = self.driver_alloc(SLAB_BYTES)?;
            let blocks = (1..SLAB_BYTES / class).map(|k| slab + (k * class) as u64);
            self.free.borrow_mut().entry(class).or_default().extend(blocks.rev());
            return Ok((slab, class));
        }
        Ok((self.driver_alloc(class)?, class))
    }

    fn driver_alloc(&self, bytes: usize) -> Result<sys::CUdeviceptr, Diagnostic> {
        let t = std::time::Instant::now();
        let fresh = unsafe { cu::malloc_sync(bytes) };
        let (n, secs) = self.driver_allocs.get();
        self.driver_allocs.set((n + 1, secs + t.elapsed().as_secs_f64()));
        match fresh {
            Ok(p) => Ok(p),
            Err(_) => {
                // give every cached block back to the driver and try once more
                self.trim();
                unsafe { cu::malloc_sync(bytes) }.map_err(|e| {
                    let (free, total) = cu::mem_get_info().unwrap_or((0, 0));
                    Diagnostic::spanless(
                        "E0403",
                        format!(
                            "out of GPU memory: an array of {} does not fit ({} free of {}; {e:?})",
                            mib(bytes),
                            mib(free),
                            mib(total)
                        ),
                    )
                    .with_hint("use smaller arrays, or release large arrays you no longer need")
                })
            }
        }
    }

    fn release(&self, ptr: sys::CUdeviceptr, class: usize) {
        if ptr == 0 {
            return;
        }
        self.free.borrow_mut().entry(class).or_default().push(ptr);
        if class > SLAB_CLASS_MAX {
            *self.cached.borrow_mut() += class;
        }
    }

    /// Gives the free blocks of large classes back to the driver (slab blocks
    /// stay: a slab can only be freed whole).
    fn trim(&self) {
        unsafe {
            let _ = cu::ctx::synchronize();
            for (_, ptrs) in self.free.borrow_mut().iter_mut().filter(|(c, _)| **c > SLAB_CLASS_MAX) {
                for p in ptrs.drain(..) {
                    let _ = cu::free_sync(p);
                }
            }
        }
        *self.cached.borrow_mut() = 0;
    }
}

/// An array's elements in device memory (bool as one byte).
pub struct DeviceBuffer {
    pub ptr: sys::CUdeviceptr,
    pub len: usize,
    pub dtype: DType,
    class: usize,
    pool: Rc<Pool>,
}

impl DeviceStorage for DeviceBuffer {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
    fn len(&self) -> usize {
        self.len
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        self.pool.release(self.ptr, self.class);
    }
}

struct Module {
    _module: sys::CUmodule,
    main: sys::CUfunction,
    finish: Option<sys::CUfunction>,
    /// The module's `arr_error` flag, when its code can raise one.
    error_flag: Option<sys::CUdeviceptr>,
}

impl Module {
    /// Another entry point of the module, by name.
    fn function(&self, name: &str) -> Result<sys::CUfunction, Diagnostic> {
        let cname = CString::new(name).map_err(|e| cuda_error("naming a kernel", e))?;
        unsafe { cu::module::get_function(self._module, cname) }.map_err(|e| cuda_error("finding a kernel", e))
    }
}

/// One kernel's timing from `profile`.
#[derive(Clone, Debug)]
pub struct KernelTiming {
    /// The strategy with its parameters, e.g. `sliding(8 rows)`.
    pub strategy: String,
    pub output: String,
    /// The fused operations, in evaluation order.
    pub ops: String,
    pub grid: (u32, u32),
    pub block: u32,
    pub ms: f32,
    /// Every input read once plus the output written.
    pub bytes: u64,
}

/// The launches of one kernel (same strategy, output, operations and launch shape).
#[derive(Clone, Debug)]
pub struct KernelGroup {
    pub strategy: String,
    pub output: String,
    pub ops: String,
    pub grid: (u32, u32),
    pub block: u32,
    pub times_ms: Vec<f64>,
    pub bytes: u64,
}

impl KernelGroup {
    pub fn median_ms(&self) -> f64 {
        crate::trace::median(self.times_ms.clone())
    }

    pub fn total_ms(&self) -> f64 {
        self.times_ms.iter().sum()
    }

    /// Effective bandwidth at the median time.
    pub fn gb_s(&self) -> f64 {
        let ms = self.median_ms();
        if ms > 0.0 {
            self.bytes as f64 / (ms * 1e-3) / 1e9
        } else {
            0.0
        }
    }
}

/// Groups timings by kernel, in the order first launched.
pub fn group_timings(timings: &[KernelTiming]) -> Vec<KernelGroup> {
    let mut groups: Vec<KernelGroup> = Vec::new();
    for t in timings {
        let same = |g: &&mut KernelGroup| {
            g.strategy == t.strategy && g.output == t.output && g.ops == t.ops && g.grid == t.grid && g.block == t.block
        };
        match groups.iter_mut().find(same) {
            Some(g) => g.times_ms.push(t.ms as f64),
            None => groups.push(KernelGroup {
                strategy: t.strategy.clone(),
                output: t.output.clone(),
                ops: t.ops.clone(),
                grid: t.grid,
                block: t.block,
                times_ms: vec![t.ms as f64],
                bytes: t.bytes,
            }),
        }
    }
    groups
}

/// What the per-kernel table is read against: the copy ceiling and the compiler's work.
#[derive(Clone, Debug, Default)]
pub struct ProfileSummary {
    pub device: String,
    /// Device-to-device copy bandwidth measured when profiling started.
    pub copy_gb_s: Option<f64>,
    /// Seconds in NVRTC, modules compiled, loaded from the disk cache, found in memory.
    pub compile_s: f64,
    pub compiles: u64,
    pub disk_hits: u64,
    pub memory_hits: u64,
    /// Realizes planned from scratch, and realizes whose plan (and modules) came from the plan cache.
    pub plans: u64,
    pub plan_hits: u64,
    /// Host seconds: planning (plan-cache lookups and misses), reading cached
    /// CUBINs and loading modules, and `allocs` device allocations from the driver.
    pub plan_s: f64,
    pub load_s: f64,
    pub allocs: u64,
    pub alloc_s: f64,
    /// Host seconds in realizing graphs (the above included) and in reading
    /// results back (mostly waiting for the GPU).
    pub realize_s: f64,
    pub read_s: f64,
}

/// `sliding(8 rows)`, `reduce-rows(32 lanes)`: the strategy and what it was planned with.
fn strategy_label(s: &Strategy) -> String {
    let detail = match s {
        Strategy::Sliding { rows } => format!("({rows} rows)"),
        Strategy::ReduceAll { blocks } => format!("({blocks} blocks)"),
        Strategy::ReduceRows { lanes, split: 1 } => format!("({lanes} lanes)"),
        Strategy::ReduceRows { lanes, split } => format!("({lanes} lanes, split {split})"),
        Strategy::ReduceCols { split } => format!("(split {split})"),
        Strategy::Scan { axis, chunks, .. } => format!("(axis {axis}, {chunks} chunks)"),
        Strategy::ScanRows { axis, .. } => format!("(axis {axis})"),
        Strategy::ScanLookback { axis, tiles, .. } => format!("(axis {axis}, {tiles} tiles)"),
        Strategy::Concat { axis } | Strategy::Take { axis } => format!("(axis {axis})"),
        _ => String::new(),
    };
    format!("{}{detail}", s.name())
}

/// Host seconds the profile reports: where a short program's wall time goes.
#[derive(Clone, Copy, Debug, Default)]
struct HostSeconds {
    /// In `execute`: planning, code generation, loading, allocating, launching.
    realize: f64,
    /// Planning graphs (plan-cache lookups included).
    plan: f64,
    /// Reading cached CUBINs and loading modules into the context.
    load: f64,
    /// In `read`: mostly waiting for the GPU.
    read: f64,
}

pub struct CudaBackend {
    ctx: Arc<cudarc::driver::CudaContext>,
    pool: Rc<Pool>,
    info: DeviceInfo,
    nvrtc_version: (i32, i32),
    modules: RefCell<HashMap<u64, Rc<Module>>>,
    cache_dir: Option<PathBuf>,
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
    /// NVRTC options from `ARR_NVRTC_OPTS`.
    extra_opts: Vec<String>,
    /// Plans by graph structure, each kernel with its module: a loop plans once.
    plans: RefCell<PlanCache<Rc<Prepared>>>,
    /// cuBLAS, loaded on the first f32/f64 matmul (`Some(None)`: not available).
    blas: RefCell<Option<Option<Rc<blas::Blas>>>>,
}

/// What launching a planned kernel again needs: its module and parameter list.
struct Prepared {
    module: Rc<Module>,
    params: Vec<Param>,
    part_bytes: usize,
}

fn probe() -> Result<(), Diagnostic> {
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
        unsafe {
            let _ = cudarc::nvrtc::sys::nvrtcVersion(&mut v.0, &mut v.1);
        }
        let cache_dir = std::env::var_os("ARR_CACHE_DIR")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("arr")));
        let pool = Rc::new(Pool {
            _ctx: ctx.clone(),
            free: RefCell::new(HashMap::new()),
            cached: RefCell::new(0),
            driver_allocs: Cell::new((0, 0.0)),
        });
        Ok(CudaBackend {
            ctx,
            pool,
            info,
            nvrtc_version: v,
            modules: RefCell::new(HashMap::new()),
            cache_dir,
            profile: RefCell::new(None),
            copy_gb_s: RefCell::new(None),
            stats: RefCell::new([0; 3]),
            compile_seconds: RefCell::new(0.0),
            host: RefCell::new(HostSeconds::default()),
            // `-minimal` (NVRTC 12.4+) leaves out texture, device-runtime and driver-type
            // headers the kernels never use: 62 ms -> 8 ms per module on an H200
            extra_opts: std::env::var("ARR_NVRTC_OPTS")
                .map(|v| v.split_whitespace().map(str::to_string).collect())
                .unwrap_or_else(|_| vec!["-minimal".to_string()]),
            plans: RefCell::new(PlanCache::new()),
            blas: RefCell::new(None),
        })
    }

    pub fn device_info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Starts recording per-kernel times (CUDA events around each launch; this
    /// synchronises after every kernel, so use it to measure, not to run fast).
    pub fn start_profile(&self) {
        *self.profile.borrow_mut() = Some(Vec::new());
        if self.copy_gb_s.borrow().is_none() {
            let measured = self.measure_copy();
            *self.copy_gb_s.borrow_mut() = Some(measured);
        }
    }

    /// The device-to-device copy bandwidth in GB/s (bytes read + bytes written
    /// over time): the median of 10 timed `cuMemcpyDtoD` of 2^26 f32 (256 MiB,
    /// far beyond any L2) after 3 untimed. `None` when the memory is not there.
    pub fn measure_copy(&self) -> Option<f64> {
        const N: usize = 1 << 26;
        let bytes = N * 4;
        let src = unsafe { cu::malloc_sync(bytes) }.ok()?;
        let dst = match unsafe { cu::malloc_sync(bytes) } {
            Ok(p) => p,
            Err(_) => {
                unsafe {
                    let _ = cu::free_sync(src);
                }
                return None;
            }
        };
        let timed = || -> Result<f64, Diagnostic> {
            let err = |e| cuda_error("measuring the copy bandwidth", e);
            let (e0, e1) = (new_event()?, new_event()?);
            let mut times = Vec::new();
            let mut result = Ok(());
            unsafe {
                // 1.0f: real contents, not untouched pages
                result = result.and(sys::cuMemsetD32_v2(src, 0x3f80_0000, N).result().map_err(err));
                for i in 0..13 {
                    if result.is_err() {
                        break;
                    }
                    let mut ms = 0f32;
                    result = sys::cuEventRecord(e0, std::ptr::null_mut())
                        .result()
                        .and_then(|_| sys::cuMemcpyDtoDAsync_v2(dst, src, bytes, std::ptr::null_mut()).result())
                        .and_then(|_| sys::cuEventRecord(e1, std::ptr::null_mut()).result())
                        .and_then(|_| sys::cuEventSynchronize(e1).result())
                        .and_then(|_| sys::cuEventElapsedTime_v2(&mut ms, e0, e1).result())
                        .map_err(err);
                    if i >= 3 {
                        times.push(ms as f64);
                    }
                }
                let _ = sys::cuEventDestroy_v2(e0);
                let _ = sys::cuEventDestroy_v2(e1);
            }
            result?;
            let ms = crate::trace::median(times);
            Ok((2 * bytes) as f64 / (ms * 1e-3) / 1e9)
        };
        let gbs = timed();
        unsafe {
            let _ = cu::free_sync(src);
            let _ = cu::free_sync(dst);
        }
        gbs.ok().filter(|g| g.is_finite() && *g > 0.0)
    }

    /// The copy ceiling and compile counts the profile is read against.
    pub fn profile_summary(&self) -> ProfileSummary {
        let stats = *self.stats.borrow();
        ProfileSummary {
            device: self.describe(),
            copy_gb_s: self.copy_gb_s.borrow().flatten(),
            compile_s: *self.compile_seconds.borrow(),
            compiles: stats[0],
            disk_hits: stats[1],
            memory_hits: stats[2],
            plans: self.plan_stats().plans,
            plan_hits: self.plan_stats().hits,
            plan_s: self.host.borrow().plan,
            load_s: self.host.borrow().load,
            realize_s: self.host.borrow().realize,
            read_s: self.host.borrow().read,
            allocs: self.pool.driver_allocs.get().0,
            alloc_s: self.pool.driver_allocs.get().1,
        }
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

    /// Stops recording and returns the timings since `start_profile`.
    pub fn take_profile(&self) -> Vec<KernelTiming> {
        self.profile.borrow_mut().take().unwrap_or_default()
    }

    pub fn synchronize(&self) -> Result<(), Diagnostic> {
        self.ctx.synchronize().map_err(|e| cuda_error("synchronising", e))
    }

    /// Plans `nodes` for this device without running them.
    pub fn plan(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Plan {
        crate::plan::plan(nodes, outputs, &self.info)
    }

    fn alloc(&self, dtype: DType, len: usize) -> Result<DeviceBuffer, Diagnostic> {
        let (ptr, class) = self.pool.alloc(len * dtype.size_bytes())?;
        Ok(DeviceBuffer {
            ptr,
            len,
            dtype,
            class,
            pool: self.pool.clone(),
        })
    }

    fn module(&self, g: &Generated) -> Result<Rc<Module>, Diagnostic> {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        g.source.hash(&mut h);
        self.info.arch.hash(&mut h);
        self.nvrtc_version.hash(&mut h);
        self.extra_opts.hash(&mut h);
        let key = h.finish();
        if let Some(m) = self.modules.borrow().get(&key) {
            self.stats.borrow_mut()[2] += 1;
            return Ok(m.clone());
        }
        let path = self
            .cache_dir
            .as_ref()
            .map(|d| d.join(format!("{key:016x}-sm{}.cubin", self.info.arch)));
        let cached = self.host_timed(|h| &mut h.load, || path.as_ref().and_then(|p| std::fs::read(p).ok()));
        let image = match cached {
            Some(img) => {
                self.stats.borrow_mut()[1] += 1;
                img
            }
            None => {
                let t = std::time::Instant::now();
                let img = self.compile(&g.source)?;
                *self.compile_seconds.borrow_mut() += t.elapsed().as_secs_f64();
                self.stats.borrow_mut()[0] += 1;
                if let (Some(p), Some(d)) = (&path, &self.cache_dir) {
                    // the cache is an optimisation: failing to write it is not an error
                    let _ = std::fs::create_dir_all(d);
                    let tmp = p.with_extension(format!("tmp{}", std::process::id()));
                    if std::fs::write(&tmp, &img).is_ok() {
                        let _ = std::fs::rename(&tmp, p);
                    }
                }
                img
            }
        };
        let module = self
            .host_timed(
                |h| &mut h.load,
                || unsafe { cu::module::load_data(image.as_ptr() as *const c_void) },
            )
            .map_err(|e| cuda_error("loading a compiled kernel", e))?;
        let get = |name: &str| unsafe { cu::module::get_function(module, CString::new(name).unwrap_or_default()) };
        let main = get("arr_main").map_err(|e| cuda_error("finding a kernel", e))?;
        let finish = if g.finish {
            Some(get("arr_finish").map_err(|e| cuda_error("finding a kernel", e))?)
        } else {
            None
        };
        let raises = g.source.contains(" arr_imod(s") || g.source.contains(" arr_ipow(s");
        let error_flag = if raises {
            let name = CString::new("arr_error").unwrap_or_default();
            Some(
                unsafe { cu::module::get_global(module, name) }
                    .map_err(|e| cuda_error("finding a flag", e))?
                    .0,
            )
        } else {
            None
        };
        let m = Rc::new(Module {
            _module: module,
            main,
            finish,
            error_flag,
        });
        self.modules.borrow_mut().insert(key, m.clone());
        Ok(m)
    }

    fn compile(&self, source: &str) -> Result<Vec<u8>, Diagnostic> {
        match self.compile_with(source, &self.extra_opts) {
            // an older NVRTC may not know an extra option: the plain compile is the reference
            Err(_) if !self.extra_opts.is_empty() => self.compile_with(source, &[]),
            other => other,
        }
    }

    fn compile_with(&self, source: &str, extra: &[String]) -> Result<Vec<u8>, Diagnostic> {
        use cudarc::nvrtc::{result as nv, sys as nvsys};
        let src = CString::new(source).map_err(|e| cuda_error("preparing kernel source", e))?;
        let prog = nv::create_program(&src, Some(c"arr.cu")).map_err(|e| cuda_error("creating an NVRTC program", e))?;
        let mut opts = vec![
            format!("--gpu-architecture=sm_{}", self.info.arch),
            "--std=c++17".to_string(),
        ];
        // extra options (`-minimal`, or ARR_NVRTC_OPTS) are part of the cache key
        opts.extend(extra.iter().cloned());
        let res = unsafe { nv::compile_program(prog, &opts) };
        if let Err(e) = res {
            let log = unsafe { nv::get_program_log(prog) }
                .map(|l| {
                    l.iter()
                        .take_while(|&&c| c != 0)
                        .map(|&c| c as u8 as char)
                        .collect::<String>()
                })
                .unwrap_or_default();
            unsafe {
                let _ = nv::destroy_program(prog);
            }
            return Err(cuda_error("compiling a generated kernel", e).with_hint(format!("NVRTC log:\n{log}")));
        }
        let mut size = 0usize;
        let mut img;
        unsafe {
            nvsys::nvrtcGetCUBINSize(prog, &mut size)
                .result()
                .map_err(|e| cuda_error("reading a CUBIN", e))?;
            img = vec![0u8; size];
            nvsys::nvrtcGetCUBIN(prog, img.as_mut_ptr() as *mut _)
                .result()
                .map_err(|e| cuda_error("reading a CUBIN", e))?;
            let _ = nv::destroy_program(prog);
        }
        Ok(img)
    }

    /// Launches `f` with the given 64-bit parameter values.
    fn launch(&self, f: sys::CUfunction, grid: (u32, u32), block: u32, values: &mut [u64]) -> Result<(), Diagnostic> {
        let mut ptrs: Vec<*mut c_void> = values.iter_mut().map(|v| v as *mut u64 as *mut c_void).collect();
        unsafe {
            cu::launch_kernel(
                f,
                (grid.0.max(1), grid.1.max(1), 1),
                (block, 1, 1),
                0,
                std::ptr::null_mut(),
                &mut ptrs,
            )
        }
        .map_err(|e| cuda_error("launching a kernel", e))
    }

    /// Makes a host-resident buffer device-resident in place.
    fn ensure_device(&self, buffer: &Buffer) -> Result<(), Diagnostic> {
        let upload = match &*buffer.storage() {
            Storage::Host(data) => Some(self.upload(data)?),
            Storage::Device(_) => None,
        };
        if let Some(dev) = upload {
            *buffer.storage_mut() = Storage::Device(Box::new(dev));
        }
        Ok(())
    }

    fn upload(&self, data: &HostData) -> Result<DeviceBuffer, Diagnostic> {
        let buf = self.alloc(data.dtype(), data.len())?;
        if buf.len == 0 {
            return Ok(buf);
        }
        // A synchronous copy from pageable memory waits for the stream first, so a
        // statement's scalar literal would wait for every queued kernel. An async
        // copy on the same (legacy) stream stays ordered and returns once the driver
        // has staged the bytes, so the host data may go at once. Small copies only:
        // large ones gain nothing from it.
        fn put<T>(dst: sys::CUdeviceptr, src: &[T]) -> Result<(), cudarc::driver::DriverError> {
            if std::mem::size_of_val(src) <= 64 << 10 {
                unsafe { cu::memcpy_htod_async(dst, src, std::ptr::null_mut()) }
            } else {
                unsafe { cu::memcpy_htod_sync(dst, src) }
            }
        }
        let r = match data {
            HostData::Bool(v) => {
                let bytes: Vec<u8> = v.iter().map(|&b| b as u8).collect();
                put(buf.ptr, &bytes)
            }
            HostData::I32(v) => put(buf.ptr, v),
            HostData::I64(v) => put(buf.ptr, v),
            HostData::F32(v) => put(buf.ptr, v),
            HostData::F64(v) => put(buf.ptr, v),
        };
        r.map_err(|e| cuda_error("copying to the GPU", e))?;
        Ok(buf)
    }

    fn download(&self, ptr: sys::CUdeviceptr, dtype: DType, len: usize) -> Result<HostData, Diagnostic> {
        let err = |e| cuda_error("copying from the GPU", e);
        if len == 0 {
            return Ok(HostData::zeros(dtype, 0));
        }
        unsafe {
            Ok(match dtype {
                DType::Bool => {
                    let mut v = vec![0u8; len];
                    cu::memcpy_dtoh_sync(&mut v, ptr).map_err(err)?;
                    HostData::Bool(v.into_iter().map(|b| b != 0).collect())
                }
                DType::I32 => {
                    let mut v = vec![0i32; len];
                    cu::memcpy_dtoh_sync(&mut v, ptr).map_err(err)?;
                    HostData::I32(v)
                }
                DType::I64 => {
                    let mut v = vec![0i64; len];
                    cu::memcpy_dtoh_sync(&mut v, ptr).map_err(err)?;
                    HostData::I64(v)
                }
                DType::F32 => {
                    let mut v = vec![0f32; len];
                    cu::memcpy_dtoh_sync(&mut v, ptr).map_err(err)?;
                    HostData::F32(v)
                }
                DType::F64 => {
                    let mut v = vec![0f64; len];
                    cu::memcpy_dtoh_sync(&mut v, ptr).map_err(err)?;
                    HostData::F64(v)
                }
            })
        }
    }

    /// Runs one planned kernel into a fresh buffer: cuBLAS for f32/f64
    /// matmuls it can take, else the generated module (`prepared`, when the
    /// plan cache has it, skips generating and hashing the source). Returns
    /// the output and what to cache for the next launch of this kernel.
    fn run_kernel(
        &self,
        kp: &KernelPlan,
        nodes: &HashMap<u64, Rc<Node>>,
        prepared: Option<&Rc<Prepared>>,
    ) -> Result<(DeviceBuffer, Option<Rc<Prepared>>), Diagnostic> {
        if let Some(op @ (ReduceOp::Min | ReduceOp::Max | ReduceOp::ArgMin | ReduceOp::ArgMax)) = kp.reduce
            && !matches!(kp.strategy, Strategy::Segmented { .. })
            && kp.shape[kp.kept..].iter().product::<usize>() == 0
        {
            // as the CPU backend: these reductions have no identity to return
            let name = format!("{op:?}").to_lowercase();
            return Err(Diagnostic::spanless(
                "E0402",
                format!("zero-size array to reduction operation {name}, which has no identity"),
            )
            .with_hint("the reduced axes are empty; check the array's size before reducing"));
        }
        let out = self.alloc(kp.out_dtype, kp.out_size())?;
        if kp.out_size() == 0 {
            return Ok((out, None));
        }
        // keep the operand buffers borrowed (alive) until the launch is queued
        let mut keep: Vec<Buffer> = Vec::new();
        let operands: Vec<&crate::plan::Operand> = kp.operands.iter().chain(&kp.epi_operands).collect();
        let mut ptrs = Vec::with_capacity(operands.len());
        for o in &operands {
            if o.source != Source::Buffer {
                ptrs.push(0);
                continue;
            }
            let node = nodes
                .get(&o.node)
                .ok_or_else(|| Diagnostic::spanless("E0499", "internal: operand node missing"))?;
            let buffer = node
                .buffer()
                .ok_or_else(|| Diagnostic::spanless("E0499", "internal: operand not realized"))?;
            self.ensure_device(&buffer)?;
            let ptr = match &*buffer.storage() {
                Storage::Device(d) => d.as_any().downcast_ref::<DeviceBuffer>().map(|b| b.ptr),
                Storage::Host(_) => None,
            }
            .ok_or_else(|| Diagnostic::spanless("E0404", "a buffer belongs to another backend"))?;
            ptrs.push(ptr);
            keep.push(buffer);
        }
        if let Some(gemm) = blas::gemm_for(kp)
            && let Some(cublas) = self.blas()
        {
            let esz = kp.out_dtype.size_bytes() as u64;
            let a = ptrs[0] + operands[0].view.offset as u64 * esz;
            let b = ptrs[1] + operands[1].view.offset as u64 * esz;
            self.timed(kp, "matmul(cublas)".to_string(), || {
                if gemm.k == 0 {
                    // an empty sum: cuBLAS may leave C alone, so write the zeros here
                    let bytes = kp.out_size() * kp.out_dtype.size_bytes();
                    return unsafe { sys::cuMemsetD8_v2(out.ptr, 0, bytes).result() }
                        .map_err(|e| cuda_error("clearing a matrix", e));
                }
                cublas
                    .run(&gemm, kp.out_dtype, a, b, out.ptr)
                    .map_err(|e| cuda_error("running cuBLAS gemm", e))
            })?;
            drop(keep);
            return Ok((out, None));
        }
        let prep = match prepared {
            Some(p) => p.clone(),
            None => {
                let g = codegen::generate(kp);
                let module = self.module(&g)?;
                Rc::new(Prepared {
                    module,
                    params: g.params,
                    part_bytes: g.part_bytes,
                })
            }
        };
        let module = &prep.module;
        let part = self.alloc(DType::Bool, prep.part_bytes)?;
        let mut aux = Vec::with_capacity(kp.aux.len());
        for o in &kp.aux {
            let buffer = nodes
                .get(&o.node)
                .and_then(|n| n.buffer())
                .ok_or_else(|| Diagnostic::spanless("E0499", "internal: index buffer not realized"))?;
            self.ensure_device(&buffer)?;
            let (ptr, _) = device_ptr(&buffer)
                .ok_or_else(|| Diagnostic::spanless("E0404", "a buffer belongs to another backend"))?;
            aux.push(ptr + (o.view.offset * o.dtype.size_bytes()) as u64);
            keep.push(buffer);
        }
        let mut values: Vec<u64> = prep
            .params
            .iter()
            .map(|p| match *p {
                Param::Out => out.ptr,
                Param::Part => part.ptr,
                Param::Ptr(k) => ptrs[k],
                Param::Off(k) => operands[k].view.offset as u64,
                Param::Aux(k) => aux[k],
                Param::Key(k) => match operands[k].source {
                    Source::Random { key, .. } => key,
                    _ => 0,
                },
            })
            .collect();
        self.timed(kp, strategy_label(&kp.strategy), || {
            if let Strategy::Segmented { .. } = kp.strategy {
                for (name, grid) in codegen::segment_launches(kp) {
                    let f = match name {
                        "arr_main" => module.main,
                        "arr_finish" => module.finish.unwrap_or(module.main),
                        other => module.function(other)?,
                    };
                    self.launch(f, grid, 256, &mut values)?;
                }
            } else {
                self.launch(module.main, kp.grid, kp.block, &mut values)?;
            }
            if let Some(f) = module.finish
                && !matches!(kp.strategy, Strategy::Segmented { .. })
            {
                let grid = match kp.strategy {
                    Strategy::ReduceCols { .. } => (kp.grid.0, 1),
                    Strategy::ReduceAll { .. } => (1, 1),
                    _ => kp.grid,
                };
                self.launch(f, grid, 256, &mut values)?;
            }
            Ok(())
        })?;
        if let Some(flag) = module.error_flag {
            // integer modulo by zero or negative power: the CPU backend's errors
            let mut v = [0i32];
            unsafe { cu::memcpy_dtoh_sync(&mut v, flag) }.map_err(|e| cuda_error("running a kernel", e))?;
            if v[0] != 0 {
                unsafe { cu::memcpy_htod_sync(flag, &[0i32]) }.map_err(|e| cuda_error("resetting a flag", e))?;
                return Err(match v[0] {
                    1 => Diagnostic::spanless("E0400", "integer modulo by zero").with_hint(
                        "mask the zero divisors first, e.g. `a % where(b == 0, 1, b)`, or cast to float to get NaN",
                    ),
                    _ => Diagnostic::spanless("E0401", "integers cannot be raised to negative integer powers")
                        .with_hint("cast the base to float first, e.g. `(x as f64) ** n`"),
                });
            }
        }
        drop(part);
        drop(keep);
        Ok((out, Some(prep)))
    }

    /// Runs `launch` (work queued on the default stream). While profiling,
    /// brackets it with CUDA events, waits for the end, and records a
    /// `KernelTiming` for `kp` under `strategy`.
    fn timed(
        &self,
        kp: &KernelPlan,
        strategy: String,
        launch: impl FnOnce() -> Result<(), Diagnostic>,
    ) -> Result<(), Diagnostic> {
        if self.profile.borrow().is_none() {
            return launch();
        }
        let (start, end) = (new_event()?, new_event()?);
        let mut ms = 0f32;
        let run = || -> Result<(), Diagnostic> {
            unsafe { sys::cuEventRecord(start, std::ptr::null_mut()).result() }.map_err(|e| cuda_error("timing", e))?;
            launch()?;
            unsafe {
                sys::cuEventRecord(end, std::ptr::null_mut())
                    .result()
                    .map_err(|e| cuda_error("timing", e))?;
                sys::cuEventSynchronize(end)
                    .result()
                    .map_err(|e| cuda_error("running a kernel", e))?;
                let _ = sys::cuEventElapsedTime_v2(&mut ms, start, end);
            }
            Ok(())
        };
        let result = run();
        unsafe {
            let _ = sys::cuEventDestroy_v2(start);
            let _ = sys::cuEventDestroy_v2(end);
        }
        result?;
        if let Some(p) = self.profile.borrow_mut().as_mut() {
            p.push(KernelTiming {
                strategy,
                output: format!("{}{:?}", kp.out_dtype, kp.out_shape),
                ops: kp.ops.join(" "),
                grid: (kp.grid.0.max(1), kp.grid.1.max(1)),
                block: kp.block,
                ms,
                bytes: kp.bytes_read + kp.bytes_written,
            });
        }
        Ok(())
    }

    /// A contiguous device copy of what `view` sees of `buffer`.
    fn gather(&self, buffer: &Buffer, view: &View, dtype: DType) -> Result<Rc<Node>, Diagnostic> {
        let len = match &*buffer.storage() {
            Storage::Device(d) => d.len(),
            Storage::Host(h) => h.len(),
        };
        let src = Array::from_buffer(buffer.clone(), dtype, &[len]).with_view(view.clone());
        let copy = Array::pending(Op::Copy, vec![src], dtype, &view.shape, None);
        self.execute(std::slice::from_ref(&copy.node), std::slice::from_ref(&copy.node))?;
        Ok(copy.node)
    }
}

fn new_event() -> Result<sys::CUevent, Diagnostic> {
    let mut e: sys::CUevent = std::ptr::null_mut();
    // CU_EVENT_DEFAULT: cudarc's default flags disable timing
    unsafe { sys::cuEventCreate(&mut e, sys::CUevent_flags::CU_EVENT_DEFAULT as u32).result() }
        .map_err(|err| cuda_error("creating an event", err))?;
    Ok(e)
}

fn device_ptr(buffer: &Buffer) -> Option<(sys::CUdeviceptr, usize)> {
    match &*buffer.storage() {
        Storage::Device(d) => d.as_any().downcast_ref::<DeviceBuffer>().map(|b| (b.ptr, b.len)),
        Storage::Host(_) => None,
    }
}

/// The bodies of `execute` and `read`, which time them for the profile.
impl CudaBackend {
    /// Runs `f`, adding its wall time to the host-time counter `which` picks.
    fn host_timed<T>(&self, which: impl Fn(&mut HostSeconds) -> &mut f64, f: impl FnOnce() -> T) -> T {
        let t = std::time::Instant::now();
        let out = f();
        *which(&mut self.host.borrow_mut()) += t.elapsed().as_secs_f64();
        out
    }

    fn run_graph(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Result<(), Diagnostic> {
        // a loop builds the same graph each iteration: plan and generate it once
        let planned = self.host_timed(
            |h| &mut h.plan,
            || {
                self.plans
                    .borrow_mut()
                    .get_or_plan(nodes, outputs, || crate::plan::plan(nodes, outputs, &self.info))
            },
        );
        let plan = &planned.plan;
        let mut by_id: HashMap<u64, Rc<Node>> = HashMap::new();
        for n in nodes {
            by_id.insert(n.id, n.clone());
            if let NodeState::Pending { inputs, .. } = &*n.state.borrow() {
                for a in inputs {
                    by_id.insert(a.node.id, a.node.clone());
                }
            }
        }
        for (k, kp) in plan.kernels.iter().enumerate() {
            let prepared = self.plans.borrow().payload(planned.entry, k).cloned();
            let (out, prep) = self.run_kernel(kp, &by_id, prepared.as_ref()).map_err(|d| {
                match by_id.get(&kp.output).and_then(|n| n.span.clone()) {
                    Some(span) => d.or_span(&span),
                    None => d,
                }
            })?;
            if prepared.is_none()
                && let Some(p) = prep
            {
                self.plans.borrow_mut().set_payload(planned.entry, k, p);
            }
            if let Some(node) = by_id.get(&kp.output) {
                *node.state.borrow_mut() = NodeState::Ready(Buffer::device(Box::new(out)));
            }
        }
        Ok(())
    }

    fn read_to_host(&self, buffer: &Buffer, view: &View, dtype: DType) -> Result<HostData, Diagnostic> {
        if let Storage::Host(data) = &*buffer.storage() {
            return Ok(host_gather(data, view));
        }
        let n = view.size();
        if view.is_contiguous()
            && let Some((ptr, len)) = device_ptr(buffer)
            && view.offset + n <= len
        {
            return self.download(ptr + (view.offset * dtype.size_bytes()) as u64, dtype, n);
        }
        let node = self.gather(buffer, view, dtype)?;
        let b = node
            .buffer()
            .ok_or_else(|| Diagnostic::spanless("E0499", "internal: gather failed"))?;
        let (ptr, _) = device_ptr(&b).ok_or_else(|| Diagnostic::spanless("E0499", "internal: gather failed"))?;
        self.download(ptr, dtype, n)
    }
}

impl Backend for CudaBackend {
    fn describe(&self) -> String {
        format!("cuda: {} (sm_{})", self.info.name, self.info.arch)
    }

    fn execute(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Result<(), Diagnostic> {
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
        let source = codegen::scatter_source(src.dtype(), dst_view, self.info.arch);
        let g = Generated {
            source,
            params: Vec::new(),
            finish: false,
            part_bytes: 0,
        };
        let module = self.module(&g)?;
        let mut values = vec![dp, 0, sp, src_off, dst_view.offset as u64];
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
}

fn launch_shape(grid: (u32, u32), block: u32) -> String {
    if grid.1 > 1 {
        format!("{}x{}x{block}", grid.0, grid.1)
    } else {
        format!("{}x{block}", grid.0)
    }
}

/// Kernel timings grouped by kernel, slowest total first: launch shape
/// (grid x block), runs, total and median time (CUDA events), effective
/// bandwidth at the median and its share of the copy ceiling; then the
/// ceiling and the compile counts.
pub fn profile_table(timings: &[KernelTiming], summary: &ProfileSummary) -> String {
    let mut groups = group_timings(timings);
    groups.sort_by(|a, b| b.total_ms().total_cmp(&a.total_ms()));
    let mut out = format!(
        "{:<42} {:<14} {:>5} {:>10} {:>10} {:>7} {:>6}  ops\n",
        "kernel", "grid x block", "runs", "total ms", "median ms", "GB/s", "% copy"
    );
    let mut total = 0.0;
    for g in &groups {
        total += g.total_ms();
        let pct = match summary.copy_gb_s {
            Some(c) => format!("{:.0}%", 100.0 * g.gb_s() / c),
            None => "-".to_string(),
        };
        let mut ops = g.ops.clone();
        if ops.chars().count() > 40 {
            ops = ops.chars().take(39).collect::<String>() + "…";
        }
        out.push_str(&format!(
            "{:<42} {:<14} {:>5} {:>10.3} {:>10.4} {:>7.0} {:>6}  {ops}\n",
            format!("{} -> {}", g.strategy, g.output),
            launch_shape(g.grid, g.block),
            g.times_ms.len(),
            g.total_ms(),
            g.median_ms(),
            g.gb_s(),
            pct
        ));
    }
    out.push_str(&format!(
        "total: {total:.3} ms of GPU time in {} kernel launches\n",
        timings.len()
    ));
    match summary.copy_gb_s {
        Some(c) => out.push_str(&format!(
            "copy ceiling: {c:.0} GB/s (device-to-device copy of 2^26 f32, median of 10)\n"
        )),
        None => out.push_str("copy ceiling: not measured (no memory for two 256 MiB buffers)\n"),
    }
    let each = if summary.compiles > 0 {
        format!(" ({:.1} ms each)", 1e3 * summary.compile_s / summary.compiles as f64)
    } else {
        String::new()
    };
    out.push_str(&format!(
        "NVRTC: {} modules compiled in {:.3} s{each}; {} loaded from the disk cache, {} found in memory\n",
        summary.compiles, summary.compile_s, summary.disk_hits, summary.memory_hits
    ));
    out.push_str(&format!(
        "plans: {} made, {} plan cache hits\n",
        summary.plans, summary.plan_hits
    ));
    out.push_str(&format!(
        "host: {:.2} ms realizing ({:.2} ms planning, {:.2} ms loading modules, {:.2} ms in {} device allocations), {:.2} ms reading results\n",
        1e3 * summary.realize_s,
        1e3 * summary.plan_s,
        1e3 * summary.load_s,
        1e3 * summary.alloc_s,
        summary.allocs,
        1e3 * summary.read_s,
    ));
    out
}

/// The same as `profile_table` as JSON lines, kernels in the order first
/// launched: `{"kind": "kernel", ...}` per kernel, then `{"kind": "summary", ...}`.
pub fn profile_json(timings: &[KernelTiming], summary: &ProfileSummary) -> String {
    use crate::trace::{json_num, json_str};
    let mut out = String::new();
    for g in group_timings(timings) {
        let pct = summary
            .copy_gb_s
            .map_or("null".to_string(), |c| json_num(100.0 * g.gb_s() / c));
        out.push_str(&format!(
            "{{\"kind\": \"kernel\", \"strategy\": {}, \"output\": {}, \"ops\": {}, \"grid\": [{}, {}], \"block\": {}, \"runs\": {}, \"median_ms\": {}, \"first_ms\": {}, \"min_ms\": {}, \"total_ms\": {}, \"bytes\": {}, \"gb_s\": {}, \"pct_copy\": {pct}}}\n",
            json_str(&g.strategy),
            json_str(&g.output),
            json_str(&g.ops),
            g.grid.0,
            g.grid.1,
            g.block,
            g.times_ms.len(),
            json_num(g.median_ms()),
            json_num(g.times_ms[0]),
            json_num(g.times_ms.iter().copied().fold(f64::INFINITY, f64::min)),
            json_num(g.total_ms()),
            g.bytes,
            json_num(g.gb_s()),
        ));
    }
    let gpu_ms: f64 = timings.iter().map(|t| t.ms as f64).sum();
    out.push_str(&format!(
        "{{\"kind\": \"summary\", \"backend\": {}, \"launches\": {}, \"gpu_ms\": {}, \"copy_gb_s\": {}, \"compile_s\": {}, \"compiles\": {}, \"disk_hits\": {}, \"memory_hits\": {}, \"plans\": {}, \"plan_hits\": {}, \"plan_s\": {}, \"load_s\": {}, \"allocs\": {}, \"alloc_s\": {}, \"realize_s\": {}, \"read_s\": {}}}\n",
        json_str(&summary.device),
        timings.len(),
        json_num(gpu_ms),
        summary.copy_gb_s.map_or("null".to_string(), json_num),
        json_num(summary.compile_s),
        summary.compiles,
        summary.disk_hits,
        summary.memory_hits,
        summary.plans,
        summary.plan_hits,
        json_num(summary.plan_s),
        json_num(summary.load_s),
        summary.allocs,
        json_num(summary.alloc_s),
        json_num(summary.realize_s),
        json_num(summary.read_s),
    ));
    out
}

/// The elements `view` sees of host data, in row-major order.
fn host_gather(data: &HostData, view: &View) -> HostData {
    let offs = view.offsets();
    match data {
        HostData::Bool(v) => HostData::Bool(offs.iter().map(|&o| v[o]).collect()),
        HostData::I32(v) => HostData::I32(offs.iter().map(|&o| v[o]).collect()),
        HostData::I64(v) => HostData::I64(offs.iter().map(|&o| v[o]).collect()),
        HostData::F32(v) => HostData::F32(offs.iter().map(|&o| v[o]).collect()),
        HostData::F64(v) => HostData::F64(offs.iter().map(|&o| v[o]).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(strategy: &str, ms: f32) -> KernelTiming {
        KernelTiming {
            strategy: strategy.to_string(),
            output: "f32[1000]".to_string(),
            ops: "add".to_string(),
            grid: (4, 1),
            block: 256,
            ms,
            bytes: 12_000_000,
        }
    }

    #[test]
    fn groups_take_the_median_not_the_mean() {
        // a slow first launch (a cold cache) must not move the figure
        let t = vec![
            timing("map", 10.0),
            timing("map", 1.0),
            timing("map", 2.0),
            timing("broadcast", 4.0),
        ];
        let g = group_timings(&t);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].strategy, "map");
        assert_eq!(g[0].median_ms(), 2.0);
        assert_eq!(g[0].total_ms(), 13.0);
        // 12e6 bytes in 2 ms = 6 GB/s
        assert!((g[0].gb_s() - 6.0).abs() < 1e-9);
        assert_eq!(g[1].times_ms, vec![4.0]);
    }

    #[test]
    fn table_and_json_show_the_share_of_the_copy_ceiling() {
        let t = vec![timing("map", 1.0), timing("map", 3.0)];
        let summary = ProfileSummary {
            device: "cuda: test".into(),
            copy_gb_s: Some(12.0),
            compile_s: 0.03,
            compiles: 2,
            disk_hits: 1,
            memory_hits: 5,
            plans: 3,
            plan_hits: 97,
            plan_s: 0.0015,
            load_s: 0.002,
            allocs: 4,
            alloc_s: 0.00025,
            realize_s: 0.006,
            read_s: 0.0005,
        };
        // median 2 ms: 6 GB/s, half of the 12 GB/s ceiling
        let table = profile_table(&t, &summary);
        assert!(table.contains("map -> f32[1000]"), "{table}");
        assert!(table.contains("4x256"), "{table}");
        assert!(table.contains("50%"), "{table}");
        assert!(
            table.contains(
                "2 modules compiled in 0.030 s (15.0 ms each); 1 loaded from the disk cache, 5 found in memory"
            ),
            "{table}"
        );
        assert!(table.contains("plans: 3 made, 97 plan cache hits"), "{table}");
        assert!(
            table.contains("host: 6.00 ms realizing (1.50 ms planning, 2.00 ms loading modules, 0.25 ms in 4 device allocations), 0.50 ms reading results"),
            "{table}"
        );
        let json = profile_json(&t, &summary);
        let lines: Vec<&str> = json.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(
            lines[0].starts_with(r#"{"kind": "kernel", "strategy": "map""#),
            "{json}"
        );
        assert!(
            lines[0].contains(r#""grid": [4, 1], "block": 256, "runs": 2, "median_ms": 2,"#),
            "{json}"
        );
        assert!(lines[0].contains(r#""gb_s": 6, "pct_copy": 50}"#), "{json}");
        assert!(
            lines[1]
                .contains(r#""copy_gb_s": 12, "compile_s": 0.03, "compiles": 2, "disk_hits": 1, "memory_hits": 5, "plans": 3, "plan_hits": 97, "plan_s": 0.0015, "load_s": 0.002, "allocs": 4, "alloc_s": 0.00025, "realize_s": 0.006, "read_s": 0.0005}"#),
            "{json}"
        );
    }

    #[test]
    fn strategy_labels_carry_their_parameters() {
        assert_eq!(strategy_label(&Strategy::Sliding { rows: 8 }), "sliding(8 rows)");
        assert_eq!(
            strategy_label(&Strategy::ReduceRows { lanes: 32, split: 1 }),
            "reduce-rows(32 lanes)"
        );
        assert_eq!(strategy_label(&Strategy::Map), "map");
    }
}
