//! Profiling: per-kernel CUDA-event timings, grouped into the table and JSON
//! of `--profile`, the copy ceiling they are read against, and the host
//! seconds by activity.

// Diagnostic is the crate's one error type; boxing it here alone would buy nothing.
#![allow(clippy::result_large_err)]

use super::{CudaBackend, cuda_error};
use crate::diag::Diagnostic;
use crate::graph::Backend;
use crate::plan::{KernelPlan, Strategy};
use cudarc::driver::result as cu;
use cudarc::driver::sys;

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
    /// Host seconds generating kernel sources (to find or compile their modules).
    pub codegen_s: f64,
    pub load_s: f64,
    pub allocs: u64,
    pub alloc_s: f64,
    /// Host seconds in realizing graphs (the above included) and in reading
    /// results back (mostly waiting for the GPU).
    pub realize_s: f64,
    pub read_s: f64,
}

/// `sliding(8 rows)`, `reduce-rows(32 lanes)`: the strategy and what it was planned with.
pub(super) fn strategy_label(s: &Strategy) -> String {
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
        Strategy::TransposeTiled { paired: true, .. } => "(paired)".to_string(),
        _ => String::new(),
    };
    format!("{}{detail}", s.name())
}

/// Host seconds the profile reports: where a short program's wall time goes.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct HostSeconds {
    /// In `execute`: planning, code generation, loading, allocating, launching.
    pub(super) realize: f64,
    /// Planning graphs (plan-cache lookups included).
    pub(super) plan: f64,
    /// Generating kernel sources and choosing their shape class, for plans
    /// not from the cache (a shrinking loop's every step: LU).
    pub(super) codegen: f64,
    /// Reading cached CUBINs and loading modules into the context.
    pub(super) load: f64,
    /// In `read`: mostly waiting for the GPU.
    pub(super) read: f64,
}

impl CudaBackend {
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
        // SAFETY: plain allocations, freed below on every path.
        let src = unsafe { cu::malloc_sync(bytes) }.ok()?;
        let dst = match unsafe { cu::malloc_sync(bytes) } {
            Ok(p) => p,
            Err(_) => {
                // SAFETY: `src` came from `malloc_sync` and is not used after.
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
            // SAFETY: `src` and `dst` hold `bytes` bytes each; the events are live
            // until destroyed at the end of this block.
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
        // SAFETY: both came from `malloc_sync`, and the timed copies have finished.
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
            codegen_s: self.host.borrow().codegen,
            load_s: self.host.borrow().load,
            realize_s: self.host.borrow().realize,
            read_s: self.host.borrow().read,
            allocs: self.pool.driver_allocs.get().0,
            alloc_s: self.pool.driver_allocs.get().1,
        }
    }

    /// Stops recording and returns the timings since `start_profile`.
    pub fn take_profile(&self) -> Vec<KernelTiming> {
        self.profile.borrow_mut().take().unwrap_or_default()
    }

    /// Runs `launch` (work queued on the default stream). While profiling,
    /// brackets it with CUDA events, waits for the end, and records a
    /// `KernelTiming` for `kp` under the label `strategy` makes (only then:
    /// formatting it for every unprofiled launch was a string a statement).
    pub(super) fn timed(
        &self,
        kp: &KernelPlan,
        strategy: impl FnOnce() -> String,
        launch: impl FnOnce() -> Result<(), Diagnostic>,
    ) -> Result<(), Diagnostic> {
        if self.profile.borrow().is_none() {
            return launch();
        }
        let (start, end) = (new_event()?, new_event()?);
        let mut ms = 0f32;
        let run = || -> Result<(), Diagnostic> {
            // SAFETY: `start` and `end` are live events until destroyed below.
            unsafe { sys::cuEventRecord(start, std::ptr::null_mut()).result() }.map_err(|e| cuda_error("timing", e))?;
            launch()?;
            // SAFETY: as above; `ms` is a valid place for the elapsed time.
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
        // SAFETY: both events are live and not used after.
        unsafe {
            let _ = sys::cuEventDestroy_v2(start);
            let _ = sys::cuEventDestroy_v2(end);
        }
        result?;
        if let Some(p) = self.profile.borrow_mut().as_mut() {
            p.push(KernelTiming {
                strategy: strategy(),
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

    /// Runs `f`, adding its wall time to the host-time counter `which` picks.
    pub(super) fn host_timed<T>(&self, which: impl Fn(&mut HostSeconds) -> &mut f64, f: impl FnOnce() -> T) -> T {
        let t = std::time::Instant::now();
        let out = f();
        *which(&mut self.host.borrow_mut()) += t.elapsed().as_secs_f64();
        out
    }
}

pub(super) fn new_event() -> Result<sys::CUevent, Diagnostic> {
    let mut e: sys::CUevent = std::ptr::null_mut();
    // CU_EVENT_DEFAULT: cudarc's default flags disable timing
    // SAFETY: `e` is a valid place for the new event's handle.
    unsafe { sys::cuEventCreate(&mut e, sys::CUevent_flags::CU_EVENT_DEFAULT as u32).result() }
        .map_err(|err| cuda_error("creating an event", err))?;
    Ok(e)
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
        "host: {:.2} ms realizing ({:.2} ms planning, {:.2} ms generating sources, {:.2} ms loading modules, {:.2} ms in {} device allocations), {:.2} ms reading results\n",
        1e3 * summary.realize_s,
        1e3 * summary.plan_s,
        1e3 * summary.codegen_s,
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
        "{{\"kind\": \"summary\", \"backend\": {}, \"launches\": {}, \"gpu_ms\": {}, \"copy_gb_s\": {}, \"compile_s\": {}, \"compiles\": {}, \"disk_hits\": {}, \"memory_hits\": {}, \"plans\": {}, \"plan_hits\": {}, \"plan_s\": {}, \"codegen_s\": {}, \"load_s\": {}, \"allocs\": {}, \"alloc_s\": {}, \"realize_s\": {}, \"read_s\": {}}}\n",
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
        json_num(summary.codegen_s),
        json_num(summary.load_s),
        summary.allocs,
        json_num(summary.alloc_s),
        json_num(summary.realize_s),
        json_num(summary.read_s),
    ));
    out
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
            codegen_s: 0.001,
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
            table.contains("host: 6.00 ms realizing (1.50 ms planning, 1.00 ms generating sources, 2.00 ms loading modules, 0.25 ms in 4 device allocations), 0.50 ms reading results"),
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
                .contains(r#""copy_gb_s": 12, "compile_s": 0.03, "compiles": 2, "disk_hits": 1, "memory_hits": 5, "plans": 3, "plan_hits": 97, "plan_s": 0.0015, "codegen_s": 0.001, "load_s": 0.002, "allocs": 4, "alloc_s": 0.00025, "realize_s": 0.006, "read_s": 0.0005}"#),
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
