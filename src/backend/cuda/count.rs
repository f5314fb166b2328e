//! `bincount` on the device: the bin count from a min/max reduction (two
//! scalars read back), then one atomic pass over the input into a zeroed
//! histogram (`kernels/count.cu`): a shared-memory histogram per block for
//! few bins, global atomics for many. Weighted counts add f64 weights with
//! f64 atomics (their order of addition varies, so the last bits may differ
//! from the host's sequential sums). Inputs with a negative element go back
//! to the host path, which reports the first offender as the CPU does.

use super::{CudaBackend, cuda_error};
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::op::ReduceOp;
use crate::graph::{Array, Buffer, build, realize, to_host};

const PRELUDE: &str = include_str!("../../../kernels/prelude.cu");
const COUNT: &str = include_str!("../../../kernels/count.cu");

/// Bins up to this many are counted in shared memory first (8 bytes a bin).
pub const SHARED_BINS: usize = 2048;

/// Above this many bins the host path decides (its size checks and errors).
const MAX_BINS: usize = 1 << 31;

/// The CUDA source of a bincount over `x` of dtype `x_dtype` into `bins` bins,
/// weighted (f64 sums) or not (u64 counts).
pub fn bincount_source(x_dtype: DType, weighted: bool, bins: usize) -> String {
    let name = if bins <= SHARED_BINS {
        "bincount_shared"
    } else {
        "bincount_global"
    };
    let marker = format!("//@@ {name}\n");
    let start = COUNT.find(&marker).map(|s| s + marker.len()).unwrap_or(COUNT.len());
    let end = COUNT[start..].find("//@@ ").map(|e| start + e).unwrap_or(COUNT.len());
    let x = if x_dtype == DType::I32 { "int" } else { "long long" };
    let (w, one) = if weighted {
        ("double", "w[i]")
    } else {
        ("unsigned long long", "1ull")
    };
    let body = COUNT[start..end]
        .replace("@X@", x)
        .replace("@W@", w)
        .replace("@WEIGHT@", one)
        .replace("@BINS@", &bins.to_string());
    format!("{PRELUDE}\n{body}")
}

impl CudaBackend {
    /// NumPy's `bincount(x, weights, minlength)` for a 1-D integer `x`
    /// (`weights` of its shape); `None` for the host path.
    pub(super) fn bincount_job(
        &self,
        x: &Array,
        weights: Option<&Array>,
        minlength: usize,
    ) -> Option<Result<Array, Diagnostic>> {
        if x.size() == 0 || !matches!(x.dtype(), DType::I32 | DType::I64) {
            return None;
        }
        let span = 0..0;
        let bounds = (|| -> Result<(i64, i64), Diagnostic> {
            let lo = build::reduce(ReduceOp::Min, x, None, false, &span)?;
            let hi = build::reduce(ReduceOp::Max, x, None, false, &span)?;
            realize(self, &[&lo, &hi])?;
            Ok((to_host(self, &lo)?.get_i64(0), to_host(self, &hi)?.get_i64(0)))
        })();
        let (lo, hi) = match bounds {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        let bins = (hi as usize + 1).max(minlength);
        if lo < 0 || bins > MAX_BINS {
            return None;
        }
        Some(self.bincount_run(x, weights, bins))
    }

    fn bincount_run(&self, x: &Array, weights: Option<&Array>, bins: usize) -> Result<Array, Diagnostic> {
        let wcast = weights.map(|w| build::cast(w, DType::F64, None));
        let mut inputs = vec![x];
        inputs.extend(wcast.as_ref());
        let ops = self.flat_operands(&inputs)?;
        let (xc, xp) = (&ops[0].array, ops[0].ptr);
        let wp = ops.get(1).map_or(0, |w| w.ptr);
        let weighted = ops.len() > 1;
        let out_dtype = if weighted { DType::F64 } else { DType::I64 };
        let counts = self.alloc(out_dtype, bins)?;
        // SAFETY: `counts` was allocated for `bins` 8-byte elements just above.
        unsafe { cudarc::driver::sys::cuMemsetD8_v2(counts.ptr, 0, bins * 8).result() }
            .map_err(|e| cuda_error("clearing a histogram", e))?;
        let source = bincount_source(xc.dtype(), weighted, bins);
        let mut g = super::codegen::Generated::single(source, Vec::new(), super::codegen::Kind::Specialised);
        g.label = format!("bincount -> {out_dtype}[{bins}]");
        let module = self.module(&g)?;
        let n = xc.size() as u64;
        let grid = n.div_ceil(256).min(self.device_info().sm_count as u64 * 8).max(1) as u32;
        let mut values = [xp, wp, n, counts.ptr];
        self.launch(module.main, (grid, 1), 256, &mut values)?;
        Ok(Array::from_buffer(Buffer::device(Box::new(counts)), out_dtype, &[bins]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_bins_count_in_shared_memory() {
        let s = bincount_source(DType::I64, false, 10);
        assert!(s.contains("__shared__ unsigned long long h[10]"));
        assert!(s.contains("atomicAdd(&h[x[i]], 1ull)"));
        assert!(!s.contains('@'), "a hole left unfilled");
        let g = bincount_source(DType::I32, true, SHARED_BINS + 1);
        assert!(g.contains("const int* __restrict__ x") && g.contains("atomicAdd(&counts[x[i]], w[i])"));
        assert!(!g.contains("__shared__") && !g.contains('@'));
    }
}
