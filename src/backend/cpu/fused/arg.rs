//! Arg-reductions (`argmin`, `argmax`) on the fused CPU executor: the first
//! index of the extreme along the reduced axes (row-major over them, as
//! NumPy flattens), a NaN beating every number.
//!
//! Along a row that moves through memory, one pass of vector lanes keeps
//! each lane's extreme and the chunk where it first met it, and whether it
//! met a NaN; the lanes' first extreme is the row's (a row with a NaN is
//! searched for the first one). NumPy reads its rows once the same way;
//! the earlier fold-then-search read each one twice. Down the columns (`axis=0` of
//! a row-major array) a block of outputs keeps its best values and indices
//! and takes one reduced row at a time, a compare and two selects per
//! element. The values are the operand's buffer read in place when the body
//! only loads it; a fused expression, or reduced axes that do not collapse
//! into one, are evaluated into a contiguous temporary first (NumPy does
//! the same for a non-contiguous axis). The result is exact, the same on
//! any split and thread count.

use super::{LANES, PAR_WORK, RED_CHUNK, check_interrupt, fresh, internal, run_map_alloc};
use crate::backend::cpu::block::{BLOCK, Data, Input, Program, avx2_dispatch, widest_dispatch};
use crate::backend::cpu::kernels::Num;
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::plan::Inst;
use rayon::prelude::*;
use std::mem::MaybeUninit;

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
        // `arg_fused` leaves storage-only dtypes to the reference kernels
        Data::Storage(_) => return Err(internal("an arg-reduction of a storage-only dtype")),
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
    let parallel = crate::backend::cpu::contention::parallel_pays(outs.saturating_mul(red), PAR_WORK);
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
    if xs.len() < SCAN_ROW {
        return scan_each(xs, max);
    }
    // pieces short enough that a lane's chunk number fits in a u32
    const PIECE: usize = u32::MAX as usize * LANES;
    let mut best: Option<(usize, T)> = None;
    for (p, piece) in xs.chunks(PIECE).enumerate() {
        // two monomorphic scans: a branch on `max` per element would not vectorise
        let found = if piece.len() < LANES {
            // the last piece of a row longer than PIECE
            Some(scan_each(piece, max)).filter(|&k| !piece[k].is_nan())
        } else if max {
            scan_lanes::<T, true>(piece)
        } else {
            scan_lanes::<T, false>(piece)
        };
        let Some(k) = found else {
            // the first NaN is the answer: nothing beats it
            let k = piece.iter().position(|x| x.is_nan()).unwrap_or(0);
            return p * PIECE + k;
        };
        let here = (p * PIECE + k, piece[k]);
        if best.is_none_or(|b| here.1.beats(b.1, max)) {
            best = Some(here);
        }
    }
    best.map_or(0, |b| b.0)
}

/// The first index of the extreme of `xs` (at least one value), one
/// element at a time.
fn scan_each<T: Num>(xs: &[T], max: bool) -> usize {
    let mut best = (0, xs[0]);
    for (k, &x) in xs.iter().enumerate().skip(1) {
        if x.beats(best.1, max) {
            best = (k, x);
        }
    }
    best.0
}

/// A row's lanes: four groups of `LANES / 4`, each a vector register or
/// two, with the best value each lane has seen, the chunk it was in, and
/// whether the lane met a NaN.
const GROUP: usize = LANES / 4;

#[derive(Clone, Copy)]
struct Lanes<T> {
    best: [T; GROUP],
    chunk: [u32; GROUP],
    nan: [u32; GROUP],
}

impl<T: Num> Lanes<T> {
    #[inline(always)]
    #[allow(clippy::eq_op)] // `x != x`: a NaN is the only value unequal to itself
    fn start(values: &[T; GROUP]) -> Lanes<T> {
        Lanes {
            best: *values,
            chunk: [0; GROUP],
            nan: values.map(|x| u32::from(x != x)),
        }
    }

    /// Takes each value strictly beyond its lane's best (so a lane keeps the
    /// first of equal values), with selects rather than branches so that the
    /// loop vectorises. A NaN is never taken (every comparison with it is
    /// false) but marks its lane.
    #[inline(always)]
    #[allow(clippy::eq_op)] // `x != x` as in `start`: the NaN test that vectorises for any `Num`
    fn take<const MAX: bool>(&mut self, values: &[T; GROUP], chunk: u32) {
        let lanes = self.best.iter_mut().zip(&mut self.chunk).zip(&mut self.nan);
        for (((best, at), nan), &x) in lanes.zip(values) {
            let beyond = if MAX { x > *best } else { x < *best };
            *best = if beyond { x } else { *best };
            *at = if beyond { chunk } else { *at };
            *nan |= u32::from(x != x);
        }
    }
}

/// The first index of the extreme of `xs` (at least `LANES` values) in one
/// pass, or `None` when it holds a NaN. Lane l sees the elements l, l +
/// LANES, ..., and keeps the first position of its extreme; the row's
/// first extreme is the smallest position among the lanes that hold the
/// row's extreme. A tail shorter than a chunk is scanned after the lanes:
/// its positions come after all of theirs.
#[inline(always)]
fn scan_lanes<T: Num, const MAX: bool>(xs: &[T]) -> Option<usize> {
    #[inline(always)]
    fn group<T>(chunk: &[T], k: usize) -> &[T; GROUP] {
        chunk[k * GROUP..(k + 1) * GROUP]
            .try_into()
            .expect("a chunk holds four groups")
    }
    let (first, rest) = xs.split_at_checked(LANES)?;
    let (mut g0, mut g1, mut g2, mut g3) = (
        Lanes::start(group(first, 0)),
        Lanes::start(group(first, 1)),
        Lanes::start(group(first, 2)),
        Lanes::start(group(first, 3)),
    );
    let mut chunks = rest.chunks_exact(LANES);
    for (c, values) in (1..).zip(&mut chunks) {
        g0.take::<MAX>(group(values, 0), c);
        g1.take::<MAX>(group(values, 1), c);
        g2.take::<MAX>(group(values, 2), c);
        g3.take::<MAX>(group(values, 3), c);
    }
    // combined lane by lane across the groups, then as a tree: no chain of
    // 32 dependent compares at the end of every row
    let groups = [g0, g1, g2, g3];
    let mut nan = [0u32; GROUP];
    let mut ext = groups[0].best;
    for g in &groups {
        for j in 0..GROUP {
            nan[j] |= g.nan[j];
            let b = g.best[j];
            ext[j] = if (MAX && b > ext[j]) || (!MAX && b < ext[j]) {
                b
            } else {
                ext[j]
            };
        }
    }
    if nan.iter().fold(0, |a, &n| a | n) != 0 {
        return None;
    }
    let mut width = GROUP;
    while width > 1 {
        width /= 2;
        for j in 0..width {
            let b = ext[j + width];
            ext[j] = if (MAX && b > ext[j]) || (!MAX && b < ext[j]) {
                b
            } else {
                ext[j]
            };
        }
    }
    let extreme = ext[0];
    let mut first = [usize::MAX; GROUP];
    for (k, g) in groups.iter().enumerate() {
        for (j, ((first, &b), &c)) in first.iter_mut().zip(&g.best).zip(&g.chunk).enumerate() {
            let at = c as usize * LANES + k * GROUP + j;
            *first = if b == extreme { (*first).min(at) } else { *first };
        }
    }
    let at = first.into_iter().fold(usize::MAX, usize::min);
    let mut best = (at, extreme);
    let tail = chunks.remainder();
    let tail_at = xs.len() - tail.len();
    for (k, &x) in tail.iter().enumerate() {
        if x.is_nan() {
            return None;
        }
        if x.beats(best.1, MAX) {
            best = (tail_at + k, x);
        }
    }
    Some(best.0)
}

widest_dispatch! {
    /// The first index of the extreme of a contiguous row.
    #[inline(always)]
    fn arg_row<T: Num>(xs: &[T], max: bool) -> usize = arg_row_impl;
}

/// `arg_row` of bools: the first true for argmax, the first false for
/// argmin, else 0.
fn arg_row_bool(xs: &[bool], max: bool) -> usize {
    xs.iter().position(|&x| x == max).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first index of the extreme, a NaN beating everything: the
    /// definition, one element at a time.
    fn oracle<T: Num>(xs: &[T], max: bool) -> usize {
        let mut best = (0, xs[0]);
        for (k, &x) in xs.iter().enumerate().skip(1) {
            if x.beats(best.1, max) {
                best = (k, x);
            }
        }
        best.0
    }

    /// Values from a small range (many ties), from a fixed sequence.
    fn values(n: usize, seed: usize) -> Vec<f64> {
        (0..n)
            .map(|i| ((i * 7919 + seed * 104_729) % 23) as f64 - 11.0)
            .collect()
    }

    fn check<T: Num + std::fmt::Debug>(xs: &[T], what: &str) {
        for max in [true, false] {
            assert_eq!(arg_row(xs, max), oracle(xs, max), "{what}, max {max}, len {}", xs.len());
        }
    }

    #[test]
    fn row_scan_finds_the_first_extreme_at_every_length_and_lane() {
        // lengths either side of the scalar scan's limit, of whole chunks of
        // lanes, and with tails; the extreme in every lane, chunk and the tail
        let lengths: Vec<usize> = (1..=200).chain([255, 256, 257, 1000, 1023, 1024, 1025, 4099]).collect();
        for &n in &lengths {
            for seed in 0..3 {
                let base = values(n, seed);
                check(&base.iter().map(|&x| x as f32).collect::<Vec<_>>(), "f32");
                check(&base, "f64");
                check(&base.iter().map(|&x| x as i32).collect::<Vec<_>>(), "i32");
                check(&base.iter().map(|&x| x as i64).collect::<Vec<_>>(), "i64");
            }
            // a unique extreme at each position (the first chunk, later ones, the tail)
            for at in (0..n).step_by(n.div_ceil(40)) {
                let mut v = values(n, 1);
                v[at] = 100.0;
                check(&v, "f64, one maximum");
                v[at] = -100.0;
                check(&v.iter().map(|&x| x as f32).collect::<Vec<_>>(), "f32, one minimum");
            }
        }
    }

    #[test]
    fn row_scan_gives_the_first_nan_and_treats_signed_zeros_as_equal() {
        for &n in &[3usize, 63, 64, 65, 100, 1000, 1031] {
            for at in [0, 1, n / 3, n / 2, n - 1] {
                for second in [None, Some(n - 1)] {
                    let mut v: Vec<f32> = values(n, 2).iter().map(|&x| x as f32).collect();
                    v[at] = f32::NAN;
                    if let Some(s) = second {
                        v[s] = f32::NAN;
                    }
                    check(&v, "f32 with NaN");
                    let w: Vec<f64> = v.iter().map(|&x| f64::from(x)).collect();
                    check(&w, "f64 with NaN");
                }
            }
            // -0.0 and 0.0 tie: the first of them is the extreme
            let mut z = vec![-1.0f64; n];
            z[n / 2] = -0.0;
            z[n - 1] = 0.0;
            check(&z, "signed zeros");
            let inf: Vec<f32> = (0..n)
                .map(|i| if i % 7 == 3 { f32::INFINITY } else { -f32::INFINITY })
                .collect();
            check(&inf, "infinities");
        }
    }
}
