//! The row-resident strategy on the CPU (`Strategy::RowResident`, made by
//! `plan::rows`): softmax, log-softmax, layer norm, variance and the norms are
//! one kernel that takes each row once from memory into per-thread registers
//! a row long (they stay in L1/L2), reduces it once per stage with the
//! elementwise work between the stages running over the held row, and writes
//! the result per element or per row. Rows go in chunks over rayon; every
//! row's reductions fold as a kernel that reduces a row by itself does
//! (`fold_row`: the lanes of "reduce-rows" from 128 elements, eight lanes
//! below that as in "reduce-short-rows"), so the result does not depend on
//! the thread count, and for rows of 16 or more a row-resident sum equals
//! the separate reduction's sum bitwise (shorter rows fold there as trees).

use super::{Buffers, bind_with, bottom, check_interrupt, fold_row, fresh, internal, top};
use crate::backend::cpu::block::{self, Lane, Program, Reg, Src, Value};
use crate::backend::cpu::kernels::{Num, PAR_THRESHOLD};
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::Node;
use crate::graph::data::HostData;
use crate::graph::op::ReduceOp;
use crate::plan::{KernelPlan, RowStage};
use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;
use std::mem::MaybeUninit;
use std::rc::Rc;

/// Runs a row-resident kernel over its [rows, cols] space.
pub(super) fn row_resident(
    kp: &KernelPlan,
    stages: &[RowStage],
    want: usize,
    per_row: bool,
    by_id: &HashMap<u64, Rc<Node>>,
) -> Result<HostData, Diagnostic> {
    let &[rows, cols] = kp.shape.as_slice() else {
        return Err(internal("a row-resident kernel not over [rows, cols]"));
    };
    let bufs = Buffers::of(&kp.operands, by_id)?;
    let guards = bufs.guards();
    let inputs = bind_with(&kp.operands, &kp.shape, &guards)?;
    let prog = Program {
        steps: &kp.body,
        inputs,
        acc: None,
    };
    let n = if per_row { rows } else { rows * cols };
    macro_rules! go {
        ($T:ty, $V:ident) => {
            HostData::$V(fresh::<$T>(n, |o| {
                run_rows(&prog, rows, cols, stages, want, per_row, o)
            })?)
        };
    }
    Ok(match kp.out_dtype {
        DType::Bool => go!(bool, Bool),
        DType::I32 => go!(i32, I32),
        DType::I64 => go!(i64, I64),
        DType::F32 => go!(f32, F32),
        DType::F64 => go!(f64, F64),
        DType::F16 | DType::BF16 => return Err(internal("half-float kernels run on the reference kernels")),
    })
}

fn run_rows<T: Lane>(
    prog: &Program,
    rows: usize,
    cols: usize,
    stages: &[RowStage],
    want: usize,
    per_row: bool,
    out: &mut [MaybeUninit<T>],
) -> Result<(), Diagnostic> {
    if out.is_empty() {
        return Ok(());
    }
    if cols == 0 {
        return Err(internal("a row-resident kernel of empty rows"));
    }
    let per = if per_row { 1 } else { cols };
    let inner: Vec<isize> = prog.inputs.iter().map(|b| b.strides[1]).collect();
    let task = |r0: usize, part: &mut [MaybeUninit<T>], regs: &mut [Reg]| -> Result<(), Diagnostic> {
        check_interrupt()?;
        let mut offs = vec![0isize; prog.inputs.len()];
        for (k, dst) in part.chunks_mut(per).enumerate() {
            let r = (r0 + k) as isize;
            for (o, b) in offs.iter_mut().zip(&prog.inputs) {
                *o = b.offset + r * b.strides[0];
            }
            if !per_row {
                block::eval_resident(
                    prog,
                    &offs,
                    &inner,
                    cols,
                    regs,
                    stages,
                    &row_fold,
                    want,
                    Some(T::dst(dst)),
                )?;
                continue;
            }
            let v = block::eval_resident(prog, &offs, &inner, cols, regs, stages, &row_fold, want, None)?
                .ok_or_else(|| internal("a row value not returned"))?;
            let x = match T::src(v) {
                Some(Src::Scalar(x)) => x,
                Some(Src::Slice(xs)) => *xs.first().ok_or_else(|| internal("an empty row value"))?,
                None => return Err(internal("a row-resident output of another dtype")),
            };
            dst[0].write(x);
        }
        Ok(())
    };
    if !super::parallel_pays(prog, rows * cols) {
        let mut regs = Reg::for_steps_len(prog.steps, cols);
        return task(0, out, &mut regs[..]);
    }
    // a few tasks per thread, each at least the parallel threshold's work
    let threads = rayon::current_num_threads().max(1);
    let per_task = rows.div_ceil(4 * threads).max(PAR_THRESHOLD / cols).max(1);
    out.par_chunks_mut(per_task * per).enumerate().try_for_each_init(
        || Reg::for_steps_len(prog.steps, cols),
        |regs, (c, part)| task(c * per_task, part, &mut regs[..]),
    )
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
