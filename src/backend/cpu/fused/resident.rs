//! The row-resident strategy on the CPU (`Strategy::RowResident`, made by
//! `plan::rows`): softmax, log-softmax, layer norm, variance and the norms are
//! one kernel that takes each row once from memory into per-thread registers
//! a row long (they stay in L1/L2), reduces it once per stage with the
//! elementwise work between the stages running over the held row, and writes
//! the result per element or per row, and any per-row values read after it
//! (n-body's three force sums). Rows of at most a quarter block go several
//! to a block (`block::eval_resident_rows`) where `block::rows_pay` says so,
//! each step's loop running over all of them and a value the same along each
//! row held once per row. Rows go in chunks over rayon; every
//! row's reductions fold as a kernel that reduces a row by itself does
//! (`fold_row`: the lanes of "reduce-rows" from 128 elements, eight lanes
//! below that as in "reduce-short-rows"), so the result does not depend on
//! the thread count, and for rows of 16 or more a row-resident sum equals
//! the separate reduction's sum bitwise (shorter rows fold there as trees).
//! Rows longer than a block whose reductions read nothing reduced
//! (`plan::rows_stream`: n-body's force sums) are streamed instead: the body
//! up to the reductions runs block by block, only the reduced values are
//! held a row long, and the per-row rest runs once a row.

use super::{RowWalk, bottom, check_interrupt, fold_row, fresh, internal, task_items, top, with_program};
use crate::backend::cpu::block::{self, Lane, Program, Reg, Regs, Src, Taps, Value};
use crate::backend::cpu::kernels::Num;
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::Node;
use crate::graph::data::HostData;
use crate::graph::op::ReduceOp;
use crate::plan::{ExtraOut, KernelPlan, RowStage, Step};
use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;
use std::mem::MaybeUninit;
use std::rc::Rc;

/// Runs a row-resident kernel over its [rows, cols] space: its output, and
/// its extra per-row outputs (`ExtraOut`) in order.
pub(super) fn row_resident(
    kp: &KernelPlan,
    stages: &[RowStage],
    want: usize,
    per_row: bool,
    extra: &[ExtraOut],
    by_id: &HashMap<u64, Rc<Node>>,
) -> Result<(HostData, Vec<HostData>), Diagnostic> {
    let &[rows, cols] = kp.shape.as_slice() else {
        return Err(internal("a row-resident kernel not over [rows, cols]"));
    };
    with_program(kp, by_id, |prog| {
        let n = if per_row { rows } else { rows * cols };
        let taps: Vec<usize> = extra.iter().map(|e| e.value).collect();
        let streamed = crate::plan::rows_stream(kp);
        let mut tapped = Vec::new();
        macro_rules! go {
            ($T:ty, $V:ident) => {
                HostData::$V(fresh::<$T>(n, |o| {
                    tapped = run_rows(prog, rows, cols, stages, want, per_row, streamed, &taps, o)?;
                    Ok(())
                })?)
            };
        }
        let out = match kp.out_dtype {
            DType::Bool => go!(bool, Bool),
            DType::I32 => go!(i32, I32),
            DType::I64 => go!(i64, I64),
            DType::F32 => go!(f32, F32),
            DType::F64 => go!(f64, F64),
            crate::storage_only_dtype!() => return Err(internal("storage-only dtypes run on the reference kernels")),
        };
        // tapped holds each row's extra values, row after row
        let extras = extra
            .iter()
            .enumerate()
            .map(|(e, o)| gather_column(&tapped, extra.len(), e, rows, o.dtype))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((out, extras))
    })
}

/// Column `e` of `values` (rows of `width` values each) as a vector of `dtype`.
fn gather_column(
    values: &[Value<'static>],
    width: usize,
    e: usize,
    rows: usize,
    dtype: DType,
) -> Result<HostData, Diagnostic> {
    let column = values.iter().skip(e).step_by(width.max(1));
    let wrong = || internal("an extra row-resident output of another dtype");
    macro_rules! go {
        ($T:ty, $V:ident, $W:ident) => {{
            let mut v: Vec<$T> = Vec::with_capacity(rows);
            for x in column {
                match x {
                    Value::$W(Src::Scalar(x)) => v.push(*x),
                    _ => return Err(wrong()),
                }
            }
            HostData::$V(v)
        }};
    }
    let out = match dtype {
        DType::Bool => go!(bool, Bool, B),
        DType::I32 => go!(i32, I32, I32),
        DType::I64 => go!(i64, I64, I64),
        DType::F32 => go!(f32, F32, F32),
        DType::F64 => go!(f64, F64, F64),
        crate::storage_only_dtype!() => return Err(wrong()),
    };
    if out.len() != rows {
        return Err(internal("an extra row-resident output of the wrong length"));
    }
    Ok(out)
}

/// Runs the rows into `out`; returns the tapped steps' values, `taps.len()` per row, row after row.
#[allow(clippy::too_many_arguments)]
fn run_rows<T: Lane>(
    prog: &Program,
    rows: usize,
    cols: usize,
    stages: &[RowStage],
    want: usize,
    per_row: bool,
    streamed: bool,
    taps: &[usize],
    out: &mut [MaybeUninit<T>],
) -> Result<Vec<Value<'static>>, Diagnostic> {
    if out.is_empty() {
        return Ok(Vec::new());
    }
    if cols == 0 {
        return Err(internal("a row-resident kernel of empty rows"));
    }
    let per = if per_row { 1 } else { cols };
    // short rows go several to a block where that saves more than it copies
    let walk = RowWalk::new(prog, &[rows, cols], true);
    let (inner, row_strides, per_block) = (&walk.inner, &walk.rows, walk.per_block);
    let width = taps.len();
    // long rows of a body that allows it go through in blocks (`plan::rows_stream`)
    let parts = (streamed && per_block == 1 && cols > block::BLOCK)
        .then(|| block::StreamSplit::new(prog.steps, stages, want, taps))
        .flatten();
    let streamed = parts
        .as_ref()
        .map(|parts| (parts, Program::new(&parts.steps, prog.inputs.clone(), None)));
    let filler = Value::B(Src::Scalar(false));
    let task =
        |r0: usize, part: &mut [MaybeUninit<T>], regs: &mut RowRegs| -> Result<Vec<Value<'static>>, Diagnostic> {
            check_interrupt()?;
            let mut offs = vec![0isize; prog.inputs.len()];
            let nrows = part.len() / per;
            let mut tapped = vec![filler; width * nrows];
            let mut k = 0;
            while k < nrows {
                let r = (r0 + k) as isize;
                for (o, b) in offs.iter_mut().zip(&prog.inputs) {
                    *o = b.offset + r * b.strides[0];
                }
                // per element: the kernel writes straight into `dst`; per row:
                // the row values come back and are written here
                let nr = per_block.min(nrows - k);
                let dst = &mut part[k * per..(k + nr) * per];
                let taps = Taps {
                    steps: taps,
                    values: &mut tapped[k * width..(k + nr) * width],
                };
                k += nr;
                if let Some((parts, split)) = &streamed {
                    let v = block::eval_resident_streamed(
                        prog,
                        split,
                        parts,
                        &offs,
                        inner,
                        cols,
                        &mut regs.split[..],
                        &mut regs.values[..],
                        &mut regs.wide[..],
                        stages,
                        &row_fold,
                        want,
                        taps,
                    )?;
                    dst[0].write(row_value(v)?);
                    continue;
                }
                let out = (!per_row).then(|| T::dst(&mut *dst));
                if per_block > 1 {
                    let (values, wide) = (&mut regs.values[..], &mut regs.wide[..]);
                    let returned = block::eval_resident_rows(
                        prog,
                        &offs,
                        row_strides,
                        inner,
                        cols,
                        nr,
                        values,
                        wide,
                        stages,
                        &row_fold,
                        want,
                        out,
                        taps,
                    )?;
                    if per_row {
                        let (v, row) = returned.ok_or_else(|| internal("a row value not returned"))?;
                        let v = T::src(v).ok_or_else(|| internal("a row-resident output of another dtype"))?;
                        for (i, d) in dst.iter_mut().enumerate() {
                            d.write(v.at(if row { i } else { i * cols }));
                        }
                    }
                    continue;
                }
                let returned = block::eval_resident(
                    prog,
                    &offs,
                    inner,
                    cols,
                    &mut regs.values[..],
                    stages,
                    &row_fold,
                    want,
                    out,
                    taps,
                )?;
                if per_row {
                    let v = returned.ok_or_else(|| internal("a row value not returned"))?;
                    dst[0].write(row_value(v)?);
                }
            }
            Ok(tapped)
        };
    let new_regs = || RowRegs {
        values: Reg::for_steps_len(prog.steps, if streamed.is_some() { 1 } else { cols * per_block }),
        split: match &streamed {
            Some((parts, _)) => Reg::for_steps(&parts.steps),
            None => Reg::for_steps_len(&[], 0),
        },
        wide: if streamed.is_some() {
            // each stage's values, a row long
            let held: Vec<Step> = stages.iter().map(|st| prog.steps[st.value].clone()).collect();
            Reg::for_steps_len(&held, cols)
        } else if per_block > 1 {
            Reg::for_steps_len(prog.steps, cols * per_block)
        } else {
            Reg::for_steps_len(&[], 0)
        },
    };
    if !super::parallel_pays(prog, rows * cols) {
        return task(0, out, &mut new_regs());
    }
    let per_task = task_items(rows, cols, per_block);
    let parts: Vec<Vec<Value<'static>>> = out
        .par_chunks_mut(per_task * per)
        .enumerate()
        .with_max_len(1)
        .map_init(new_regs, |regs, (c, part)| task(c * per_task, part, regs))
        .collect::<Result<_, _>>()?;
    Ok(parts.concat())
}

/// A row's one value (a scalar, or the first of a row of equal values) as `T`.
fn row_value<T: Lane>(v: Value<'_>) -> Result<T, Diagnostic> {
    match T::src(v) {
        Some(Src::Scalar(x)) => Ok(x),
        Some(Src::Slice(xs)) => xs.first().copied().ok_or_else(|| internal("an empty row value")),
        None => Err(internal("a row-resident output of another dtype")),
    }
}

/// A worker's registers: one per step, and with several rows a block one
/// more per step for row values spread over their rows (streamed, one per
/// stage for its values along the row).
struct RowRegs {
    values: Regs,
    /// Streamed: one per step of the part before the reductions.
    split: Regs,
    wide: Regs,
}

/// A row's reduction with `op`: the lane fold of a "reduce-rows" kernel over
/// one chunk, then the chunk combine (`comb(id, partial)`), then its finish.
fn row_fold(op: ReduceOp, v: Value<'_>, len: usize) -> Result<Value<'static>, Diagnostic> {
    macro_rules! go {
        ($x:expr, $id:expr, $map:expr, $comb:expr, $fin:expr, $W:ident) => {{
            let (id, comb) = ($id, $comb);
            let partial = fold_row($x, len, id, $map, comb);
            Value::$W(Src::Scalar($fin(comb(id, partial))))
        }};
    }
    let arg = || internal("an arg-reduction in a row-resident kernel");
    Ok(match v {
        Value::F32(x) => num_fold!(op, f32, F32, B, go!(x,), return Err(arg())),
        Value::F64(x) => num_fold!(op, f64, F64, B, go!(x,), return Err(arg())),
        Value::I32(x) => num_fold!(op, i32, I32, B, go!(x,), return Err(arg())),
        Value::I64(x) => num_fold!(op, i64, I64, B, go!(x,), return Err(arg())),
        Value::B(x) => bool_fold!(op, I64, B, go!(x,), return Err(arg())),
    })
}
