//! Arg-reductions (`argmin`, `argmax`) on the fused CPU executor: the first
//! index of the extreme along the reduced axes (row-major over them, as
//! NumPy flattens), a NaN beating every number.
//!
//! Along a row that moves through memory, a piece of the row at a time is
//! folded to its extreme with the vectorised min/max lanes, and only a piece
//! whose extreme beats the best so far (or holds a NaN) is searched for the
//! first position of it: on most data a few pieces of a row are, so the row
//! is read about once at the speed of a `max`. Down the columns (`axis=0` of
//! a row-major array) a block of outputs keeps its best values and indices
//! and takes one reduced row at a time, a compare and two selects per
//! element. The values are the operand's buffer read in place when the body
//! only loads it; a fused expression, or reduced axes that do not collapse
//! into one, are evaluated into a contiguous temporary first (NumPy does
//! the same for a non-contiguous axis). The result is exact, the same on
//! any split and thread count.

use super::{
    LANES, PAR_WORK, RED_CHUNK, bottom, check_interrupt, fold_lanes_impl, fresh, internal, run_map_alloc, top,
};
use crate::backend::cpu::block::{BLOCK, Data, Input, Program, Src, avx2_dispatch};
use crate::backend::cpu::kernels::Num;
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::plan::Inst;
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Elements of a row folded before the piece's extreme is compared with the
/// best so far: small enough to stay in L1 for the search that follows.
const PIECE: usize = 2048;

/// Rows shorter than this are scanned element by element: a piece's lanes
/// and their combination would cost more than the row.
const SCAN_ROW: usize = 64;

/// The values an arg-reduction reads: a buffer with the kernel's strides.
struct Values<'a, T> {
    data: &'a [T],
    offset: isize,
    /// Strides of the kept axes (one output each, row-major).
    kept: Vec<isize>,
    /// The reduced axes collapsed into one.
    stride: isize,
}

/// `argmax` (`max`) or `argmin` of the kernel's body over `shape[kept..]`,
/// one i64 per kept element; `shape` has at least one reduced element and
/// one output.
pub(super) fn arg_reduce(
    prog: &Program,
    shape: &[usize],
    kept: usize,
    max: bool,
    dtype: DType,
) -> Result<HostData, Diagnostic> {
    let red: usize = shape[kept..].iter().product();
    let direct = match (prog.steps, prog.inputs.first()) {
        ([step], Some(b)) if step.inst == Inst::Load(0) && step.dtype == b.dtype => match &b.input {
            Input::Data(d) => collapse(&b.strides[..shape.len()], shape, kept).map(|stride| (*d, b, stride)),
            _ => None,
        },
        _ => None,
    };
    let materialised;
    let (data, offset, kept_strides, stride) = match direct {
        Some((d, b, stride)) => (d, b.offset, b.strides[..kept].to_vec(), stride),
        None => {
            materialised = run_map_alloc(prog, shape, dtype)?;
            let kept_strides = crate::graph::view::contiguous_strides(&shape[..kept])
                .iter()
                .map(|&s| s * red as isize)
                .collect();
            (Data::of(&materialised), 0, kept_strides, 1)
        }
    };
    macro_rules! go {
        ($x:expr, $scan:ident) => {{
            let v = Values {
                data: $x,
                offset,
                kept: kept_strides,
                stride,
            };
            arg_values(&v, &shape[..kept], red, max, $scan)?
        }};
    }
    let out = match data {
        Data::F32(x) => go!(x, arg_row),
        Data::F64(x) => go!(x, arg_row),
        Data::I32(x) => go!(x, arg_row),
        Data::I64(x) => go!(x, arg_row),
        Data::B(x) => go!(x, arg_row_bool),
    };
    Ok(HostData::I64(out))
}

/// The one stride that walks the reduced axes `shape[kept..]` in row-major
/// order, if they collapse into one.
fn collapse(strides: &[isize], shape: &[usize], kept: usize) -> Option<isize> {
    let axes: Vec<usize> = (kept..shape.len()).filter(|&a| shape[a] > 1).collect();
    let Some(&last) = axes.last() else {
        return Some(1);
    };
    let ok = axes
        .windows(2)
        .all(|w| strides[w[0]] == strides[w[1]] * shape[w[1]] as isize);
    ok.then_some(strides[last])
}

/// Values whose extremes a row scan finds; bool rows scan for the first
/// true (argmax) or false (argmin).
trait ArgValue: Copy + Send + Sync {
    /// Whether `self` replaces `best`: strictly beyond it, or the first NaN.
    fn beats(self, best: Self, max: bool) -> bool;
}

impl<T: Num> ArgValue for T {
    #[inline(always)]
    fn beats(self, best: T, max: bool) -> bool {
        let beyond = if max { self > best } else { self < best };
        beyond || (self.is_nan() && !best.is_nan())
    }
}

impl ArgValue for bool {
    #[inline(always)]
    fn beats(self, best: bool, max: bool) -> bool {
        if max { self & !best } else { !self & best }
    }
}

/// The first index of the extreme of one row (`xs`, at least one value).
type RowScan<T> = fn(&[T], bool) -> usize;

/// Outputs per task: rows or column blocks of about `PAR_WORK` elements.
fn per_task(red: usize) -> usize {
    (PAR_WORK / red.max(1)).max(1)
}

fn arg_values<T: ArgValue + Default>(
    v: &Values<T>,
    kept_shape: &[usize],
    red: usize,
    max: bool,
    scan: RowScan<T>,
) -> Result<Vec<i64>, Diagnostic> {
    let outs: usize = kept_shape.iter().product();
    let parallel = rayon::current_num_threads() > 1 && outs.saturating_mul(red) >= PAR_WORK;
    if outs == 1 {
        return Ok(vec![arg_one(v, red, max, scan, parallel)? as i64]);
    }
    let down_columns = v.stride != 1 && red > 1;
    // a task's outputs: along the last kept axis, in blocks that share offsets
    let task = |start: usize, part: &mut [MaybeUninit<i64>]| -> Result<(), Diagnostic> {
        check_interrupt()?;
        let last = *kept_shape.last().unwrap_or(&1);
        let step = *v.kept.last().unwrap_or(&0);
        let mut best: Vec<T> = Vec::new();
        let mut p = start;
        let end = start + part.len();
        while p < end {
            let run = (end - p)
                .min(last - p % last)
                .min(if down_columns { BLOCK } else { usize::MAX });
            let base = v.offset + kept_offset(&v.kept, kept_shape, p);
            let out = &mut part[p - start..p - start + run];
            if down_columns {
                arg_columns(v, base, step, red, max, &mut best, out)?;
            } else {
                for (j, o) in out.iter_mut().enumerate() {
                    let at = base + j as isize * step;
                    o.write(scan(row(v.data, at, red)?, max) as i64);
                }
            }
            p += run;
        }
        Ok(())
    };
    let size = per_task(red);
    fresh(outs, |out| {
        if parallel {
            out.par_chunks_mut(size)
                .enumerate()
                .with_max_len(1)
                .try_for_each(|(c, part)| task(c * size, part))
        } else {
            task(0, out)
        }
    })
}

/// The offset of output `o` (row-major over `kept_shape`).
fn kept_offset(strides: &[isize], kept_shape: &[usize], mut o: usize) -> isize {
    let mut off = 0;
    for (&d, &s) in kept_shape.iter().zip(strides).rev() {
        off += (o % d) as isize * s;
        o /= d;
    }
    off
}

/// `len` contiguous values from `at`.
fn row<T>(data: &[T], at: isize, len: usize) -> Result<&[T], Diagnostic> {
    usize::try_from(at)
        .ok()
        .and_then(|a| data.get(a..a + len))
        .ok_or_else(|| internal("an arg-reduction's row out of its buffer"))
}

/// The arg-reduction of the whole reduced range to one output: in pieces
/// of `RED_CHUNK`, in parallel where that pays, combined in order.
fn arg_one<T: ArgValue + Default>(
    v: &Values<T>,
    red: usize,
    max: bool,
    scan: RowScan<T>,
    parallel: bool,
) -> Result<usize, Diagnostic> {
    let contiguous = v.stride == 1 || red == 1;
    let piece = |c: usize| -> Result<(usize, T), Diagnostic> {
        check_interrupt()?;
        let lo = c * RED_CHUNK;
        let len = RED_CHUNK.min(red - lo);
        let at = v.offset + lo as isize * v.stride;
        let i = if contiguous {
            scan(row(v.data, at, len)?, max)
        } else {
            let mut best = (0, element(v.data, at)?);
            for k in 1..len {
                let x = element(v.data, at + k as isize * v.stride)?;
                if x.beats(best.1, max) {
                    best = (k, x);
                }
            }
            best.0
        };
        Ok((lo + i, element(v.data, at + i as isize * v.stride)?))
    };
    let pieces: Vec<(usize, T)> = if parallel {
        (0..red.div_ceil(RED_CHUNK))
            .into_par_iter()
            .map(piece)
            .collect::<Result<_, _>>()?
    } else {
        (0..red.div_ceil(RED_CHUNK)).map(piece).collect::<Result<_, _>>()?
    };
    let mut best = pieces[0];
    for &p in &pieces[1..] {
        if p.1.beats(best.1, max) {
            best = p;
        }
    }
    Ok(best.0)
}

fn element<T: Copy>(data: &[T], at: isize) -> Result<T, Diagnostic> {
    usize::try_from(at)
        .ok()
        .and_then(|a| data.get(a).copied())
        .ok_or_else(|| internal("an arg-reduction's value out of its buffer"))
}

/// A block of outputs `out` (the j-th at `base + j * step`) reduced down
/// `red` values `v.stride` apart, each keeping its best value and index.
fn arg_columns<T: ArgValue + Default>(
    v: &Values<T>,
    base: isize,
    step: isize,
    red: usize,
    max: bool,
    best: &mut Vec<T>,
    out: &mut [MaybeUninit<i64>],
) -> Result<(), Diagnostic> {
    let n = out.len();
    best.clear();
    for (j, o) in out.iter_mut().enumerate() {
        best.push(element(v.data, base + j as isize * step)?);
        o.write(0);
    }
    // SAFETY: every element of `out` was written just above.
    let idx: &mut [i64] = unsafe { &mut *(out as *mut [MaybeUninit<i64>] as *mut [i64]) };
    for r in 1..red {
        let at = base + r as isize * v.stride;
        if step == 1 {
            take_better(row(v.data, at, n)?, best, idx, r as i64, max);
        } else {
            for (j, (b, i)) in best.iter_mut().zip(idx.iter_mut()).enumerate() {
                let x = element(v.data, at + j as isize * step)?;
                if x.beats(*b, max) {
                    *b = x;
                    *i = r as i64;
                }
            }
        }
    }
    Ok(())
}

#[inline(always)]
fn take_better_impl<T: ArgValue>(xs: &[T], best: &mut [T], idx: &mut [i64], r: i64, max: bool) {
    // selects, not branches, so the loop vectorises
    for ((&x, b), i) in xs.iter().zip(best.iter_mut()).zip(idx.iter_mut()) {
        let take = x.beats(*b, max);
        *b = if take { x } else { *b };
        *i = if take { r } else { *i };
    }
}

avx2_dispatch! {
    /// One reduced row of a column block: each output whose value `xs` beats takes it, with index `r`.
    #[inline(always)]
    fn take_better<T: ArgValue>(xs: &[T], best: &mut [T], idx: &mut [i64], r: i64, max: bool) = take_better_impl;
}

#[inline(always)]
fn arg_row_impl<T: Num>(xs: &[T], max: bool) -> usize {
    let first = (0, xs[0]);
    if xs.len() < SCAN_ROW {
        let mut best = first;
        for (k, &x) in xs.iter().enumerate().skip(1) {
            if x.beats(best.1, max) {
                best = (k, x);
            }
        }
        return best.0;
    }
    if first.1.is_nan() {
        return 0;
    }
    let mut best = first;
    for (c, piece) in xs.chunks(PIECE).enumerate() {
        // two monomorphic folds: a function pointer would not inline
        let extreme = if max {
            fold_piece(piece, bottom::<T>(), Num::maximum)
        } else {
            fold_piece(piece, top::<T>(), Num::minimum)
        };
        if extreme.is_nan() {
            // the first NaN is the answer: nothing beats it
            let k = piece.iter().position(|x| x.is_nan()).unwrap_or(0);
            return c * PIECE + k;
        }
        if extreme.beats(best.1, max) {
            best = (c * PIECE + first_equal(piece, extreme), extreme);
        }
    }
    best.0
}

/// The first position of `x` in `piece` (which holds it): runs of 32
/// compared without a branch, so they vectorise, then the run that has it.
#[inline(always)]
fn first_equal<T: Num>(piece: &[T], x: T) -> usize {
    const RUN: usize = 32;
    let run = piece
        .chunks(RUN)
        .position(|c| c.iter().fold(false, |any, &v| any | (v == x)))
        .unwrap_or(0);
    let at = run * RUN;
    at + piece[at..].iter().position(|&v| v == x).unwrap_or(0)
}

/// A piece's NaN-propagating extreme, through the reductions' lanes.
#[inline(always)]
fn fold_piece<T: Num>(piece: &[T], id: T, comb: impl Fn(T, T) -> T + Copy) -> T {
    let mut lanes = [id; LANES];
    fold_lanes_impl(Src::Slice(piece), piece.len(), &mut lanes, |x| x, comb);
    lanes.into_iter().fold(id, comb)
}

avx2_dispatch! {
    /// The first index of the extreme of a contiguous row.
    #[inline(always)]
    fn arg_row<T: Num>(xs: &[T], max: bool) -> usize = arg_row_impl;
}

/// `arg_row` of bools: the first true for argmax, the first false for
/// argmin, else 0.
fn arg_row_bool(xs: &[bool], max: bool) -> usize {
    xs.iter().position(|&x| x == max).unwrap_or(0)
}
