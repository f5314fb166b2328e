//! Compilation: NVRTC for the device's own architecture, with the extra
//! options (`-minimal`, `ARR_NVRTC_OPTS`) and the plain compile as fallback.

// Diagnostic is the crate's one error type; boxing it here alone would buy nothing.
#![allow(clippy::result_large_err)]

use super::{CudaBackend, cuda_error};
use crate::diag::Diagnostic;
use std::ffi::CString;

impl CudaBackend {
    pub(super) fn compile(&self, source: &str) -> Result<Vec<u8>, Diagnostic> {
        match self.compile_with(source, &self.extra_opts) {
            // an older NVRTC may not know an extra option: the plain compile is the reference
            Err(_) if !self.extra_opts.is_empty() => self.compile_with(source, &[]),
            other => other,
        }
    }

    pub(super) fn compile_with(&self, source: &str, extra: &[String]) -> Result<Vec<u8>, Diagnostic> {
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
}
