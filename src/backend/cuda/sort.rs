//! Sorting and boolean-mask compaction on the device, so that `sort`,
//! `argsort` and `x[mask]` of a device-resident array make no host round
//! trip.
//!
//! The sort is a stable LSD radix sort, 8 bits a pass (`kernels/sort.cu`),
//! of keys whose unsigned order is NumPy's (NaN last). Rows sort together:
//! their row number is the most significant digits, taken from each
//! element's carried source index in extra passes. Each pass is an upsweep
//! (per-block digit counts), one block's scan of them (`kernels/scan.cu`),
//! and a downsweep. The scan flags a pass whose digit is the same for every
//! key (the high bytes of small integers, the row passes of a one-row sort);
//! the host reads the flag and skips that pass's downsweep.
//!
//! Compaction (`kernels/compress.cu`) counts each block's true mask bytes,
//! scans the counts, reads the total back to size the output, then writes
//! each tile's selection in order through shared memory; with no values it
//! writes the positions (`flatnonzero`).

use super::codegen::{Generated, Kind};
use super::module::Module;
use super::{CudaBackend, DeviceBuffer, cuda_error};
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::{Array, Buffer, build};
use cudarc::driver::result as cu;
use cudarc::driver::sys;
use std::rc::Rc;

const SORT: &str = include_str!("../../../kernels/sort.cu");
const COMPRESS: &str = include_str!("../../../kernels/compress.cu");
const SCAN: &str = include_str!("../../../kernels/scan.cu");

/// Threads of a sort or compaction block (`THREADS` in the kernels).
const THREADS: u32 = 256;
/// Blocks per SM of the sort's passes: one wave at the downsweep's occupancy
/// (two blocks' registers, measured on an H100 against 2, 3 and 5).
const SORT_BLOCKS_PER_SM: usize = 4;
/// Blocks per SM of a compaction.
const COMPRESS_BLOCKS_PER_SM: usize = 8;
const RADIX: usize = 256;

// the kernels' `flags` bits
const F_FIRST: u64 = 1;
const F_LAST: u64 = 2;
const F_PAYLOAD: u64 = 4;
const F_ROW: u64 = 8;
const F_ARGSORT: u64 = 16;
const F_CANON: u64 = 32;

/// Keys per tile of the sort: `ITEMS` per thread (16 for 4-byte keys, 8 for 8-byte).
fn sort_tile(key_bytes: usize) -> usize {
    THREADS as usize * if key_bytes == 4 { 16 } else { 8 }
}

/// Compaction tile: `PER` mask bytes a thread.
const COMPRESS_TILE: usize = THREADS as usize * 16;

fn c_type(dtype: DType) -> Option<&'static str> {
    Some(match dtype {
        DType::F32 => "float",
        DType::F64 => "double",
        DType::I32 => "int",
        DType::I64 => "long long",
        _ => return None,
    })
}

/// The sort module for elements of `dtype` (f32, f64, i32 or i64).
pub fn sort_source(dtype: DType) -> Option<String> {
    Some(format!("{SCAN}\n{}", SORT.replace("@T@", c_type(dtype)?)))
}

/// The compaction module for elements of `bytes` bytes, or for i64 positions.
pub fn compress_source(bytes: Option<usize>) -> String {
    let e = match bytes {
        None => "long long",
        Some(1) => "unsigned char",
        Some(2) => "unsigned short",
        Some(4) => "unsigned int",
        Some(_) => "unsigned long long",
    };
    format!("{SCAN}\n{}", COMPRESS.replace("@E@", e))
}

/// Blocks and tiles per block for `tiles` tiles, at most `max_blocks` blocks.
fn partition(tiles: usize, max_blocks: usize) -> (usize, usize) {
    let tiles = tiles.max(1);
    let blocks = tiles.min(max_blocks.max(1));
    let per = tiles.div_ceil(blocks);
    (tiles.div_ceil(per), per)
}

/// The sort's passes: (digit of the row number?, shift), least significant
/// first: every key byte, then as many bytes of the row number as `rows` needs.
fn sort_passes(key_bytes: usize, rows: usize) -> Vec<(bool, u64)> {
    let mut passes: Vec<(bool, u64)> = (0..key_bytes).map(|b| (false, 8 * b as u64)).collect();
    let row_bits = (usize::BITS - rows.saturating_sub(1).leading_zeros()) as usize;
    passes.extend((0..row_bits.div_ceil(8)).map(|b| (true, 8 * b as u64)));
    passes
}

impl CudaBackend {
    /// Each row (last axis) of `x` sorted, or with `argsort` the i64 indices
    /// that sort it; `None` for the host path (nothing to sort, or more
    /// elements than 32-bit offsets count).
    pub(super) fn sort_job(&self, x: &Array, argsort: bool) -> Option<Result<Array, Diagnostic>> {
        let n = x.size();
        let len = *x.shape().last()?;
        if n < 2 || len < 2 || n >= u32::MAX as usize {
            return None;
        }
        // bool and the narrow integers sort as int (u32 as i64), the half
        // floats as f32: each exactly and in the same order
        let work = match x.dtype() {
            DType::Bool | DType::U8 | DType::I8 | DType::I16 | DType::U16 => DType::I32,
            DType::U32 => DType::I64,
            DType::F16 | DType::BF16 => DType::F32,
            d => d,
        };
        Some(self.sort_run(x, work, argsort).map(|r| {
            if argsort || work == x.dtype() {
                r
            } else {
                build::cast(&r, x.dtype(), None)
            }
        }))
    }

    fn sort_run(&self, x: &Array, work: DType, argsort: bool) -> Result<Array, Diagnostic> {
        let cast = build::cast(x, work, None);
        let ops = self.flat_operands(&[&cast])?;
        let (xc, xp) = (&ops[0].array, ops[0].ptr);
        let source =
            sort_source(work).ok_or_else(|| Diagnostic::spanless("E0499", "internal: no sort for this dtype"))?;
        let mut g = Generated::single(source, Vec::new(), Kind::Specialised);
        g.label = format!("sort {work}");
        let module = self.module(&g)?;
        let scan = module.function("offsets_scan")?;
        let down = module.function("sort_downsweep")?;
        // SAFETY: `down` is a function of the loaded module; the attribute only
        // lets the driver give shared memory the whole on-chip budget.
        unsafe {
            sys::cuFuncSetAttribute(
                down,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                100,
            )
            .result()
        }
        .map_err(|e| cuda_error("configuring the sort", e))?;

        let n = xc.size();
        let len = *xc.shape().last().unwrap_or(&1);
        let rows = n / len;
        let key_bytes = work.size_bytes();
        let key_dtype = if key_bytes == 4 { DType::I32 } else { DType::I64 };
        let payload = argsort || rows > 1;
        let (blocks, per_block) = partition(
            n.div_ceil(sort_tile(key_bytes)),
            self.device_info().sm_count as usize * SORT_BLOCKS_PER_SM,
        );
        let keys = [self.alloc(key_dtype, n)?, self.alloc(key_dtype, n)?];
        let pay = if payload {
            Some([self.alloc(DType::I32, n)?, self.alloc(DType::I32, n)?])
        } else {
            None
        };
        let out_dtype = if argsort { DType::I64 } else { work };
        let result = self.alloc(out_dtype, n)?;
        let offsets = self.alloc(DType::I32, RADIX * blocks + 1)?;
        let trivial = self.alloc(DType::I32, 1)?;
        let canon = if argsort { F_CANON } else { 0 };
        let passes = sort_passes(key_bytes, rows);
        let mut ran = 0usize;
        for (i, &(row, shift)) in passes.iter().enumerate() {
            let last = i + 1 == passes.len();
            let mut flags = canon | if argsort { F_ARGSORT } else { 0 };
            flags |= if ran == 0 { F_FIRST } else { 0 } | if last { F_LAST } else { 0 };
            flags |= if payload { F_PAYLOAD } else { 0 } | if row { F_ROW } else { 0 };
            let (src, dst) = (ran % 2, (ran + 1) % 2);
            let pay_ptr = |k: usize| pay.as_ref().map(|p| p[k].ptr).unwrap_or(0);
            let mut up = [
                xp,
                keys[src].ptr,
                pay_ptr(src),
                n as u64,
                per_block as u64,
                shift,
                len as u64,
                offsets.ptr,
                blocks as u64,
                flags,
            ];
            self.launch(module.main, (blocks as u32, 1), THREADS, &mut up)?;
            self.clear(&trivial)?;
            let mut sc = [offsets.ptr, (RADIX * blocks) as u64, blocks as u64, trivial.ptr];
            self.launch(scan, (1, 1), 1024, &mut sc)?;
            if !last && self.read_u32_at(trivial.ptr)? != 0 {
                continue;
            }
            let mut down_args = [
                xp,
                keys[src].ptr,
                pay_ptr(src),
                keys[dst].ptr,
                pay_ptr(dst),
                result.ptr,
                n as u64,
                per_block as u64,
                shift,
                len as u64,
                offsets.ptr,
                blocks as u64,
                flags,
            ];
            self.launch(down, (blocks as u32, 1), THREADS, &mut down_args)?;
            ran += 1;
        }
        Ok(Array::from_buffer(
            Buffer::device(Box::new(result)),
            out_dtype,
            xc.shape(),
        ))
    }

    /// The elements of the flat `x` where the flat bool `mask` (same size)
    /// is true, in order; with no `x`, the i64 positions of the true elements.
    pub(super) fn compress_job(&self, x: Option<&Array>, mask: &Array) -> Option<Result<Array, Diagnostic>> {
        let n = mask.size();
        if mask.dtype() != DType::Bool || n >= u32::MAX as usize || x.is_some_and(|x| x.size() != n) {
            return None;
        }
        Some(self.compress_run(x, mask))
    }

    fn compress_run(&self, x: Option<&Array>, mask: &Array) -> Result<Array, Diagnostic> {
        let mut inputs = vec![mask];
        inputs.extend(x);
        let ops = self.flat_operands(&inputs)?;
        let (mc, mp) = (&ops[0].array, ops[0].ptr);
        let values = ops.get(1);
        let xp = values.map_or(0, |v| v.ptr);
        let out_dtype = values.map_or(DType::I64, |v| v.array.dtype());
        let n = mc.size();
        let mut g = Generated::single(
            compress_source(values.map(|v| v.array.dtype().size_bytes())),
            Vec::new(),
            Kind::Specialised,
        );
        g.label = format!("compress {out_dtype}");
        let module: Rc<Module> = self.module(&g)?;
        let (blocks, per_block) = partition(
            n.div_ceil(COMPRESS_TILE),
            self.device_info().sm_count as usize * COMPRESS_BLOCKS_PER_SM,
        );
        let offsets = self.alloc(DType::I32, blocks + 1)?;
        let mut count = [mp, n as u64, per_block as u64, offsets.ptr];
        self.launch(module.main, (blocks as u32, 1), THREADS, &mut count)?;
        let mut sc = [offsets.ptr, blocks as u64, 0, 0];
        self.launch(module.function("offsets_scan")?, (1, 1), 1024, &mut sc)?;
        let total = self.read_u32_at(offsets.ptr + (blocks * 4) as u64)? as usize;
        let out = self.alloc(out_dtype, total)?;
        if total > 0 {
            let indices = u64::from(values.is_none());
            let mut scatter = [xp, mp, n as u64, per_block as u64, offsets.ptr, out.ptr, indices];
            self.launch(
                module.function("compress_scatter")?,
                (blocks as u32, 1),
                THREADS,
                &mut scatter,
            )?;
        }
        Ok(Array::from_buffer(Buffer::device(Box::new(out)), out_dtype, &[total]))
    }

    /// Zeroes a one-word flag.
    fn clear(&self, flag: &DeviceBuffer) -> Result<(), Diagnostic> {
        // SAFETY: `flag` holds at least one 4-byte element.
        unsafe { sys::cuMemsetD32_v2(flag.ptr, 0, 1).result() }.map_err(|e| cuda_error("clearing a flag", e))
    }

    /// One 4-byte word of device memory, after the queued work that writes it.
    fn read_u32_at(&self, ptr: sys::CUdeviceptr) -> Result<u32, Diagnostic> {
        let mut v = [0u32];
        // SAFETY: `ptr` addresses a live 4-byte element of a pool buffer; the
        // synchronous copy waits for the launches queued before it.
        unsafe { cu::memcpy_dtoh_sync(&mut v, ptr) }.map_err(|e| cuda_error("reading a count", e))?;
        Ok(v[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_fill_every_hole() {
        for d in [DType::F32, DType::F64, DType::I32, DType::I64] {
            let s = sort_source(d).expect("a sortable dtype");
            assert!(!s.contains('@') && s.contains("offsets_scan") && s.contains("sort_downsweep"));
        }
        assert!(sort_source(DType::Bool).is_none());
        for b in [None, Some(1), Some(2), Some(4), Some(8)] {
            let s = compress_source(b);
            assert!(!s.contains('@') && s.contains("compress_scatter"));
        }
        // the tile sizes here are the kernels'
        assert!(SORT.contains("constexpr int ITEMS = sizeof(K) == 4 ? 16 : 8;"));
        assert!(COMPRESS.contains("#define PER 16"));
        assert!(SORT.contains("#define THREADS 256") && COMPRESS.contains("#define THREADS 256"));
    }

    #[test]
    fn passes_cover_the_key_then_the_row_number() {
        assert_eq!(
            sort_passes(4, 1),
            vec![(false, 0), (false, 8), (false, 16), (false, 24)]
        );
        assert_eq!(sort_passes(4, 256).len(), 5);
        assert_eq!(sort_passes(4, 257)[4..], [(true, 0), (true, 8)]);
        assert_eq!(sort_passes(8, 2).len(), 9);
    }

    #[test]
    fn partitions_cover_every_tile_once() {
        for tiles in [1, 5, 528, 529, 65536, 100_003] {
            for max in [1, 7, 528] {
                let (blocks, per) = partition(tiles, max);
                assert!(blocks <= max && blocks * per >= tiles && (blocks - 1) * per < tiles);
            }
        }
        assert_eq!(partition(0, 10), (1, 1));
    }
}
