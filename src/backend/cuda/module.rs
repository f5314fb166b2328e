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
        // SAFETY: the module is loaded for as long as `self` lives.
        unsafe { cu::module::get_function(self._module, cname) }.map_err(|e| cuda_error("finding a kernel", e))
    }
}

impl CudaBackend {
    /// The loaded module for `g`: from memory, else from a CUBIN compiled
    /// ahead (`precompile`), the disk cache or NVRTC, then loaded.
    // kept for modules made outside `ShapeClasses`, which have no hash yet
    #[allow(dead_code)]
    pub(super) fn module(&self, g: &Generated) -> Result<Rc<Module>, Diagnostic> {
        self.module_hashed(g, super::classes::source_hash(&g.source))
    }

    /// `module`, for a source whose hash the caller has (`classes::Chosen`).
    pub(super) fn module_hashed(&self, g: &Generated, source_hash: u64) -> Result<Rc<Module>, Diagnostic> {
        if !g.problems.is_empty() {
            return Err(Diagnostic::spanless(
                "E0499",
                format!("internal: a generated kernel is malformed ({})", g.problems.join("; ")),
            ));
        }
        let key = self.compiler.key_of(source_hash);
        if let Some(m) = self.modules.borrow().get(&key) {
            self.stats.borrow_mut()[2] += 1;
            return Ok(m.clone());
        }
        if let Some(dir) = &self.compiler.dump_dir {
            super::compile::dump_source(dir, key, g);
        }
        let ahead = self.images.borrow_mut().remove(&key);
        let image = match ahead {
            Some(img) => img,
            None => match self.host_timed(|h| &mut h.load, || self.compiler.cached(key)) {
                Some(img) => {
                    self.stats.borrow_mut()[1] += 1;
                    img
                }
                None => {
                    let t = std::time::Instant::now();
                    let img = self.compiler.compile_and_store(key, g)?;
                    *self.compile_seconds.borrow_mut() += t.elapsed().as_secs_f64();
                    self.stats.borrow_mut()[0] += 1;
                    img
                }
            },
        };
        let module = self
            .host_timed(
                |h| &mut h.load,
                // SAFETY: `image` is a complete CUBIN from NVRTC (or the cache
                // of its earlier output) and outlives the call, which copies it.
                || unsafe { cu::module::load_data(image.as_ptr() as *const c_void) },
            )
            .map_err(|e| cuda_error("loading a compiled kernel", e))?;
        // SAFETY: `module` was loaded above and is never unloaded while the backend lives.
        let get = |name: &str| unsafe { cu::module::get_function(module, CString::new(name).unwrap_or_default()) };
        let main = get("arr_main").map_err(|e| cuda_error("finding a kernel", e))?;
        let finish = if g.finish {
            Some(get("arr_finish").map_err(|e| cuda_error("finding a kernel", e))?)
        } else {
            None
        };
        let error_flag = if g.raises {
            let name = CString::new("arr_error").unwrap_or_default();
            Some(
                // SAFETY: as above; `arr_error` is the prelude's flag, present in every module.
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
