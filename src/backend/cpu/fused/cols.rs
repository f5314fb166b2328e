//! A "reduce-cols" reduction of one buffer as it is (`sum(x, axis=0)`, a
//! middle axis of a realized array): the kept inner axis contiguous, so each
//! reduced index gives a run of values in place. A panel of up to `BLOCK`
//! outputs folds four reduced rows per pass over its accumulators, each
//! accumulator still taking its values in reduced order, so the result is
//! the general "cols" loop's bitwise, with a quarter of its accumulator
//! traffic and no copy of the values into registers.

use super::{over_chunks, task_items};
use crate::backend::cpu::block::{BLOCK, Data, Input, Lane, Program, Reg, Src, Value, avx2_dispatch};
use crate::diag::Diagnostic;
use crate::plan::Inst;
use std::mem::MaybeUninit;

/// Reduced indices whose offsets are tabled; a longer reduced range takes the general loop.
const MAX_TABLE: usize = 1 << 22;

/// The values of a program that only loads one buffer of `T`, if it is one.
fn loaded<'a, T: Lane>(prog: &Program<'a>) -> Option<&'a [T]> {
    if prog.steps.len() != 1 || prog.steps[0].inst != Inst::Load(0) || prog.inputs.len() != 1 {
        return None;
    }
    let Input::Data(d) = prog.inputs[0].input else {
        return None;
    };
    let v = match d {
        Data::B(x) => Value::B(Src::Slice(x)),
        Data::I32(x) => Value::I32(Src::Slice(x)),
        Data::I64(x) => Value::I64(Src::Slice(x)),
        Data::F32(x) => Value::F32(Src::Slice(x)),
        Data::F64(x) => Value::F64(Src::Slice(x)),
        // widened as it is loaded: the general loop's
        Data::Storage(_) => return None,
    };
    match T::src(v) {
        Some(Src::Slice(x)) => Some(x),
        _ => None,
    }
}

#[inline(always)]
fn fold4_impl<T: Copy, A: Copy>(acc: &mut [A], xs: [&[T]; 4], map: impl Fn(T) -> A, comb: impl Fn(A, A) -> A) {
    let n = acc.len();
    let (x0, x1, x2, x3) = (&xs[0][..n], &xs[1][..n], &xs[2][..n], &xs[3][..n]);
    for j in 0..n {
        acc[j] = comb(comb(comb(comb(acc[j], map(x0[j])), map(x1[j])), map(x2[j])), map(x3[j]));
    }
}

#[inline(always)]
fn fold1_impl<T: Copy, A: Copy>(acc: &mut [A], x: &[T], map: impl Fn(T) -> A, comb: impl Fn(A, A) -> A) {
    for (a, &v) in acc.iter_mut().zip(x) {
        *a = comb(*a, map(v));
    }
}

/// Folds the rows at `offs` (each `acc.len()` values of `x`) into `acc`, in order.
#[inline(always)]
fn fold_panel_impl<T: Copy, A: Copy>(
    x: &[T],
    base: isize,
    offs: &[isize],
    acc: &mut [A],
    map: impl Fn(T) -> A,
    comb: impl Fn(A, A) -> A,
) {
    let n = acc.len();
    let row = |o: isize| {
        let s = (base + o) as usize;
        &x[s..s + n]
    };
    let mut quads = offs.chunks_exact(4);
    for q in &mut quads {
        fold4_impl(acc, [row(q[0]), row(q[1]), row(q[2]), row(q[3])], &map, &comb);
    }
    for &o in quads.remainder() {
        fold1_impl(acc, row(o), &map, &comb);
    }
}

avx2_dispatch! {
    fn fold_panel<T: Copy, A: Copy>(x: &[T], base: isize, offs: &[isize], acc: &mut [A], map: impl Fn(T) -> A, comb: impl Fn(A, A) -> A) = fold_panel_impl;
}

/// Whether `direct` runs this reduction: a program that loads one buffer of
/// `T` with its kept inner axis contiguous.
pub(super) fn applies<T: Lane>(prog: &Program, shape: &[usize], kept: usize) -> bool {
    let red: usize = shape[kept.min(shape.len())..].iter().product();
    loaded::<T>(prog).is_some()
        && kept > 0
        && kept < shape.len()
        && red <= MAX_TABLE
        && prog.inputs[0].strides[kept - 1] == 1
}

/// The "cols" reduction of a program `applies` accepts, into `out`.
#[allow(clippy::too_many_arguments)]
pub(super) fn direct<T: Lane, A: Copy + Send + Sync, O: Lane>(
    prog: &Program,
    shape: &[usize],
    kept: usize,
    id: A,
    map: impl Fn(T) -> A + Copy + Sync,
    comb: impl Fn(A, A) -> A + Copy + Sync,
    fin: impl Fn(A) -> O + Copy + Sync,
    out: &mut [MaybeUninit<O>],
) -> Result<(), Diagnostic> {
    let Some(x) = loaded::<T>(prog) else {
        return Err(super::internal("a direct cols reduction of a computed body"));
    };
    let b = &prog.inputs[0];
    let red: usize = shape[kept..].iter().product();
    let outs = out.len();
    if outs == 0 {
        return Ok(());
    }
    // every reduced index's offset, in reduced (row-major) order
    let mut roffs = vec![0isize];
    for (&d, &s) in shape[kept..].iter().zip(&b.strides[kept..]) {
        let d = d as isize;
        roffs = roffs.iter().flat_map(|&o| (0..d).map(move |k| o + k * s)).collect();
    }
    let kin = shape[kept - 1];
    let task = |start: usize, part: &mut [MaybeUninit<O>], _: &mut Vec<Reg>| -> Result<(), Diagnostic> {
        super::check_interrupt()?;
        let mut acc = vec![id; BLOCK.min(part.len())];
        let end = start + part.len();
        let mut p = start;
        while p < end {
            let (row, col) = (p / kin, p % kin);
            let len = BLOCK.min(kin - col).min(end - p);
            // the kept axes' offset of this run of outputs
            let mut base = b.offset + col as isize;
            let mut rest = row;
            for ax in (0..kept - 1).rev() {
                base += (rest % shape[ax]) as isize * b.strides[ax];
                rest /= shape[ax];
            }
            let acc = &mut acc[..len];
            acc.fill(id);
            fold_panel(x, base, &roffs, acc, map, comb);
            for (o, &a) in part[p - start..p - start + len].iter_mut().zip(acc.iter()) {
                o.write(fin(a));
            }
            p += len;
        }
        Ok(())
    };
    let size = task_items(outs, red, 1);
    over_chunks(prog, out, outs * red, size, task)
}
