//! Matrix products through cuBLAS (sgemm/dgemm) for f32 and f64, on the
//! legacy default stream like every other launch, with cuBLAS's default
//! math (no TF32), so f32 results keep f32 accuracy.
//!
//! Arr's arrays are row-major; cuBLAS is column-major. Row-major C = A B,
//! stored contiguously, is column-major C^T = B^T A^T with ldc = n, so B is
//! passed first. A row-major operand with unit stride along its columns is a
//! column-major transposed matrix (`N` with ld = row stride); one with unit
//! stride along its rows is passed with `T` (ld = column stride). Anything
//! else (broadcast, negative or doubly strided views) goes to the generated kernel.

use crate::check::dtype::DType;
use crate::plan::{KernelPlan, Strategy};
use cudarc::cublas::{result as blas, sys};
use std::ffi::c_int;

/// How one row-major operand is handed to cuBLAS.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub transpose: bool,
    pub ld: i32,
}

/// The cuBLAS layout of the column-major view of a row-major `rows` x `cols`
/// operand with `strides`, as its transpose (`cols` x `rows`).
pub fn layout(rows: usize, cols: usize, strides: [isize; 2]) -> Option<Layout> {
    let fits = |v: usize| i32::try_from(v).ok();
    // the stride of a size-1 axis is never used: any valid leading dimension does
    let s0 = if rows <= 1 { cols.max(1) as isize } else { strides[0] };
    let s1 = if cols <= 1 { rows.max(1) as isize } else { strides[1] };
    if (cols <= 1 || strides[1] == 1) && s0 >= cols.max(1) as isize {
        return Some(Layout {
            transpose: false,
            ld: fits(s0 as usize)?,
        });
    }
    if (rows <= 1 || strides[0] == 1) && s1 >= rows.max(1) as isize {
        return Some(Layout {
            transpose: true,
            ld: fits(s1 as usize)?,
        });
    }
    None
}

/// A gemm call: sizes in cuBLAS's (column-major) terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gemm {
    pub m: i32,
    pub n: i32,
    pub k: i32,
    /// The first cuBLAS operand: Arr's B.
    pub a: Layout,
    /// The second: Arr's A.
    pub b: Layout,
    pub ldc: i32,
}

/// The gemm for a planned f32/f64 matmul, or `None` for the generated kernel.
pub fn gemm_for(kp: &KernelPlan) -> Option<Gemm> {
    if kp.strategy != Strategy::MatMul || !matches!(kp.out_dtype, DType::F32 | DType::F64) {
        return None;
    }
    let (a, b) = (&kp.operands.first()?.view, &kp.operands.get(1)?.view);
    if a.shape.len() != 2 || b.shape.len() != 2 {
        return None;
    }
    let (m, k, n) = (a.shape[0], a.shape[1], b.shape[1]);
    let la = layout(m, k, [a.strides[0], a.strides[1]])?;
    let lb = layout(k, n, [b.strides[0], b.strides[1]])?;
    Some(Gemm {
        m: i32::try_from(n).ok()?,
        n: i32::try_from(m).ok()?,
        k: i32::try_from(k).ok()?,
        a: lb,
        b: la,
        ldc: i32::try_from(n.max(1)).ok()?,
    })
}

/// A cuBLAS handle, made on first use.
pub struct Blas {
    handle: sys::cublasHandle_t,
}

impl Blas {
    /// `None` when libcublas cannot be loaded or a handle cannot be made.
    pub fn new() -> Option<Blas> {
        let present = std::panic::catch_unwind(|| unsafe { sys::is_culib_present() }).unwrap_or(false);
        if !present {
            return None;
        }
        let handle = std::panic::catch_unwind(blas::create_handle).ok()?.ok()?;
        // the legacy default stream, as every other launch of the backend
        unsafe {
            let _ = blas::set_stream(handle, std::ptr::null_mut());
        }
        Some(Blas { handle })
    }

    /// C = A B (row-major) for device pointers already at their views' offsets.
    pub fn run(&self, g: &Gemm, dtype: DType, a: u64, b: u64, c: u64) -> Result<(), String> {
        let op = |l: Layout| {
            if l.transpose {
                sys::cublasOperation_t::CUBLAS_OP_T
            } else {
                sys::cublasOperation_t::CUBLAS_OP_N
            }
        };
        let (ta, tb) = (op(g.a), op(g.b));
        // cuBLAS's first operand is Arr's B
        let (p1, p2) = (b, a);
        let r = unsafe {
            match dtype {
                DType::F32 => {
                    let (one, zero) = (1f32, 0f32);
                    blas::sgemm(
                        self.handle,
                        ta,
                        tb,
                        g.m as c_int,
                        g.n as c_int,
                        g.k as c_int,
                        &one,
                        p1 as *const f32,
                        g.a.ld,
                        p2 as *const f32,
                        g.b.ld,
                        &zero,
                        c as *mut f32,
                        g.ldc,
                    )
                }
                DType::F64 => {
                    let (one, zero) = (1f64, 0f64);
                    blas::dgemm(
                        self.handle,
                        ta,
                        tb,
                        g.m as c_int,
                        g.n as c_int,
                        g.k as c_int,
                        &one,
                        p1 as *const f64,
                        g.a.ld,
                        p2 as *const f64,
                        g.b.ld,
                        &zero,
                        c as *mut f64,
                        g.ldc,
                    )
                }
                other => return Err(format!("no gemm for {other}")),
            }
        };
        r.map_err(|e| format!("{e:?}"))
    }
}

impl Drop for Blas {
    fn drop(&mut self) {
        unsafe {
            let _ = blas::destroy_handle(self.handle);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_major_operands_map_to_column_major_transposes() {
        // contiguous (3, 5): column-major (5, 3) with ld 5, no transpose
        assert_eq!(
            layout(3, 5, [5, 1]),
            Some(Layout {
                transpose: false,
                ld: 5
            })
        );
        // the transpose of a contiguous (5, 3): strides (1, 3) -> op T with ld 3
        assert_eq!(layout(3, 5, [1, 3]), Some(Layout { transpose: true, ld: 3 }));
        // a column slice of a (3, 8) buffer keeps ld 8
        assert_eq!(
            layout(3, 5, [8, 1]),
            Some(Layout {
                transpose: false,
                ld: 8
            })
        );
        // a 1-D operand as a row (1, k) with whatever stride its size-1 axis has
        assert_eq!(
            layout(1, 4, [0, 1]),
            Some(Layout {
                transpose: false,
                ld: 4
            })
        );
        // ... and as a column (k, 1)
        assert_eq!(
            layout(4, 1, [1, 0]),
            Some(Layout {
                transpose: false,
                ld: 1
            })
        );
        // broadcast rows, strided both ways, reversed: not for cuBLAS
        assert_eq!(layout(3, 5, [0, 1]), None);
        assert_eq!(layout(3, 5, [10, 2]), None);
        assert_eq!(layout(3, 5, [-5, 1]), None);
    }
}
