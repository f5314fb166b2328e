//! Compilation: NVRTC for the device's own architecture, with the extra
//! options (`-minimal`, `ARR_NVRTC_OPTS`) and the plain compile as fallback,
//! in the compile workers (`worker`) where the `arr` command started them,
//! else in this process; the disk cache of CUBINs (`ARR_CACHE_DIR`); several
//! modules at once on host threads; and the source dumps of `ARR_DUMP_DIR`.

// Diagnostic is the crate's one error type; boxing it here alone would buy nothing.
#![allow(clippy::result_large_err)]

use super::codegen::Generated;
use super::worker;
use super::{CudaBackend, cuda_error};
use crate::diag::Diagnostic;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// What a compile needs, shareable with the compiling threads.
#[derive(Clone)]
pub(super) struct Compiler {
    pub(super) arch: u32,
    /// NVRTC options from `ARR_NVRTC_OPTS` (default `-minimal`).
    pub(super) extra_opts: Vec<String>,
    pub(super) cache_dir: Option<PathBuf>,
    /// Where every generated source is written (`ARR_DUMP_DIR`).
    pub(super) dump_dir: Option<PathBuf>,
    pub(super) nvrtc_version: (i32, i32),
    /// NVRTC in child processes (`worker`), when the `arr` command started them.
    pub(super) workers: Option<std::sync::Arc<worker::Workers>>,
}

impl Compiler {
    /// The module cache key: the source and everything the CUBIN depends on.
    pub(super) fn key(&self, source: &str) -> u64 {
        self.key_of(super::classes::source_hash(source))
    }

    /// The key of a source known by its hash (`classes::source_hash`), so
    /// that a launch hashes its source once.
    pub(super) fn key_of(&self, source_hash: u64) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        source_hash.hash(&mut h);
        self.arch.hash(&mut h);
        self.nvrtc_version.hash(&mut h);
        self.extra_opts.hash(&mut h);
        h.finish()
    }

    fn cubin_path(&self, key: u64) -> Option<PathBuf> {
        self.cache_dir
            .as_ref()
            .map(|d| d.join(format!("{key:016x}-sm{}.cubin", self.arch)))
    }

    /// The cached CUBIN for `key`, if the disk cache has it.
    pub(super) fn cached(&self, key: u64) -> Option<Vec<u8>> {
        self.cubin_path(key).and_then(|p| std::fs::read(p).ok())
    }

    /// Compiles `g` and stores the CUBIN in the disk cache.
    pub(super) fn compile_and_store(&self, key: u64, g: &Generated) -> Result<Vec<u8>, Diagnostic> {
        let img = self.compile(g)?;
        if let (Some(p), Some(d)) = (self.cubin_path(key), &self.cache_dir) {
            // the cache is an optimisation: failing to write it is not an error
            let _ = std::fs::create_dir_all(d);
            let tmp = p.with_extension(format!("tmp{}-{:?}", std::process::id(), std::thread::current().id()));
            if std::fs::write(&tmp, &img).is_ok() {
                let _ = std::fs::rename(&tmp, p);
            }
        }
        Ok(img)
    }

    fn compile(&self, g: &Generated) -> Result<Vec<u8>, Diagnostic> {
        let result = match self.compile_with(&g.source, &self.extra_opts) {
            // an older NVRTC may not know an extra option: the plain compile is the reference
            Err(_) if !self.extra_opts.is_empty() => self.compile_with(&g.source, &[]),
            other => other,
        };
        result.map_err(|d| {
            // keep the source that failed, and name it: the log's line numbers refer to it
            let dir = self.dump_dir.clone().unwrap_or_else(std::env::temp_dir);
            match dump_source(&dir, self.key(&g.source), g) {
                Some(p) => d.with_hint(format!("the kernel's source is in {}", p.display())),
                None => d,
            }
        })
    }

    fn compile_with(&self, source: &str, extra: &[String]) -> Result<Vec<u8>, Diagnostic> {
        let mut opts = vec![
            format!("--gpu-architecture=sm_{}", self.arch),
            "--std=c++17".to_string(),
        ];
        // extra options (`-minimal`, or ARR_NVRTC_OPTS) are part of the cache key
        opts.extend(extra.iter().cloned());
        let result = match self.workers.as_ref().and_then(|w| w.compile(source, &opts)) {
            Some(r) => r,
            None => worker::nvrtc_compile(source, &opts),
        };
        result.map_err(|r| {
            let first = r.log.lines().take(20).collect::<Vec<_>>().join("\n");
            cuda_error("compiling a generated kernel", format_args!("{}", r.error))
                .with_hint(format!("NVRTC log:\n{first}"))
        })
    }
}

/// Writes `g`'s source, headed by its plan line and module kind, into `dir`
/// as `<key>.cu`; returns the path written. Also `arr explain`'s dump, which
/// needs no GPU, so that NVRTC can be timed on any machine.
pub(super) fn dump_source(dir: &Path, key: u64, g: &Generated) -> Option<PathBuf> {
    let _ = std::fs::create_dir_all(dir);
    let path = dir.join(format!("{key:016x}.cu"));
    let text = format!("// {}\n// module: {}\n{}", g.label, g.kind.name(), g.source);
    std::fs::write(&path, text).ok().map(|_| path)
}

/// How many modules compile at once: one per compile worker, else one per
/// core (NVRTC in this process).
fn compile_threads(workers: Option<&worker::Workers>) -> usize {
    match workers.map(|w| w.count()) {
        Some(n) if n > 0 => n,
        _ => std::thread::available_parallelism().map_or(4, |n| n.get()),
    }
}

/// A compile's result and its seconds in NVRTC.
type Compiled = (Result<Vec<u8>, Diagnostic>, f64);

impl CudaBackend {
    /// Compiles the sources of `gens` not in either cache, on up to one host
    /// thread per core, into the disk cache and `self.images`, so that the
    /// launches that follow find them; a realize that needs several new
    /// modules waits for the slowest compile rather than for their sum.
    /// Errors are left for the launch that needs the module to report.
    pub(super) fn precompile(&self, gens: &[(&Generated, u64)]) {
        let mut todo: Vec<(u64, &Generated)> = Vec::new();
        for &(g, source_hash) in gens {
            let key = self.compiler.key_of(source_hash);
            if self.modules.borrow().contains_key(&key)
                || self.images.borrow().contains_key(&key)
                || todo.iter().any(|(k, _)| *k == key)
            {
                continue;
            }
            if !g.problems.is_empty() || self.compiler.cubin_path(key).is_some_and(|p| p.exists()) {
                continue;
            }
            todo.push((key, g));
        }
        if todo.len() < 2 {
            return;
        }
        let threads = compile_threads(self.compiler.workers.as_deref()).min(todo.len());
        if threads < 2 {
            return;
        }
        let compiler = &self.compiler;
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results: Vec<Vec<(usize, Compiled)>> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        let mut done = Vec::new();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some((key, g)) = todo.get(i) else { break };
                            let t = std::time::Instant::now();
                            let r = compiler.compile_and_store(*key, g);
                            done.push((i, (r, t.elapsed().as_secs_f64())));
                        }
                        done
                    })
                })
                .collect();
            workers.into_iter().filter_map(|w| w.join().ok()).collect()
        });
        let mut wall = 0f64;
        for (i, (r, secs)) in results.into_iter().flatten() {
            wall = wall.max(secs);
            if let Ok(img) = r {
                self.stats.borrow_mut()[0] += 1;
                self.images.borrow_mut().insert(todo[i].0, img);
            }
        }
        // the profile's NVRTC seconds are wall time: what the user waited
        *self.compile_seconds.borrow_mut() += wall;
    }
}
