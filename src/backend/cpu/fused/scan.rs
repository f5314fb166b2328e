//! Inclusive scans (`cumsum`, `cumprod`, `cummin`, `cummax`) on the fused CPU
//! executor, for every planned scan strategy.
//!
//! A scan along the last axis cuts each line into tiles of `TILE` elements.
//! A tile's carry is the fold of the tiles before it (their sums, folded in
//! tile order), so a task can start anywhere: a few long lines are scanned
//! in three passes (tile sums in parallel, carries line by line, tiles in
//! parallel), many lines a line per task with the same tiles. Within a task
//! `WAYS` tiles are scanned side by side, so their dependency chains (an f64
//! add per element for an f32 `cumsum`) overlap instead of running one after
//! another. The decomposition depends only on the shape, so the result does
//! not depend on the thread count; it differs from the reference's one
//! sequence of adds only by where the f64 partial sums are rounded.
//!
//! A scan along another axis carries one accumulator per element of the
//! trailing axes and adds a whole row of them per step (a vector loop), each
//! column in the reference's order: bitwise the reference's result.

use super::{PAR_WORK, SendPtr, bottom, check_interrupt, fold_lanes, fresh, internal, top};
use crate::backend::cpu::block::{BLOCK, Lane, Src, avx2_dispatch};
use crate::backend::cpu::kernels::{self, Num};
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::{Op, ReduceOp, ScanOp};
use crate::graph::view::View;
use crate::graph::{Node, NodeState, Storage};
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Elements per tile of a scanned line: a few tiles side by side stay in L1.
const TILE: usize = 1024;

/// Tiles scanned side by side: enough independent chains to cover an add's latency.
const WAYS: usize = 4;

/// Where a scan's input elements are: `lines` lines (the axes before the
/// scanned one), `len` steps along it, `inner` elements per step (the axes
/// after it, at offsets `inner_offs` from the step's first).
struct Geo {
    offset: isize,
    outer_shape: Vec<usize>,
    outer_strides: Vec<isize>,
    lines: usize,
    len: usize,
    step: isize,
    inner_offs: Vec<isize>,
}

impl Geo {
    fn of(view: &View, axis: usize) -> Geo {
        let outer_shape = view.shape[..axis].to_vec();
        let outer_strides = view.strides[..axis].to_vec();
        // the trailing axes' offsets in row-major order
        let mut inner_offs = vec![0isize];
        for (&d, &s) in view.shape[axis + 1..].iter().zip(&view.strides[axis + 1..]) {
            inner_offs = inner_offs
                .iter()
                .flat_map(|&o| (0..d as isize).map(move |k| o + k * s))
                .collect();
        }
        Geo {
            offset: view.offset as isize,
            lines: outer_shape.iter().product(),
            outer_shape,
            outer_strides,
            len: view.shape[axis],
            step: view.strides[axis],
            inner_offs,
        }
    }

    /// The buffer offset of line `l`'s first element.
    fn base(&self, l: usize) -> isize {
        let mut rest = l;
        let mut off = self.offset;
        for (&d, &s) in self.outer_shape.iter().zip(&self.outer_strides).rev() {
            off += (rest % d) as isize * s;
            rest /= d;
        }
        off
    }
}

fn pays(n: usize) -> bool {
    crate::backend::cpu::contention::parallel_pays(n, PAR_WORK)
}

/// The scan this node computes, or `None` where the reference kernel must
/// run it (half floats, a dtype change).
pub(super) fn scan(node: &Node) -> Result<Option<HostData>, Diagnostic> {
    let (op, axis, input) = match &*node.state.borrow() {
        NodeState::Pending {
            op: Op::Scan { op, axis },
            inputs,
        } if inputs.len() == 1 => (*op, *axis, inputs[0].clone()),
        _ => return Ok(None),
    };
    let view = &input.view;
    if axis >= view.rank() || view.shape[..] != node.shape[..] {
        return Ok(None);
    }
    let buf = input
        .node
        .buffer()
        .ok_or_else(|| internal("a scan's input is not realized"))?;
    let guard = buf.storage();
    let Storage::Host(data) = &*guard else {
        return Err(crate::backend::cpu::host_error());
    };
    if data.dtype() != node.dtype {
        return Ok(None);
    }
    kernels::check_reach(data.len(), &view.shape, &view.strides, view.offset)?;
    let geo = Geo::of(view, axis);
    let rop = match op {
        ScanOp::Sum => ReduceOp::Sum,
        ScanOp::Prod => ReduceOp::Prod,
        ScanOp::Min => ReduceOp::Min,
        ScanOp::Max => ReduceOp::Max,
    };
    macro_rules! go {
        ($T:ty, $x:expr, $id:expr, $map:expr, $comb:expr, $fin:expr, $V:ident) => {
            HostData::$V(run::<$T, _, _>($x, &geo, $id, $map, $comb, $fin)?)
        };
    }
    Ok(Some(match data {
        HostData::F32(x) => num_fold!(rop, f32, F32, Bool, go!(f32, x,), return Ok(None)),
        HostData::F64(x) => num_fold!(rop, f64, F64, Bool, go!(f64, x,), return Ok(None)),
        HostData::I32(x) => num_fold!(rop, i32, I32, Bool, go!(i32, x,), return Ok(None)),
        HostData::I64(x) => num_fold!(rop, i64, I64, Bool, go!(i64, x,), return Ok(None)),
        // bool arithmetic is logic, as in the reference scan: sum/max are `or`, prod/min `and`
        HostData::Bool(x) => match op {
            ScanOp::Sum | ScanOp::Max => {
                go!(bool, x, false, |v: bool| v, |a: bool, b: bool| a | b, |a: bool| a, Bool)
            }
            ScanOp::Prod | ScanOp::Min => {
                go!(bool, x, true, |v: bool| v, |a: bool, b: bool| a & b, |a: bool| a, Bool)
            }
        },
        crate::storage_only_data!() => return Ok(None),
    }))
}

fn run<T: Lane + Sync, A: Copy + Send + Sync, O: Lane>(
    x: &[T],
    g: &Geo,
    id: A,
    map: impl Fn(T) -> A + Copy + Sync,
    comb: impl Fn(A, A) -> A + Copy + Sync,
    fin: impl Fn(A) -> O + Copy + Sync,
) -> Result<Vec<O>, Diagnostic> {
    let n = g.lines * g.len * g.inner_offs.len();
    if n == 0 {
        return Ok(Vec::new());
    }
    fresh(n, |out| {
        if g.inner_offs.len() == 1 {
            lines(x, g, out, id, map, comb, fin)
        } else {
            columns(x, g, out, id, map, comb, fin)
        }
    })
}

/// Elements `lo..hi` of the line at `base` (elements `step` apart), borrowed
/// where they are contiguous, else gathered into `scratch`.
fn span<'a, T: Copy>(x: &'a [T], base: isize, step: isize, lo: usize, hi: usize, scratch: &'a mut Vec<T>) -> &'a [T] {
    let first = base + lo as isize * step;
    if step == 1 || hi - lo <= 1 {
        return &x[first as usize..first as usize + (hi - lo)];
    }
    scratch.clear();
    scratch.extend((0..(hi - lo) as isize).map(|k| x[(first + k * step) as usize]));
    scratch
}

/// The fold of one tile's values (lanes, then the lanes in a tree).
#[inline(always)]
fn tile_sum<T: Copy, A: Copy>(xs: &[T], id: A, map: impl Fn(T) -> A, comb: impl Fn(A, A) -> A) -> A {
    let mut l = [id; super::LANES];
    fold_lanes(Src::Slice(xs), xs.len(), &mut l, &map, &comb);
    super::tree_fold(l, id, comb)
}

/// Scans a group of up to `WAYS` consecutive tiles (`xs`, into `out`) of
/// one line, tile k starting from `carries[k]`.
#[inline(always)]
fn scan_group<T: Copy, A: Copy, O>(
    xs: &[T],
    out: &mut [MaybeUninit<O>],
    carries: &[A],
    map: impl Fn(T) -> A,
    comb: impl Fn(A, A) -> A,
    fin: impl Fn(A) -> O,
) {
    if carries.len() == WAYS && xs.len() == WAYS * TILE {
        let (x0, r) = xs.split_at(TILE);
        let (x1, r) = r.split_at(TILE);
        let (x2, x3) = r.split_at(TILE);
        let (o0, r) = out.split_at_mut(TILE);
        let (o1, r) = r.split_at_mut(TILE);
        let (o2, o3) = r.split_at_mut(TILE);
        let (x3, o3) = (&x3[..TILE], &mut o3[..TILE]);
        let (mut c0, mut c1, mut c2, mut c3) = (carries[0], carries[1], carries[2], carries[3]);
        for i in 0..TILE {
            c0 = comb(c0, map(x0[i]));
            c1 = comb(c1, map(x1[i]));
            c2 = comb(c2, map(x2[i]));
            c3 = comb(c3, map(x3[i]));
            o0[i].write(fin(c0));
            o1[i].write(fin(c1));
            o2[i].write(fin(c2));
            o3[i].write(fin(c3));
        }
        return;
    }
    for ((xt, ot), &c) in xs.chunks(TILE).zip(out.chunks_mut(TILE)).zip(carries) {
        let mut c = c;
        for (o, &v) in ot.iter_mut().zip(xt) {
            c = comb(c, map(v));
            o.write(fin(c));
        }
    }
}

avx2_dispatch! {
    fn scan_group_best<T: Copy, A: Copy, O>(xs: &[T], out: &mut [MaybeUninit<O>], carries: &[A], map: impl Fn(T) -> A, comb: impl Fn(A, A) -> A, fin: impl Fn(A) -> O) = scan_group;
}

/// Tile t's carry from the sums of the tiles before it: `sums` in, carries out.
fn carries_of<A: Copy>(sums: &mut [A], id: A, comb: impl Fn(A, A) -> A) {
    let mut c = id;
    for s in sums {
        let next = comb(c, *s);
        *s = c;
        c = next;
    }
}

/// A scan along the last axis: lines contiguous in the output.
fn lines<T: Copy + Sync, A: Copy + Send + Sync, O: Send>(
    x: &[T],
    g: &Geo,
    out: &mut [MaybeUninit<O>],
    id: A,
    map: impl Fn(T) -> A + Copy + Sync,
    comb: impl Fn(A, A) -> A + Copy + Sync,
    fin: impl Fn(A) -> O + Copy + Sync,
) -> Result<(), Diagnostic> {
    let (len, step) = (g.len, g.step);
    let tiles = len.div_ceil(TILE);
    let threads = rayon::current_num_threads().max(1);
    // the sum of tile t of line l (the last tile's is never needed)
    let sum_of = |l: usize, t: usize, scratch: &mut Vec<T>| {
        let (lo, hi) = (t * TILE, ((t + 1) * TILE).min(len));
        tile_sum(span(x, g.base(l), step, lo, hi, scratch), id, map, comb)
    };
    // scans group q of line l (its output `o`) from the line's carries
    let group = |l: usize, q: usize, o: &mut [MaybeUninit<O>], carries: &[A], scratch: &mut Vec<T>| {
        let (lo, hi) = (q * WAYS * TILE, ((q + 1) * WAYS * TILE).min(len));
        let xs = span(x, g.base(l), step, lo, hi, scratch);
        scan_group_best(xs, o, &carries[q * WAYS..((q + 1) * WAYS).min(tiles)], map, comb, fin);
    };
    if !pays(out.len()) || g.lines >= 4 * threads {
        // a line per task: its tile sums, carries and tiles in turn, the line in cache
        let line_task = |l: usize, o: &mut [MaybeUninit<O>], carries: &mut Vec<A>, scratch: &mut Vec<T>| {
            carries.clear();
            carries.extend((0..tiles - 1).map(|t| sum_of(l, t, scratch)));
            carries.push(id);
            carries_of(carries, id, comb);
            for (q, oq) in o.chunks_mut(WAYS * TILE).enumerate() {
                group(l, q, oq, carries, scratch);
            }
        };
        let per = (PAR_WORK / len.max(1)).max(1);
        let task = |(k, part): (usize, &mut [MaybeUninit<O>])| -> Result<(), Diagnostic> {
            check_interrupt()?;
            let (mut carries, mut scratch) = (Vec::new(), Vec::new());
            for (j, o) in part.chunks_mut(len).enumerate() {
                line_task(k * per + j, o, &mut carries, &mut scratch);
            }
            Ok(())
        };
        if pays(out.len()) {
            return out.par_chunks_mut(per * len).enumerate().try_for_each(task);
        }
        return out.chunks_mut(per * len).enumerate().try_for_each(task);
    }
    // few long lines: tile sums over every line in parallel, carries, then groups in parallel
    let mut carries: Vec<A> = vec![id; g.lines * tiles];
    carries.par_chunks_mut(tiles).enumerate().for_each(|(l, cs)| {
        cs.par_iter_mut()
            .enumerate()
            .take(tiles - 1)
            .for_each_init(Vec::new, |scratch, (t, c)| {
                *c = sum_of(l, t, scratch);
            });
    });
    check_interrupt()?;
    for cs in carries.chunks_mut(tiles) {
        carries_of(cs, id, comb);
    }
    let carries = &carries;
    out.par_chunks_mut(len).enumerate().try_for_each(|(l, line)| {
        line.par_chunks_mut(WAYS * TILE)
            .enumerate()
            .try_for_each_init(Vec::new, |scratch, (q, o)| {
                check_interrupt()?;
                group(l, q, o, &carries[l * tiles..(l + 1) * tiles], scratch);
                Ok(())
            })
    })
}

/// A scan along an axis with trailing axes: each step folds a row of
/// `inner` values into as many accumulators, in panels of `BLOCK` columns.
fn columns<T: Copy + Sync, A: Copy + Send + Sync, O: Copy + Send>(
    x: &[T],
    g: &Geo,
    out: &mut [MaybeUninit<O>],
    id: A,
    map: impl Fn(T) -> A + Copy + Sync,
    comb: impl Fn(A, A) -> A + Copy + Sync,
    fin: impl Fn(A) -> O + Copy + Sync,
) -> Result<(), Diagnostic> {
    let inner = g.inner_offs.len();
    let panels = inner.div_ceil(BLOCK);
    let contiguous = g.inner_offs.windows(2).all(|w| w[1] == w[0] + 1);
    let ptr = &SendPtr(out.as_mut_ptr());
    let item = |k: usize, acc: &mut Vec<A>, scratch: &mut Vec<T>| -> Result<(), Diagnostic> {
        check_interrupt()?;
        let (l, p) = (k / panels, k % panels);
        let (j0, j1) = (p * BLOCK, ((p + 1) * BLOCK).min(inner));
        acc.clear();
        acc.resize(j1 - j0, id);
        let base = g.base(l);
        for i in 0..g.len {
            let row = base + i as isize * g.step;
            let xs: &[T] = if contiguous {
                let s = (row + g.inner_offs[j0]) as usize;
                &x[s..s + (j1 - j0)]
            } else {
                scratch.clear();
                scratch.extend(g.inner_offs[j0..j1].iter().map(|&o| x[(row + o) as usize]));
                scratch
            };
            let at = (l * g.len + i) * inner + j0;
            // SAFETY: elements at..at + (j1 - j0) are in `out` (l < lines, i < len,
            // j1 <= inner), and only item (l, p) writes them.
            // (the whole SendPtr is copied out: capturing its raw field alone would not be Sync)
            let p: SendPtr<MaybeUninit<O>> = *ptr;
            let o = unsafe { std::slice::from_raw_parts_mut(p.0.add(at), j1 - j0) };
            fold_row(xs, acc, o, map, comb, fin);
        }
        Ok(())
    };
    let items = g.lines * panels;
    if pays(out.len()) && items > 1 {
        (0..items)
            .into_par_iter()
            .try_for_each_init(|| (Vec::new(), Vec::new()), |(acc, scratch), k| item(k, acc, scratch))
    } else {
        let (mut acc, mut scratch) = (Vec::new(), Vec::new());
        (0..items).try_for_each(|k| item(k, &mut acc, &mut scratch))
    }
}

#[inline(always)]
fn fold_row_impl<T: Copy, A: Copy, O>(
    xs: &[T],
    acc: &mut [A],
    out: &mut [MaybeUninit<O>],
    map: impl Fn(T) -> A,
    comb: impl Fn(A, A) -> A,
    fin: impl Fn(A) -> O,
) {
    for ((a, &v), o) in acc.iter_mut().zip(xs).zip(out) {
        *a = comb(*a, map(v));
        o.write(fin(*a));
    }
}

avx2_dispatch! {
    /// `acc[j] = comb(acc[j], map(xs[j]))`, and `out[j]` its value.
    fn fold_row<T: Copy, A: Copy, O>(xs: &[T], acc: &mut [A], out: &mut [MaybeUninit<O>], map: impl Fn(T) -> A, comb: impl Fn(A, A) -> A, fin: impl Fn(A) -> O) = fold_row_impl;
}
