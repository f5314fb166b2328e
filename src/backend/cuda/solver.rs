//! `inv`, `solve` and `det` through cuSOLVER's dense LU (getrf/getrs) on the
//! legacy default stream, f32 in f32 and f64 in f64 as NumPy's LAPACK calls.
//!
//! cuSOLVER is column-major and Arr row-major, so the caller hands over each
//! matrix transposed (see `graph::linalg::LuJob`): read column-major it is A
//! itself, and getrf pivots exactly as the host LU (same rows, same exact
//! zero pivots, so the same E0420). getrs with transposition on the identity
//! solves A^T X = I: X = inv(A)^T column-major, which is inv(A) row-major;
//! getrs without it solves A X = B for a column-major B, which the caller
//! also hands over as row-major B^T, and returns X the same way. The library is loaded on first use (cudarc
//! `dynamic-loading`), so a machine without it runs everything else and
//! meets a diagnostic only here.

use super::pool::device_ptr;
use super::{CudaBackend, DeviceBuffer, cuda_error};
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::linalg::LuJob;
use crate::graph::view::View;
use crate::graph::{Array, Backend, Buffer, realize};
use cudarc::cusolver::{result as dn, sys};
use std::ffi::c_int;

/// A cuSOLVER dense handle, made on first use.
pub struct Solver {
    handle: sys::cusolverDnHandle_t,
}

impl Solver {
    /// `None` when libcusolver cannot be loaded or a handle cannot be made.
    pub fn new() -> Option<Solver> {
        // SAFETY: only tries to load the library; a failure is caught.
        let present = std::panic::catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false);
        if !present {
            return None;
        }
        let handle = std::panic::catch_unwind(dn::dn_create).ok()?.ok()?;
        // SAFETY: `handle` was just made; the null stream is the legacy default
        // stream, on which every other launch of the backend runs.
        unsafe {
            let _ = dn::dn_set_stream(handle, std::ptr::null_mut());
        }
        Some(Solver { handle })
    }

    /// Workspace elements getrf needs for an n x n matrix.
    fn work_size(&self, dtype: DType, n: c_int, a: u64) -> Result<usize, String> {
        let mut lwork: c_int = 0;
        // SAFETY: the handle is live; `a` is a device matrix of n x n elements
        // (only its address is used); `lwork` is a valid place for the answer.
        let r = unsafe {
            match dtype {
                DType::F32 => sys::cusolverDnSgetrf_bufferSize(self.handle, n, n, a as *mut f32, n, &mut lwork),
                DType::F64 => sys::cusolverDnDgetrf_bufferSize(self.handle, n, n, a as *mut f64, n, &mut lwork),
                other => return Err(format!("no getrf for {other}")),
            }
        };
        r.result().map_err(|e| format!("{e:?}"))?;
        Ok(lwork.max(1) as usize)
    }

    /// LU of the n x n column-major matrix at `a`, in place; pivots into `ipiv`, status into `info`.
    fn getrf(&self, dtype: DType, n: c_int, a: u64, work: u64, ipiv: u64, info: u64) -> Result<(), String> {
        // SAFETY: every pointer is a live device buffer of the size getrf needs
        // (n x n, the queried workspace, n pivots, one status).
        let r = unsafe {
            match dtype {
                DType::F32 => sys::cusolverDnSgetrf(
                    self.handle,
                    n,
                    n,
                    a as *mut f32,
                    n,
                    work as *mut f32,
                    ipiv as *mut c_int,
                    info as *mut c_int,
                ),
                DType::F64 => sys::cusolverDnDgetrf(
                    self.handle,
                    n,
                    n,
                    a as *mut f64,
                    n,
                    work as *mut f64,
                    ipiv as *mut c_int,
                    info as *mut c_int,
                ),
                other => return Err(format!("no getrf for {other}")),
            }
        };
        r.result().map_err(|e| format!("{e:?}"))
    }

    /// Solves op(LU) X = B in place for `nrhs` column-major right-hand sides of n rows.
    #[allow(clippy::too_many_arguments)]
    fn getrs(
        &self,
        dtype: DType,
        transpose: bool,
        n: c_int,
        nrhs: c_int,
        lu: u64,
        ipiv: u64,
        b: u64,
        info: u64,
    ) -> Result<(), String> {
        let op = if transpose {
            sys::cublasOperation_t::CUBLAS_OP_T
        } else {
            sys::cublasOperation_t::CUBLAS_OP_N
        };
        // SAFETY: every pointer is a live device buffer of the size getrs reads or
        // writes (the n x n factors, n pivots, n x nrhs values, one status).
        let r = unsafe {
            match dtype {
                DType::F32 => sys::cusolverDnSgetrs(
                    self.handle,
                    op,
                    n,
                    nrhs,
                    lu as *const f32,
                    n,
                    ipiv as *const c_int,
                    b as *mut f32,
                    n,
                    info as *mut c_int,
                ),
                DType::F64 => sys::cusolverDnDgetrs(
                    self.handle,
                    op,
                    n,
                    nrhs,
                    lu as *const f64,
                    n,
                    ipiv as *const c_int,
                    b as *mut f64,
                    n,
                    info as *mut c_int,
                ),
                other => return Err(format!("no getrs for {other}")),
            }
        };
        r.result().map_err(|e| format!("{e:?}"))
    }
}

impl Drop for Solver {
    fn drop(&mut self) {
        // SAFETY: the handle is live and dropped once.
        unsafe {
            let _ = dn::dn_destroy(self.handle);
        }
    }
}

/// The determinant from getrf's factors: U's diagonal (`diag`, n a matrix)
/// times the sign of the row swaps (`ipiv`, 1-based as LAPACK's); 0 for a
/// singular matrix (`info` > 0), as the host LU says.
pub fn det_from_lu(diag: &[f64], ipiv: &[i32], info: i32, n: usize) -> f64 {
    if info > 0 {
        return 0.0;
    }
    let swaps = ipiv.iter().enumerate().filter(|&(i, &p)| p as usize != i + 1).count();
    let sign = if swaps % 2 == 0 { 1.0 } else { -1.0 };
    diag[..n].iter().product::<f64>() * sign
}

fn no_solver() -> Diagnostic {
    Diagnostic::spanless(
        "E0404",
        "cuSOLVER (libcusolver) was not found: `inv`, `solve` and `det` need it on CUDA",
    )
    .with_hint("install the CUDA toolkit's cuSOLVER library, or run with the CPU backend (`--backend cpu`)")
}

impl CudaBackend {
    /// Runs one `LuJob` (the contract is on `LuJob`).
    pub(super) fn lu_job(&self, job: LuJob, a: &Array, b: Option<&Array>) -> Result<Array, Diagnostic> {
        let solver = self.solver().ok_or_else(no_solver)?;
        let dtype = a.dtype();
        let (count, n) = (a.shape()[0], a.shape()[1]);
        let ni = c_int::try_from(n).map_err(|_| Diagnostic::spanless("E0403", "matrix too large for cuSOLVER"))?;
        let mut inputs = vec![a];
        inputs.extend(b);
        realize(self, &inputs)?;
        let (abuf, pa) = self.operand(a)?;
        let esz = dtype.size_bytes() as u64;
        let mat = (n * n) as u64 * esz;
        fn err(what: &'static str) -> impl Fn(String) -> Diagnostic {
            move |e| cuda_error(what, e)
        }
        let lwork = solver
            .work_size(dtype, ni, pa)
            .map_err(err("sizing cuSOLVER's workspace"))?;
        let work = self.alloc(dtype, lwork)?;
        let ipiv = self.alloc(DType::I32, count * n)?;
        let info = self.alloc(DType::I32, count)?;
        for i in 0..count as u64 {
            solver
                .getrf(
                    dtype,
                    ni,
                    pa + i * mat,
                    work.ptr,
                    ipiv.ptr + i * n as u64 * 4,
                    info.ptr + i * 4,
                )
                .map_err(err("running cuSOLVER getrf"))?;
        }
        let infos = match self.download(info.ptr, DType::I32, count)? {
            HostData::I32(v) => v,
            _ => return Err(Diagnostic::spanless("E0499", "internal: getrf status")),
        };
        if let Some(&bad) = infos.iter().find(|&&v| v < 0) {
            return Err(cuda_error(
                "running cuSOLVER getrf",
                format!("argument {} is wrong", -bad),
            ));
        }
        let singular = infos.iter().any(|&v| v > 0);
        match job {
            LuJob::Det => {
                let diag_view = View {
                    shape: smallvec::smallvec![count, n],
                    strides: smallvec::smallvec![(n * n) as isize, n as isize + 1],
                    offset: a.view.offset,
                };
                let diag = self.read(&abuf, &diag_view, dtype)?;
                let pivots = match self.download(ipiv.ptr, DType::I32, count * n)? {
                    HostData::I32(v) => v,
                    _ => return Err(Diagnostic::spanless("E0499", "internal: getrf pivots")),
                };
                let dets: Vec<f64> = (0..count)
                    .map(|i| {
                        let d: Vec<f64> = (0..n).map(|j| diag.get_f64(i * n + j)).collect();
                        det_from_lu(&d, &pivots[i * n..(i + 1) * n], infos[i], n)
                    })
                    .collect();
                let host = match dtype {
                    DType::F32 => HostData::F32(dets.iter().map(|&d| d as f32).collect()),
                    _ => HostData::F64(dets),
                };
                Ok(Array::from_buffer(self.adopt(host)?, dtype, &[count]))
            }
            LuJob::Inv | LuJob::Solve => {
                if singular {
                    return Err(Diagnostic::spanless("E0420", "singular matrix"));
                }
                let (rhs, k, transpose) = match (job, b) {
                    (LuJob::Solve, Some(b)) => (self.rhs(b)?, b.shape()[1], false),
                    _ => (self.identity(dtype, count, n)?, n, true),
                };
                let (buf, pb) = rhs;
                let ki = c_int::try_from(k).map_err(|_| Diagnostic::spanless("E0403", "too many right-hand sides"))?;
                for i in 0..count as u64 {
                    solver
                        .getrs(
                            dtype,
                            transpose,
                            ni,
                            ki,
                            pa + i * mat,
                            ipiv.ptr + i * n as u64 * 4,
                            pb + i * (n * k) as u64 * esz,
                            info.ptr + i * 4,
                        )
                        .map_err(err("running cuSOLVER getrs"))?;
                }
                Ok(Array::from_buffer(buf, dtype, &[count, k, n]))
            }
        }
    }

    /// The right-hand sides: `b` is fresh and contiguous (the job's own), solved in place.
    fn rhs(&self, b: &Array) -> Result<(Buffer, u64), Diagnostic> {
        let buf = b
            .node
            .buffer()
            .ok_or_else(|| Diagnostic::spanless("E0499", "internal: operand not realized"))?;
        let (p, _) = device_ptr(&buf).ok_or_else(|| Diagnostic::spanless("E0499", "internal: no device buffer"))?;
        let off = (b.view.offset * b.dtype().size_bytes()) as u64;
        Ok((buf, p + off))
    }

    /// `count` n x n identities, contiguous, made on the device: zeros, then
    /// each matrix's diagonal as a 2-D memset (one 32-bit word every n + 1
    /// elements: 1.0f, or the high word of 1.0 whose low word is zero).
    fn identity(&self, dtype: DType, count: usize, n: usize) -> Result<(Buffer, u64), Diagnostic> {
        use cudarc::driver::sys;
        let out: DeviceBuffer = self.alloc(dtype, count * n * n)?;
        let esz = dtype.size_bytes();
        let (word, skip) = match dtype {
            DType::F32 => (1f32.to_bits(), 0),
            _ => ((1f64.to_bits() >> 32) as u32, 4),
        };
        let err = |e| cuda_error("making an identity", e);
        // SAFETY: `out` holds count * n * n elements of `esz` bytes; each memset
        // writes n words, the last at (n - 1) * (n + 1) elements past its matrix's
        // start (plus `skip` bytes inside that element), inside the matrix.
        unsafe {
            sys::cuMemsetD8Async(out.ptr, 0, count * n * n * esz, std::ptr::null_mut())
                .result()
                .map_err(err)?;
            for i in 0..count {
                let at = out.ptr + (i * n * n * esz + skip) as u64;
                sys::cuMemsetD2D32Async(at, (n + 1) * esz, word, 1, n, std::ptr::null_mut())
                    .result()
                    .map_err(err)?;
            }
        }
        let p = out.ptr;
        Ok((Buffer::device(Box::new(out)), p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn det_takes_the_sign_of_lapack_pivots() {
        // [[0, 2], [3, 4]]: one swap (ipiv [2, 2]), U diagonal [3, 2]: det -6
        assert_eq!(det_from_lu(&[3.0, 2.0], &[2, 2], 0, 2), -6.0);
        // no swaps (ipiv [1, 2, 3])
        assert_eq!(det_from_lu(&[2.0, 3.0, 4.0], &[1, 2, 3], 0, 3), 24.0);
        // two swaps cancel
        assert_eq!(det_from_lu(&[1.0, 1.0, 5.0], &[3, 3, 3], 0, 3), 5.0);
        // singular: 0 whatever U holds
        assert_eq!(det_from_lu(&[1.0, f64::NAN], &[1, 2], 2, 2), 0.0);
    }
}
