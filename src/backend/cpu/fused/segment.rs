//! Segmented reductions (`segsum`, `segmax`, ...) on the fused CPU executor:
//! one pass over the values and the segment offsets. Values that are a
//! contiguous buffer are read in place (no temporary); a fused expression is
//! evaluated into one first. Each segment folds into eight lane
//! accumulators combined as a tree, tasks take whole segments, so the
//! result does not depend on the thread count; it differs from the
//! reference's one sequence of adds only in where f64 partial sums round.

use super::{PAR_WORK, bottom, check_interrupt, fresh, internal, top};
use crate::backend::cpu::block::{Lane, avx2_dispatch};
use crate::backend::cpu::kernels::{CHUNK, Num};
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::ReduceOp;
use crate::graph::view::View;
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// The segmented reduction `op` of `values` (a 1-D view) between `offs`
/// (checked: from 0 to the number of values, non-decreasing), or `None`
/// where the reference kernel must run it (a strided view, bool values, half
/// floats, an arg-reduction).
pub(super) fn segment(
    op: ReduceOp,
    values: &HostData,
    view: &View,
    offs: &[i64],
) -> Result<Option<HostData>, Diagnostic> {
    let n = view.size();
    if view.rank() != 1 || (n > 1 && view.strides[0] != 1) {
        return Ok(None);
    }
    let total = n as i64;
    let valid = offs.first() == Some(&0) && offs.last() == Some(&total) && offs.windows(2).all(|w| w[0] <= w[1]);
    if !valid {
        return Err(internal("segment offsets do not cover the values in order"));
    }
    let at = view.offset;
    macro_rules! go {
        ($T:ty, $x:expr, $id:expr, $map:expr, $comb:expr, $fin:expr, $V:ident) => {{
            let x = $x
                .get(at..at + n)
                .ok_or_else(|| internal("segment values out of their buffer"))?;
            HostData::$V(fold_segments::<$T, _, _>(x, offs, $id, $map, $comb, $fin)?)
        }};
    }
    Ok(Some(match values {
        HostData::F32(x) => num_fold!(op, f32, F32, Bool, go!(f32, x,), return Ok(None)),
        HostData::F64(x) => num_fold!(op, f64, F64, Bool, go!(f64, x,), return Ok(None)),
        HostData::I32(x) => num_fold!(op, i32, I32, Bool, go!(i32, x,), return Ok(None)),
        HostData::I64(x) => num_fold!(op, i64, I64, Bool, go!(i64, x,), return Ok(None)),
        HostData::Bool(_) | crate::storage_only_data!() => return Ok(None),
    }))
}

/// Lanes of a segment's fold: segments are often a few dozen elements, so
/// fewer lanes than a row reduction's, combined as the tree written below.
const SEG_LANES: usize = 8;

#[inline(always)]
fn segs_impl<T: Copy, A: Copy, O>(
    x: &[T],
    offs: &[i64],
    out: &mut [MaybeUninit<O>],
    id: A,
    map: impl Fn(T) -> A,
    comb: impl Fn(A, A) -> A,
    fin: impl Fn(A) -> O,
) {
    for (o, w) in out.iter_mut().zip(offs.windows(2)) {
        let xs = &x[w[0] as usize..w[1] as usize];
        let mut l = [id; SEG_LANES];
        let mut chunks = xs.chunks_exact(SEG_LANES);
        for c in &mut chunks {
            for (l, &v) in l.iter_mut().zip(c) {
                *l = comb(*l, map(v));
            }
        }
        // the rest in two scalar chains: folding it into the lanes would go
        // through masked stores, which stall the next segment's loads
        let (mut r0, mut r1) = (id, id);
        let mut pairs = chunks.remainder().chunks_exact(2);
        for p in &mut pairs {
            r0 = comb(r0, map(p[0]));
            r1 = comb(r1, map(p[1]));
        }
        if let [v] = pairs.remainder() {
            r0 = comb(r0, map(*v));
        }
        let a = comb(
            comb(comb(l[0], l[4]), comb(l[2], l[6])),
            comb(comb(l[1], l[5]), comb(l[3], l[7])),
        );
        o.write(fin(comb(a, comb(r0, r1))));
    }
}

avx2_dispatch! {
    /// Folds the segments `offs[k]..offs[k + 1]` of `x` into `out[k]`.
    fn segs<T: Copy, A: Copy, O>(x: &[T], offs: &[i64], out: &mut [MaybeUninit<O>], id: A, map: impl Fn(T) -> A, comb: impl Fn(A, A) -> A, fin: impl Fn(A) -> O) = segs_impl;
}

fn fold_segments<T: Copy + Sync, A: Copy + Send + Sync, O: Lane>(
    x: &[T],
    offs: &[i64],
    id: A,
    map: impl Fn(T) -> A + Copy + Sync,
    comb: impl Fn(A, A) -> A + Copy + Sync,
    fin: impl Fn(A) -> O + Copy + Sync,
) -> Result<Vec<O>, Diagnostic> {
    let nseg = offs.len().saturating_sub(1);
    let total = x.len();
    // tasks of about CHUNK values in whole segments
    let per = (CHUNK * nseg / total.max(1)).max(16);
    fresh(nseg, |out| {
        let task = |(k, part): (usize, &mut [MaybeUninit<O>])| -> Result<(), Diagnostic> {
            check_interrupt()?;
            let first = k * per;
            segs(x, &offs[first..first + part.len() + 1], part, id, map, comb, fin);
            Ok(())
        };
        if crate::backend::cpu::contention::parallel_pays(total + nseg, PAR_WORK) && nseg > per {
            out.par_chunks_mut(per).enumerate().try_for_each(task)
        } else {
            out.chunks_mut(per).enumerate().try_for_each(task)
        }
    })
}
