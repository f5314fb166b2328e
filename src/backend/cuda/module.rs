//! Modules: the in-memory and on-disk (`ARR_CACHE_DIR`) caches of compiled
//! kernels, loading a CUBIN into the context and finding its entry points.

// Diagnostic is the crate's one error type; boxing it here alone would buy nothing.
#![allow(clippy::result_large_err)]

use super::codegen::Generated;
use super::{CudaBackend, cuda_error};
use crate::diag::Diagnostic;
use cudarc::driver::result as cu;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};
use std::hash::{Hash, Hasher};
use std::rc::Rc;

pub(super) struct Module {
    pub(super) _module: sys::CUmodule,
    pub(super) main: sys::CUfunction,
    pub(super) finish: Option<sys::CUfunction>,
    /// The module's `arr_error` flag, when its code can raise one.
    pub(super) error_flag: Option<sys::CUdeviceptr>,
}

impl Module {
    /// Another entry point of the module, by name.
    pub(super) fn function(&self, name: &str) -> Result<sys::CUfunction, Diagnostic> {
        let cname = CString::new(name).map_err(|e| cuda_error("naming a kernel", e))?;
        unsafe { cu::module::get_function(self._module, cname) }.map_err(|e| cuda_error("finding a kernel", e))
    }
}

impl CudaBackend {
    pub(super) fn module(&self, g: &Generated) -> Result<Rc<Module>, Diagnostic> {
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
}
