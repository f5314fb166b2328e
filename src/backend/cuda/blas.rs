//! Matrix products through cuBLAS (sgemm/dgemm, and their strided-batched
//! forms for a stack of products, a broadcast operand at batch stride 0)
//! for f32 and f64, on the
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
    /// Products in the stack (1 for a plain 2-D product).
    pub batch: usize,
    /// Element strides between the stack's items: of the first cuBLAS operand
    /// (Arr's B), of the second (Arr's A), of C. 0 for a broadcast operand.
    pub strides: [i64; 3],
}

/// The gemm for a planned f32/f64 matmul (a 2-D product or a rank-3 stack),
/// or `None` for the generated kernel.
pub fn gemm_for(kp: &KernelPlan) -> Option<Gemm> {
    if kp.strategy != Strategy::MatMul || !matches!(kp.out_dtype, DType::F32 | DType::F64) {
        return None;
    }
    let (a, b) = (&kp.operands.first()?.view, &kp.operands.get(1)?.view);
    let rank = a.shape.len();
    if !(rank == 2 || rank == 3) || b.shape.len() != rank {
        return None;
    }
    let d = rank - 2;
    let (m, k, n) = (a.shape[d], a.shape[d + 1], b.shape[d + 1]);
    let la = layout(m, k, [a.strides[d], a.strides[d + 1]])?;
    let lb = layout(k, n, [b.strides[d], b.strides[d + 1]])?;
    let (batch, strides) = if rank == 3 {
        let count = a.shape[0];
        // a single item's stride is never used; a reversed stack is left to the kernel
        let s = |v: &crate::graph::view::View| {
            if count <= 1 {
                Some(0)
            } else {
                (v.strides[0] >= 0).then_some(v.strides[0] as i64)
            }
        };
        (count, [s(b)?, s(a)?, (m * n) as i64])
    } else {
        (1, [0, 0, 0])
    };
    Some(Gemm {
        m: i32::try_from(n).ok()?,
        n: i32::try_from(m).ok()?,
        k: i32::try_from(k).ok()?,
        a: lb,
        b: la,
        ldc: i32::try_from(n.max(1)).ok()?,
        batch,
        strides,
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

    /// C = A B (row-major) for device pointers already at their views'
    /// offsets: one gemm, or strided-batched gemms for a stack (in slices of
    /// at most `MAX_BATCH` items, a bound that every cuBLAS version takes).
    pub fn run(&self, g: &Gemm, dtype: DType, a: u64, b: u64, c: u64) -> Result<(), String> {
        let op = |l: Layout| {
            if l.transpose {
                sys::cublasOperation_t::CUBLAS_OP_T
            } else {
                sys::cublasOperation_t::CUBLAS_OP_N
            }
        };
        let (ta, tb) = (op(g.a), op(g.b));
        let esz = dtype.size_bytes() as u64;
        let mut done = 0usize;
        while done < g.batch.max(1) {
            let count = (g.batch.max(1) - done).min(MAX_BATCH);
            // cuBLAS's first operand is Arr's B
            let at = |p: u64, s: i64| p + done as u64 * s as u64 * esz;
            let (p1, p2, pc) = (at(b, g.strides[0]), at(a, g.strides[1]), at(c, g.strides[2]));
            let [s1, s2, sc] = g.strides;
            let (m, n, k) = (g.m as c_int, g.n as c_int, g.k as c_int);
            // SAFETY: the pointers are live device buffers holding every element the
            // layouts, strides and `count` reach (the planner's views lie inside them);
            // alpha and beta are host scalars, as the handle's default pointer mode expects.
            let r = unsafe {
                match (dtype, g.batch) {
                    (DType::F32, 1) => blas::sgemm(
                        self.handle,
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        &1f32,
                        p1 as *const f32,
                        g.a.ld,
                        p2 as *const f32,
                        g.b.ld,
                        &0f32,
                        pc as *mut f32,
                        g.ldc,
                    ),
                    (DType::F64, 1) => blas::dgemm(
                        self.handle,
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        &1f64,
                        p1 as *const f64,
                        g.a.ld,
                        p2 as *const f64,
                        g.b.ld,
                        &0f64,
                        pc as *mut f64,
                        g.ldc,
                    ),
                    (DType::F32, _) => blas::sgemm_strided_batched(
                        self.handle,
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        &1f32,
                        p1 as *const f32,
                        g.a.ld,
                        s1,
                        p2 as *const f32,
                        g.b.ld,
                        s2,
                        &0f32,
                        pc as *mut f32,
                        g.ldc,
                        sc,
                        count as c_int,
                    ),
                    (DType::F64, _) => blas::dgemm_strided_batched(
                        self.handle,
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        &1f64,
                        p1 as *const f64,
                        g.a.ld,
                        s1,
                        p2 as *const f64,
                        g.b.ld,
                        s2,
                        &0f64,
                        pc as *mut f64,
                        g.ldc,
                        sc,
                        count as c_int,
                    ),
                    (other, _) => return Err(format!("no gemm for {other}")),
                }
            };
            r.map_err(|e| format!("{e:?}"))?;
            done += count;
        }
        Ok(())
    }
}

/// The most products one strided-batched call takes (cuBLAS launches the
/// batch over the grid's y/z dimensions, at most 65535 each).
const MAX_BATCH: usize = 65535;

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
