//! The fused CPU executor: runs the planner's kernels (`plan::KernelPlan`)
//! instead of one node at a time, so a chain of elementwise ops, its
//! broadcasts and the reduction it feeds make one pass over memory with no
//! temporaries.
//!
//! A map cuts its collapsed iteration space into blocks along the inner axis
//! (`block::BLOCK`), chunks of blocks spread over rayon (one thread below
//! `PAR_WORK` element-steps), each block evaluated by `block::eval_block`
//! straight into the output, which is never zero-filled. Rows shorter than a
//! quarter block go several to a block (`block::eval_rows`), so a step's loop
//! is never only as long as one short row; a reduction over several axes
//! whose last is short does the same.
//!
//! A reduction evaluates the same block bodies and folds them into lane
//! accumulators. Along a long reduced axis ("rows") each output's reduced
//! range is cut into fixed chunks of `RED_CHUNK` elements whose partials are
//! combined in chunk order; across a short or strided one ("cols") a block
//! of outputs accumulates element by element over the reduced indices; one
//! short reduced axis that moves along memory ("short-rows") reads many rows
//! per block and folds each into its output in registers. These
//! decompositions depend only on the shape, never on the thread count, so a
//! result is the same on every machine with the same build. Epilogues run as
//! a map over the kept axes, reading the reduced values as an operand.
//!
//! A "cols" reduction of a buffer as it is reads its rows in place, four
//! reduced rows per pass over the accumulators (`cols`). Scans (`scan`:
//! tiles with carries, several side by side) and segmented reductions
//! (`segment`: one pass, a buffer's values in place) have their own loops.
//! Matmul, concat, take, arg-reductions and empty reductions keep the
//! reference kernels (`kernels`): their producers' expressions are
//! evaluated first into a temporary.

// Diagnostic is the project's one error type; whether to box it is a crate-wide decision.
#![allow(clippy::result_large_err)]

/// The fold of reduction `$op` over values of the numeric type `$T`, as the
/// four parts every CPU reduction loop takes, handed on as
/// `$go!($($pre)* identity, map, combine, finish, Variant)`: sums and products
/// accumulate in `Num::Acc`, `any`/`all` give the `$B` (bool) variant. An
/// arg-reduction evaluates `$arg` (they run on the reference kernels).
macro_rules! num_fold {
    ($op:expr, $T:ty, $V:ident, $B:ident, $go:ident!($($pre:tt)*), $arg:expr) => {{
        type A = <$T as Num>::Acc;
        match $op {
            ReduceOp::Sum => $go!($($pre)* <A as Num>::ZERO, |x: $T| x.to_acc(), |a: A, b: A| a.add(b), <$T>::from_acc, $V),
            ReduceOp::Prod => $go!($($pre)* <A as Num>::ONE, |x: $T| x.to_acc(), |a: A, b: A| a.mul(b), <$T>::from_acc, $V),
            ReduceOp::Min => $go!($($pre)* top::<$T>(), |x: $T| x, |a: $T, b: $T| Num::minimum(a, b), |a: $T| a, $V),
            ReduceOp::Max => $go!($($pre)* bottom::<$T>(), |x: $T| x, |a: $T, b: $T| Num::maximum(a, b), |a: $T| a, $V),
            ReduceOp::Any => $go!($($pre)* false, |x: $T| x != <$T as Num>::ZERO, |a: bool, b: bool| a | b, |a: bool| a, $B),
            ReduceOp::All => $go!($($pre)* true, |x: $T| x != <$T as Num>::ZERO, |a: bool, b: bool| a & b, |a: bool| a, $B),
            ReduceOp::ArgMin | ReduceOp::ArgMax => $arg,
        }
    }};
}

/// `num_fold!` for bool values: a sum counts the true values (an i64, as the
/// reference does); otherwise bool arithmetic is logic: max is `any`,
/// prod/min are `all`.
macro_rules! bool_fold {
    ($op:expr, $I:ident, $B:ident, $go:ident!($($pre:tt)*), $arg:expr) => {
        match $op {
            ReduceOp::Sum => $go!($($pre)* 0i64, |x: bool| i64::from(x), |a: i64, b: i64| a.wrapping_add(b), |a: i64| a, $I),
            ReduceOp::Any | ReduceOp::Max => $go!($($pre)* false, |x: bool| x, |a: bool, b: bool| a | b, |a: bool| a, $B),
            ReduceOp::All | ReduceOp::Prod | ReduceOp::Min => {
                $go!($($pre)* true, |x: bool| x, |a: bool, b: bool| a & b, |a: bool| a, $B)
            }
            ReduceOp::ArgMin | ReduceOp::ArgMax => $arg,
        }
    };
}

mod arg;
mod cols;
mod into;
pub(super) use into::BoxRegion;
mod resident;
mod scan;
mod segment;

pub use into::write_within;

use super::block::{
    self, BLOCK, Bound, Data, Dst, Input, Lane, Out, Program, Reg, Src, Tap, Value, avx2_dispatch, iteration_strides,
};
use super::kernels::{self, Num, PAR_THRESHOLD};
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::{Op, ReduceOp};
use crate::graph::view::{View, contiguous_strides};
use crate::graph::{Buffer, Node, NodeState, Storage};
use crate::plan::cache::{PlanCache, Planned};
use crate::plan::{DeviceInfo, ExtraOut, KernelPlan, Operand, Plan, Source, Strategy, steps_raise};
use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::{Ref, RefCell};
use std::mem::MaybeUninit;
use std::rc::Rc;
use std::time::Instant;

/// Reduced elements per partial of a long reduction (a fixed decomposition,
/// so sums do not depend on the thread count).
const RED_CHUNK: usize = 1 << 15;

/// Outputs per panel of a "cols" reduction (its accumulators stay in L2).
const COLS_PANEL: usize = 8 * BLOCK;

/// Lane accumulators per partial: enough independent chains to hide the
/// latency of the add, or the compare and blend of a max, at the vector
/// widths of AVX2 and AVX-512 (four f32 vectors, eight of f64 partials);
/// eight lanes left a row's reduction waiting on one or two chains.
const LANES: usize = 32;

/// Rows shorter than `LANE_ROW` fold into this many lanes, combined in
/// order: a row of a few dozen would fill only some of `LANES`, and their
/// tree would cost more than the row.
const SHORT_LANES: usize = 8;
const LANE_ROW: usize = 4 * LANES;

/// One whole row's fold (`len` values; a scalar row folds as `len` copies
/// of it would), the same in every kernel that reduces rows on their own
/// ("reduce-short-rows", "row-resident"; "reduce-rows" too, for rows of at
/// least `LANE_ROW` and at most `RED_CHUNK`): the lanes, then their
/// combination.
#[inline(always)]
fn fold_row_impl<T: Copy, A: Copy>(x: Src<T>, len: usize, id: A, map: impl Fn(T) -> A, comb: impl Fn(A, A) -> A) -> A {
    if len < LANE_ROW {
        let mut lanes = [id; SHORT_LANES];
        match x {
            Src::Slice(row) => {
                let mut chunks = row[..len].chunks_exact(SHORT_LANES);
                for c in &mut chunks {
                    for (l, &v) in lanes.iter_mut().zip(c) {
                        *l = comb(*l, map(v));
                    }
                }
                for (l, &v) in lanes.iter_mut().zip(chunks.remainder()) {
                    *l = comb(*l, map(v));
                }
            }
            Src::Scalar(v) => {
                let m = map(v);
                for k in 0..len {
                    lanes[k % SHORT_LANES] = comb(lanes[k % SHORT_LANES], m);
                }
            }
        }
        return lanes.into_iter().fold(id, comb);
    }
    let mut lanes = [id; LANES];
    fold_lanes_impl(x, len, &mut lanes, &map, &comb);
    tree_fold(lanes, id, comb)
}

avx2_dispatch! {
    /// `fold_row_impl` for a row on its own.
    #[inline(always)]
    fn fold_row<T: Copy, A: Copy>(x: Src<T>, len: usize, id: A, map: impl Fn(T) -> A, comb: impl Fn(A, A) -> A) -> A = fold_row_impl;
}

/// The lanes combined as a balanced tree, halves elementwise (a few vector
/// operations, a chain five deep), then into the identity as a sequential
/// fold starts from it.
#[inline(always)]
fn tree_fold<A: Copy>(mut lanes: [A; LANES], id: A, comb: impl Fn(A, A) -> A) -> A {
    let mut h = LANES;
    while h > 1 {
        h /= 2;
        for k in 0..h {
            lanes[k] = comb(lanes[k], lanes[k + h]);
        }
    }
    comb(id, lanes[0])
}

fn internal(message: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::spanless("E0499", format!("internal: {message}"))
}

/// The diagnostic of a computation stopped by the user (Ctrl-C).
pub fn interrupted() -> Diagnostic {
    Diagnostic::spanless("E0407", "interrupted").with_hint("the computation was stopped; variables keep their values")
}

fn check_interrupt() -> Result<(), Diagnostic> {
    if crate::interrupt::requested() {
        Err(interrupted())
    } else {
        Ok(())
    }
}

/// One kernel's run, for `--profile`.
#[derive(Clone, Debug)]
pub struct KernelTime {
    pub label: String,
    pub strategy: String,
    pub seconds: f64,
    pub bytes: u64,
}

/// The fused executor's state: plans by graph structure, and the profile.
pub struct Fused {
    plans: RefCell<PlanCache<()>>,
    pub(super) profile: RefCell<Option<Vec<KernelTime>>>,
}

impl Default for Fused {
    fn default() -> Self {
        Fused {
            // a graph seen once is not copied into the cache (`admit_on_repeat`)
            plans: RefCell::new(PlanCache::admit_on_repeat().shape_generic(DeviceInfo::for_cpu())),
            profile: RefCell::new(None),
        }
    }
}

impl Fused {
    pub fn plan(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Plan {
        self.planned(nodes, outputs).plan
    }

    fn planned(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Planned {
        self.plans.borrow_mut().get_or_plan(nodes, outputs, || {
            crate::plan::plan(nodes, outputs, &DeviceInfo::for_cpu())
        })
    }

    /// Runs the plan for `nodes` (through `into` as `run_plan` does), then
    /// hands it back to the cache, whose next hit re-binds it in place.
    fn run_planned(
        &self,
        nodes: &[Rc<Node>],
        outputs: &[Rc<Node>],
        into: Option<into::Target<'_>>,
    ) -> Result<bool, Diagnostic> {
        let planned = self.planned(nodes, outputs);
        let written = self.run_plan(&planned.plan, &crate::graph::nodes_by_id(nodes), into);
        self.plans.borrow_mut().recycle(planned);
        written
    }

    pub fn execute(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Result<(), Diagnostic> {
        self.run_planned(nodes, outputs, None)?;
        Ok(())
    }

    /// `execute` for a graph that touches a storage-only dtype (f16, bf16, a
    /// narrow integer), planned once: maps and reductions load such values
    /// widened and store them narrowed (`block::load_storage`,
    /// `block::compute_storage`), but a kernel of another strategy that
    /// touches one, or that generates one (`arange`, `rand` of such a
    /// dtype), cannot run here. Runs the plan when it has no such kernel;
    /// otherwise runs nothing and returns their nodes, for the caller to
    /// run on the reference (`CpuBackend::execute_split`).
    pub fn execute_storage(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Result<HashSet<u64>, Diagnostic> {
        let planned = self.planned(nodes, outputs);
        let refused: HashSet<u64> = planned
            .plan
            .kernels
            .iter()
            .filter(|kp| !storage_ok(kp))
            .flat_map(|kp| kp.nodes.iter().copied().chain([kp.output]))
            .collect();
        let ran = match refused.is_empty() {
            true => self
                .run_plan(&planned.plan, &crate::graph::nodes_by_id(nodes), None)
                .map(|_| ()),
            false => Ok(()),
        };
        self.plans.borrow_mut().recycle(planned);
        ran.map(|()| refused)
    }

    /// Runs a plan's kernels in order, each into its node's fresh buffer,
    /// except the kernel of `into`'s root (a slice assignment's source),
    /// which writes into its destination; returns whether that happened.
    fn run_plan(
        &self,
        plan: &Plan,
        by_id: &HashMap<u64, Rc<Node>>,
        into: Option<into::Target<'_>>,
    ) -> Result<bool, Diagnostic> {
        let mut written = false;
        // nodes assembled from parts, while their parts run
        let mut assembling: HashMap<u64, into::Assembly> = HashMap::default();
        for kp in &plan.kernels {
            let node = by_id
                .get(&kp.output)
                .ok_or_else(|| internal("a kernel's output is not in the graph"))?;
            if node.is_ready() {
                continue;
            }
            let spanned = |d: Diagnostic| match &node.span {
                Some(span) => d.or_span(span),
                None => d,
            };
            if parallel_work(kp) >= PAR_THRESHOLD {
                // this kernel may go parallel: have the other workers awake for it
                super::warm::keep_warm();
            }
            let start = Instant::now();
            let target = into.filter(|t| Rc::ptr_eq(node, t.root));
            let strategy = if kp.window.is_some() {
                let part = match assembling.entry(kp.output) {
                    std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                    std::collections::hash_map::Entry::Vacant(e) => {
                        super::check_memory(node)?;
                        e.insert(into::Assembly::new(node.dtype, node.size()))
                    }
                };
                if let Some(values) = part.run_part(kp, by_id).map_err(spanned)? {
                    assembling.remove(&kp.output);
                    match target {
                        // a slice assignment's source: computed whole, then copied, since
                        // a part may read what another part's destination holds
                        Some(target) => {
                            written = true;
                            target.write(values).map_err(spanned)?;
                        }
                        None => *node.state.borrow_mut() = NodeState::Ready(Buffer::host(values)),
                    }
                }
                cpu_strategy(kp)
            } else {
                match target {
                    Some(target) => {
                        written = true;
                        target.run(kp, by_id).map_err(spanned)?
                    }
                    None => {
                        super::check_memory(node)?;
                        let (out, extra) = run_kernel(kp, node, by_id).map_err(spanned)?;
                        *node.state.borrow_mut() = NodeState::Ready(Buffer::host(out));
                        set_extra_outputs(kp, extra, by_id)?;
                        cpu_strategy(kp)
                    }
                }
            };
            if let Some(times) = self.profile.borrow_mut().as_mut() {
                times.push(KernelTime {
                    label: kp.out_label.clone(),
                    strategy: strategy.to_string(),
                    seconds: start.elapsed().as_secs_f64(),
                    bytes: kp.bytes_read + kp.bytes_written,
                });
            }
        }
        if !assembling.is_empty() {
            return Err(internal("a node whose parts did not cover it"));
        }
        Ok(written)
    }
}

/// The elements a kernel's work goes over, as its parallel decision counts
/// them: its iteration space, times the inner dimension for a product (a
/// matrix-vector product's output is one column, its work the whole matrix).
fn parallel_work(kp: &KernelPlan) -> usize {
    let inner = match kp.strategy {
        Strategy::MatMul => kp.operands.first().and_then(|o| o.view.shape.last().copied()),
        _ => None,
    };
    kp.work().saturating_mul(inner.unwrap_or(1).max(1))
}

/// Whether a kernel runs on this executor as far as storage-only dtypes go
/// (see `Fused::execute_storage`).
fn storage_ok(kp: &KernelPlan) -> bool {
    let operands = kp.operands.iter().chain(&kp.epi_operands).chain(&kp.aux);
    let touches = kp.out_dtype.is_storage_only()
        || kp.body.iter().chain(&kp.epilogue).any(|s| s.dtype.is_storage_only())
        || operands.clone().any(|o| o.dtype.is_storage_only());
    if !touches {
        return true;
    }
    let generated = operands
        .filter(|o| o.dtype.is_storage_only())
        .any(|o| o.source != Source::Buffer);
    let strategy = match &kp.strategy {
        Strategy::Map | Strategy::Broadcast | Strategy::Sliding { .. } => true,
        s => s.is_reduce(),
    };
    // a part of a concatenation only if it copies a stored array (`into::Assembly`)
    let copies =
        matches!(&kp.operands[..], [o] if o.source == Source::Buffer && o.dtype == kp.out_dtype) && kp.body.len() == 1;
    strategy && (kp.window.is_none() || copies) && !generated
}

/// How the CPU runs a planned kernel, for `explain` and the profile.
pub fn cpu_strategy(kp: &KernelPlan) -> &'static str {
    if kp.window.is_some() {
        return "map-part";
    }
    match &kp.strategy {
        Strategy::Map | Strategy::Broadcast | Strategy::Sliding { .. } => "map",
        Strategy::MapMulti { .. } => "map-multi",
        Strategy::RowResident { .. } => "row-resident",
        s if s.is_reduce() => match reduce_mode(kp) {
            Some(ReduceMode::Rows) => "reduce-rows",
            Some(ReduceMode::Cols) => "reduce-cols",
            Some(ReduceMode::ShortRows) => "reduce-short-rows",
            None if arg_fused(kp) => "arg-reduce",
            None => "reduce (reference)",
        },
        Strategy::Segmented { .. } => "segmented",
        Strategy::Scan { .. } | Strategy::ScanRows { .. } | Strategy::ScanLookback { .. } => "scan",
        Strategy::MatMul => "matmul (reference)",
        Strategy::Concat { .. } => "concat",
        Strategy::Take { .. } => "take (reference)",
        _ => "scan (reference)",
    }
}

/// Runs one kernel into fresh buffers: its output, and its extra outputs
/// (`KernelPlan::extra_outputs`) in order.
fn run_kernel(
    kp: &KernelPlan,
    node: &Rc<Node>,
    by_id: &HashMap<u64, Rc<Node>>,
) -> Result<(HostData, Vec<HostData>), Diagnostic> {
    check_interrupt()?;
    let out = match &kp.strategy {
        Strategy::RowResident {
            stages,
            out,
            per_row,
            extra,
            ..
        } => return resident::row_resident(kp, stages, *out, *per_row, extra, by_id),
        Strategy::Segmented { .. } => segmented(kp, node, by_id),
        Strategy::MapMulti { extra } => return run_map_multi(kp, extra, by_id),
        Strategy::Map | Strategy::Broadcast | Strategy::Sliding { .. } if kp.reduce.is_none() => {
            return run_map_multi(kp, &[], by_id);
        }
        s if s.is_reduce() => reduce(kp, by_id),
        Strategy::Scan { .. } | Strategy::ScanRows { .. } | Strategy::ScanLookback { .. } => match scan::scan(node)? {
            Some(values) => Ok(values),
            None => super::eval_node_reference(node),
        },
        Strategy::Concat { .. } => match concat(node)? {
            Some(values) => Ok(values),
            None => super::eval_node_reference(node),
        },
        // scans of half floats, matmul, take: every input was materialised by the planner
        _ => super::eval_node_reference(node),
    }?;
    Ok((out, Vec::new()))
}

/// Marks a kernel's extra outputs ready with the buffers computed for them.
fn set_extra_outputs(kp: &KernelPlan, extra: Vec<HostData>, by_id: &HashMap<u64, Rc<Node>>) -> Result<(), Diagnostic> {
    let ids = kp.extra_outputs();
    if ids.len() != extra.len() {
        return Err(internal("a kernel's extra outputs were not all computed"));
    }
    for ((id, _, _), data) in ids.into_iter().zip(extra) {
        if let Some(node) = by_id.get(&id) {
            *node.state.borrow_mut() = NodeState::Ready(Buffer::host(data));
        }
    }
    Ok(())
}

/// The buffers a kernel's operands read, held borrowed while it runs.
struct Buffers {
    buffers: OperandVec<Option<Buffer>>,
}

impl Buffers {
    fn of(operands: &[Operand], by_id: &HashMap<u64, Rc<Node>>) -> Result<Buffers, Diagnostic> {
        let mut buffers = OperandVec::with_capacity(operands.len());
        for o in operands {
            if o.source != Source::Buffer {
                buffers.push(None);
                continue;
            }
            let b = by_id
                .get(&o.node)
                .and_then(|n| n.buffer())
                .ok_or_else(|| internal(format!("operand {} is not realized", o.label)))?;
            buffers.push(Some(b));
        }
        Ok(Buffers { buffers })
    }

    fn guards(&self) -> OperandVec<Option<Ref<'_, Storage>>> {
        self.buffers.iter().map(|b| b.as_ref().map(|b| b.storage())).collect()
    }
}

/// Binds operands (views in the iteration space `shape`) to the data their guards hold.
fn bind_with<'a>(
    operands: &'a [Operand],
    shape: &[usize],
    guards: &'a [Option<Ref<'_, Storage>>],
) -> Result<Vec<Bound<'a>>, Diagnostic> {
    let mut out = Vec::with_capacity(operands.len());
    for (o, g) in operands.iter().zip(guards) {
        let strides = iteration_strides(&o.view.strides);
        if o.view.strides.len() != shape.len() {
            return Err(internal(format!(
                "operand {} has rank {} in a rank-{} kernel",
                o.label,
                o.view.strides.len(),
                shape.len()
            )));
        }
        let input = match (&o.source, g) {
            (Source::Buffer, Some(g)) => {
                let Storage::Host(data) = &**g else {
                    return Err(super::host_error());
                };
                if data.dtype() != o.dtype {
                    return Err(internal(format!(
                        "operand {} is {} data read as {}",
                        o.label,
                        data.dtype(),
                        o.dtype
                    )));
                }
                kernels::check_reach(data.len(), shape, &strides, o.view.offset)?;
                Input::Data(Data::of(data))
            }
            (Source::Arange { start, step }, _) => {
                let integral = |x: f64| x.fract() == 0.0 && x.abs() < 9.0e18;
                Input::Arange {
                    start: *start,
                    step: *step,
                    exact: matches!(o.dtype, DType::I32 | DType::I64) && integral(*start) && integral(*step),
                }
            }
            (Source::Random { key, dist }, _) => Input::Random { key: *key, dist: *dist },
            (Source::Buffer, None) => return Err(internal("an operand without its buffer")),
        };
        out.push(Bound {
            input,
            dtype: o.dtype,
            strides,
            offset: o.view.offset as isize,
        });
    }
    Ok(out)
}

/// A fresh vector of `n` elements of `T`, written by `f` and never zero-filled.
fn fresh<T: Out>(
    n: usize,
    f: impl FnOnce(&mut [MaybeUninit<T>]) -> Result<(), Diagnostic>,
) -> Result<Vec<T>, Diagnostic> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    f(&mut v.spare_capacity_mut()[..n])?;
    // SAFETY: `f` returned Ok, which every caller does only after writing all n elements.
    unsafe { v.set_len(n) };
    Ok(v)
}

/// Runs a map program over `shape` into a fresh contiguous array of `dtype`.
fn run_map_alloc(prog: &Program, shape: &[usize], dtype: DType) -> Result<HostData, Diagnostic> {
    run_map_tapped(prog, shape, dtype, &[])
}

/// Runs a map program over `shape` into a fresh contiguous array of `dtype`,
/// writing each tapped body step beside it (see [`ExtraBuf`]).
fn run_map_tapped(prog: &Program, shape: &[usize], dtype: DType, taps: &[ExtraBuf]) -> Result<HostData, Diagnostic> {
    let shape = if shape.is_empty() { &[1][..] } else { shape };
    let n = shape.iter().product();
    Ok(match dtype {
        DType::Bool => HostData::Bool(fresh(n, |o| run_map(prog, shape, o, taps))?),
        DType::I32 => HostData::I32(fresh(n, |o| run_map(prog, shape, o, taps))?),
        DType::I64 => HostData::I64(fresh(n, |o| run_map(prog, shape, o, taps))?),
        DType::F32 => HostData::F32(fresh(n, |o| run_map(prog, shape, o, taps))?),
        DType::F64 => HostData::F64(fresh(n, |o| run_map(prog, shape, o, taps))?),
        DType::U8 => HostData::U8(fresh(n, |o| run_map(prog, shape, o, taps))?),
        DType::I8 => HostData::I8(fresh(n, |o| run_map(prog, shape, o, taps))?),
        DType::I16 => HostData::I16(fresh(n, |o| run_map(prog, shape, o, taps))?),
        DType::U16 => HostData::U16(fresh(n, |o| run_map(prog, shape, o, taps))?),
        DType::U32 => HostData::U32(fresh(n, |o| run_map(prog, shape, o, taps))?),
        DType::F16 => HostData::F16(fresh(n, |o| run_map(prog, shape, o, taps))?),
        DType::BF16 => HostData::BF16(fresh(n, |o| run_map(prog, shape, o, taps))?),
    })
}

/// Runs `f` on the kernel's body bound to its operands' buffers, which stay
/// borrowed for the call.
pub(super) fn with_program<R>(
    kp: &KernelPlan,
    by_id: &HashMap<u64, Rc<Node>>,
    f: impl FnOnce(&Program) -> Result<R, Diagnostic>,
) -> Result<R, Diagnostic> {
    let bufs = Buffers::of(&kp.operands, by_id)?;
    let guards = bufs.guards();
    let inputs = bind_with(&kp.operands, &kp.shape, &guards)?;
    let prog = Program::new(&kp.body, inputs, None);
    f(&prog)
}

/// Runs a map kernel: its output, and each extra output of a multi-output map
/// (a body step of its own) written block by block beside it into a fresh
/// buffer. A plain map has no extra outputs.
fn run_map_multi(
    kp: &KernelPlan,
    extra: &[ExtraOut],
    by_id: &HashMap<u64, Rc<Node>>,
) -> Result<(HostData, Vec<HostData>), Diagnostic> {
    with_program(kp, by_id, |prog| {
        let shape = if kp.shape.is_empty() { &[1][..] } else { &kp.shape[..] };
        let n: usize = shape.iter().product();
        let mut outs = Vec::with_capacity(extra.len());
        for o in extra {
            if o.shape.iter().product::<usize>() != n || kp.body.get(o.value).is_none_or(|s| s.dtype != o.dtype) {
                return Err(internal("a multi-output map's extra output does not match its body"));
            }
            // `storage_ok` keeps storage-only dtypes out of multi-output maps (their taps are wide)
            if o.dtype.is_storage_only() {
                return Err(internal("a storage-only extra output"));
            }
            outs.push(HostData::with_capacity(o.dtype, n));
        }
        let taps: Vec<ExtraBuf> = extra
            .iter()
            .zip(&mut outs)
            .map(|(o, buf)| ExtraBuf {
                step: o.value,
                ptr: SendPtr(buf.spare_ptr()),
            })
            .collect();
        let out = run_map_tapped(prog, shape, kp.out_dtype, &taps)?;
        for buf in &mut outs {
            // SAFETY: `run_map` returned Ok, so every block of the output was
            // evaluated, and each wrote its elements of every tapped step's buffer.
            unsafe { buf.set_len(n) };
        }
        Ok((out, outs))
    })
}

/// Where a multi-output map writes body step `step`: a buffer of the
/// output's length and the step's dtype, written element `i` of the output
/// at element `i` here, by whichever task evaluates that element's block.
#[derive(Clone, Copy)]
struct ExtraBuf {
    step: usize,
    ptr: SendPtr<u8>,
}

impl ExtraBuf {
    /// The tap writing elements `at..at + len` of this buffer, as `dtype` (the step's).
    ///
    /// SAFETY (callers): the buffer holds at least `at + len` elements of
    /// `dtype`, and no other reference to those elements exists while the
    /// tap lives (each block's range is written by one task only).
    unsafe fn tap<'a>(&self, dtype: DType, at: usize, len: usize) -> Result<Tap<'a>, Diagnostic> {
        fn part<'a, T>(ptr: *mut u8, at: usize, len: usize) -> &'a mut [MaybeUninit<T>] {
            // SAFETY: as the caller of `tap` promised.
            unsafe { std::slice::from_raw_parts_mut((ptr as *mut MaybeUninit<T>).add(at), len) }
        }
        let p = self.ptr.0;
        let dst = match dtype {
            DType::Bool => Dst::B(part(p, at, len)),
            DType::I32 => Dst::I32(part(p, at, len)),
            DType::I64 => Dst::I64(part(p, at, len)),
            DType::F32 => Dst::F32(part(p, at, len)),
            DType::F64 => Dst::F64(part(p, at, len)),
            crate::storage_only_dtype!() => return Err(internal("storage-only dtypes run on the reference kernels")),
        };
        Ok(Tap {
            step: self.step,
            dst: Some(dst),
        })
    }
}

/// Items per parallel task, of `items` items of `item_work` elements each:
/// about eight tasks per thread, each at least a block of elements, a
/// multiple of `align` items. The tasks are handed out one at a time
/// (`with_max_len(1)`), so the threads finish within about one task of each
/// other: a thread that runs out of work while another still has a long
/// task parks, and waking it again costs more than a small task.
pub(super) fn task_items(items: usize, item_work: usize, align: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    items
        .div_ceil(8 * threads)
        .max(BLOCK.div_ceil(item_work.max(1)))
        .max(1)
        .next_multiple_of(align.max(1))
}

/// Offsets of the element at multi-index `idx` (row-major over `dims`, the
/// axes `axes` of the iteration space), added to `offs`.
#[inline]
fn add_offsets(offs: &mut [isize], prog: &Program, axes: std::ops::Range<usize>, dims: &[usize], mut linear: usize) {
    for ax in axes.rev() {
        let d = dims[ax];
        let i = linear % d;
        linear /= d;
        if i != 0 {
            for (o, b) in offs.iter_mut().zip(&prog.inputs) {
                *o += i as isize * b.strides[ax];
            }
        }
    }
}

/// Element-steps below which a kernel runs on the calling thread.
const PAR_WORK: usize = 1 << 17;

/// Whether spreading `elems` elements of `prog` over the pool pays. Handing
/// work to the pool and waiting for it costs a few microseconds of wake-ups
/// and context switches (more on a busy machine: `contention`),
/// which a kernel of a few cheap steps over tens of thousands of elements
/// does not earn back, so the work counts every step, not just the elements.
pub(super) fn parallel_pays(prog: &Program, elems: usize) -> bool {
    super::contention::parallel_pays(elems.saturating_mul(prog.steps.len().max(1)), PAR_WORK)
}

/// Runs `task(first, chunk, regs)` over `out` in chunks of `size` elements,
/// each worker with its own registers; inline, as one chunk, when `work`
/// (elements read) is under the parallel threshold, where waking the pool
/// costs more than it saves. Each chunk's result depends only on its outputs,
/// so any split gives the same answer.
fn over_chunks<T: Send>(
    prog: &Program,
    out: &mut [T],
    work: usize,
    size: usize,
    task: impl Fn(usize, &mut [T], &mut Vec<Reg>) -> Result<(), Diagnostic> + Sync,
) -> Result<(), Diagnostic> {
    if !parallel_pays(prog, work) {
        let mut regs = Reg::for_steps(prog.steps);
        return task(0, out, &mut regs);
    }
    over_chunks_parallel(prog, out, size.max(1), &task)
}

/// A task of `over_chunks`: (first element, its chunk, the worker's registers).
type ChunkTask<'a, T> = dyn Fn(usize, &mut [T], &mut Vec<Reg>) -> Result<(), Diagnostic> + Sync + 'a;

/// `over_chunks`' parallel loop, the task a trait object so that rayon's
/// machinery is instantiated per element type, not per caller.
fn over_chunks_parallel<T: Send>(
    prog: &Program,
    out: &mut [T],
    size: usize,
    task: &ChunkTask<'_, T>,
) -> Result<(), Diagnostic> {
    out.par_chunks_mut(size).enumerate().with_max_len(1).try_for_each_init(
        || Reg::for_steps(prog.steps),
        |regs, (c, part)| task(c * size, part, regs),
    )
}

/// A walk over the rows of a kernel's last axis (`shape[rank - 1]` long)
/// that takes short rows several to a block where `block::rows_pay` says so,
/// shared by maps, maps written through a view and "reduce-rows"
/// reductions: the operands' strides along a row (`inner`) and from one row
/// to the next (`rows`, the axis before), and how many rows a block takes.
pub(super) struct RowWalk {
    pub len: usize,
    /// The axis before the rows' (the rows between its wraps are evenly spaced).
    last: usize,
    /// Rows a block takes (1: one row, or part of one, a block).
    per_block: usize,
    pub rows: OperandVec<isize>,
    pub inner: OperandVec<isize>,
    /// With `Some(stride)`, a block of several rows is read in place as one
    /// span: every operand that is not one value steps 1 along a row and
    /// `stride` from a row to the next, so the block is one run of
    /// `(nrows - 1) * stride + len` elements, the gaps between rows
    /// included (`RowWalk::for_map`).
    pub span: Option<usize>,
}

/// Per-operand values of a kernel (offsets, strides): on the stack for most
/// kernels, which a loop of small statements sets up once per statement.
pub(super) type OperandVec<T> = smallvec::SmallVec<[T; 8]>;

/// A span's gap between two rows is at most 1/`SPAN_GAP_PER_ROW` of a row:
/// computing the gaps then costs less than copying every operand's rows
/// into registers.
const SPAN_GAP_PER_ROW: usize = 4;

impl RowWalk {
    /// Rows of `prog` over `shape`; several to a block only when `several`
    /// (the rows have an axis before them that the walk runs along).
    pub fn new(prog: &Program, shape: &[usize], several: bool) -> RowWalk {
        let rank = shape.len();
        let len = shape[rank - 1];
        let inner: OperandVec<isize> = prog.inputs.iter().map(|b| b.strides[rank - 1]).collect();
        let rows: OperandVec<isize> = prog.inputs.iter().map(|b| b.strides[rank.max(2) - 2]).collect();
        let per_block = if several && rank >= 2 && block::rows_pay(prog, len, &rows, &inner) {
            BLOCK / len
        } else {
            1
        };
        RowWalk {
            len,
            last: if rank >= 2 { shape[rank - 2] } else { 1 },
            per_block,
            rows,
            inner,
            span: None,
        }
    }

    /// The walk of a map: as `new`, but where every operand's rows lie
    /// `stride` apart in its buffer with short gaps between them (views of
    /// one grid shifted against each other: a stencil's neighbours, the
    /// interior of a padded array), several rows go to a block as one span
    /// read in place. The gaps' values are computed and dropped, which is
    /// sound only for a map whose steps cannot fail on any value (an
    /// integer division by a gap's zero would raise an error that the
    /// program does not have).
    pub fn for_map(prog: &Program, shape: &[usize]) -> RowWalk {
        let mut walk = RowWalk::new(prog, shape, true);
        let rank = shape.len();
        let len = walk.len;
        if rank < 2 || len == 0 || shape[rank - 2] < 2 || !block::rows_ok(prog) || steps_raise(prog.steps) {
            return walk;
        }
        let mut stride = None;
        for (&rs, &s) in walk.rows.iter().zip(&walk.inner) {
            match (rs, s) {
                (0, 0) => {}
                // rows that follow one another (no gap) are read in place already
                (rs, 1) if rs > len as isize && stride.is_none_or(|r| r == rs) => stride = Some(rs),
                _ => return walk,
            }
        }
        let Some(stride) = stride.map(|r| r as usize) else {
            return walk;
        };
        if (stride - len) * SPAN_GAP_PER_ROW > len || stride + len > BLOCK {
            return walk;
        }
        walk.per_block = (BLOCK - len) / stride + 1;
        walk.span = Some(stride);
        walk
    }

    /// Elements of a block of `nrows` rows: the rows themselves, or for a
    /// span the rows and the gaps between them.
    pub fn block_len(&self, nrows: usize) -> usize {
        match self.span {
            Some(stride) => (nrows - 1) * stride + self.len,
            None => nrows * self.len,
        }
    }

    /// The rows of a block of several starting at element `p` of a walk that
    /// stops at `end` (p at a row's start, two rows left at least), up to
    /// the next wrap of the axis before; `None` for a block within one row.
    pub fn rows_at(&self, p: usize, end: usize) -> Option<usize> {
        let row = p / self.len;
        (self.per_block > 1 && p.is_multiple_of(self.len) && end - p >= 2 * self.len).then(|| {
            self.per_block
                .min((end - p) / self.len)
                .min(self.last - row % self.last)
        })
    }
}

/// Writes every element of the map over `shape` (row-major) into `out`.
fn run_map<T: Out>(
    prog: &Program,
    shape: &[usize],
    out: &mut [MaybeUninit<T>],
    extra: &[ExtraBuf],
) -> Result<(), Diagnostic> {
    let n = out.len();
    if n == 0 {
        return Ok(());
    }
    let rank = shape.len();
    // short rows go several to a block, so that each step's loop is long
    // (a span's gaps would reach the extra outputs' taps: those take rows)
    // (a storage-only output is stored from a register: a span's rows are not taken)
    let walk = if extra.is_empty() && !T::STORAGE {
        RowWalk::for_map(prog, shape)
    } else {
        RowWalk::new(prog, shape, true)
    };
    let inner = walk.len;
    let task = |start: usize, part: &mut [MaybeUninit<T>], regs: &mut Vec<Reg>| -> Result<(), Diagnostic> {
        check_interrupt()?;
        let mut offs: OperandVec<isize> = smallvec::smallvec![0; prog.inputs.len()];
        let mut taps: Vec<Tap> = Vec::with_capacity(extra.len());
        let end = start + part.len();
        let mut p = start;
        while p < end {
            let (row, col) = (p / inner, p % inner);
            let rows = walk.rows_at(p, end);
            let len = match rows {
                Some(nrows) => nrows * inner,
                None => BLOCK.min(inner - col).min(end - p),
            };
            for (o, b) in offs.iter_mut().zip(&prog.inputs) {
                *o = b.offset
                    + if rows.is_some() {
                        0
                    } else {
                        col as isize * b.strides[rank - 1]
                    };
            }
            add_offsets(&mut offs, prog, 0..rank - 1, shape, row);
            taps.clear();
            for e in extra {
                let dtype = prog.steps.get(e.step).map(|s| s.dtype);
                let dtype = dtype.ok_or_else(|| internal("an extra output of a missing step"))?;
                // SAFETY: each buffer holds `n` elements of its step's dtype
                // (`run_map_multi`), and p..p + len is this block's range of
                // the output, which no other block covers.
                taps.push(unsafe { e.tap(dtype, p, len) }?);
            }
            let part = &mut part[p - start..p - start + len];
            if let (Some(nrows), Some(stride)) = (rows, walk.span) {
                let v = block::eval_block(prog, &offs, &walk.inner, walk.block_len(nrows), regs, None, &mut [])?;
                put_span(v, stride, inner, part)?;
                p += len;
                continue;
            }
            let dst = T::dst(part);
            match rows {
                Some(nrows) => block::eval_rows(
                    prog,
                    &offs,
                    &walk.rows,
                    &walk.inner,
                    inner,
                    nrows,
                    regs,
                    Some(dst),
                    &mut taps,
                )?,
                None => block::eval_block(prog, &offs, &walk.inner, len, regs, Some(dst), &mut taps)?,
            };
            p += len;
        }
        Ok(())
    };
    over_chunks(prog, out, n, task_items(n, 1, BLOCK), task)
}

/// Stores a span's rows (`RowWalk::span`: row r of `len` values at `r *
/// stride` of the span's values) into `out`, row after row.
fn put_span<T: Out>(
    v: Option<Value<'_>>,
    stride: usize,
    len: usize,
    out: &mut [MaybeUninit<T>],
) -> Result<(), Diagnostic> {
    let src = v
        .and_then(T::src)
        .ok_or_else(|| internal("a map's value of another dtype"))?;
    for (r, row) in out.chunks_exact_mut(len).enumerate() {
        match src.segment(r * stride, len) {
            Src::Slice(s) => {
                for (o, &x) in row.iter_mut().zip(s) {
                    o.write(x);
                }
            }
            Src::Scalar(x) => row.fill(MaybeUninit::new(x)),
        }
    }
    Ok(())
}

// ---- reductions ----

#[derive(Clone, Copy, Debug, PartialEq)]
enum ReduceMode {
    /// Blocks along the (long) last reduced axis, fixed chunks of each output's range.
    Rows,
    /// Blocks of outputs along the last kept axis, accumulated over every reduced index.
    Cols,
    /// One short reduced axis read along its rows: a block holds many rows
    /// (`block::eval_rows`), each folded into its output in registers.
    ShortRows,
}

/// The longest reduced row that `ReduceMode::ShortRows` takes: a block holds
/// at least four of them.
const SHORT_ROW: usize = BLOCK / 4;

/// How a reduction runs fused, or `None` for the reference kernels.
fn reduce_mode(kp: &KernelPlan) -> Option<ReduceMode> {
    let rop = kp.reduce?;
    let rank = kp.shape.len();
    let kept = kp.kept.min(rank);
    let outs: usize = kp.shape[..kept].iter().product();
    let red: usize = kp.shape[kept..].iter().product();
    if matches!(rop, ReduceOp::ArgMin | ReduceOp::ArgMax) || outs == 0 || red == 0 || kept == rank {
        return None;
    }
    if kept == 0 {
        return Some(ReduceMode::Rows);
    }
    let moves = |ax: usize| {
        kp.operands
            .iter()
            .all(|o| o.source != Source::Buffer || matches!(o.view.strides[ax], 0 | 1))
    };
    let long = kp.shape[rank - 1] >= 64;
    let all_buffers = kp.operands.iter().all(|o| o.source == Source::Buffer);
    if kept == rank - 1 && red <= SHORT_ROW && moves(rank - 1) && all_buffers && outs > 1 {
        return Some(ReduceMode::ShortRows);
    }
    if long && (moves(rank - 1) || !moves(kept - 1)) {
        Some(ReduceMode::Rows)
    } else {
        Some(ReduceMode::Cols)
    }
}

/// Whether an arg-reduction runs fused (`arg`): one with a value to reduce
/// and an output, of any dtype but the storage-only ones.
fn arg_fused(kp: &KernelPlan) -> bool {
    let rank = kp.shape.len();
    let kept = kp.kept.min(rank);
    let body = kp.body.last().map(|s| s.dtype);
    matches!(kp.reduce, Some(ReduceOp::ArgMin | ReduceOp::ArgMax))
        && kept < rank
        && kp.shape.iter().all(|&d| d > 0)
        && body.is_some_and(|d| !d.is_storage_only())
}

/// The dtype a reduction of `body` values produces.
fn reduced_dtype(op: ReduceOp, body: DType) -> DType {
    match op {
        ReduceOp::Any | ReduceOp::All => DType::Bool,
        ReduceOp::ArgMin | ReduceOp::ArgMax => DType::I64,
        // a bool sum counts (graph::build keeps the bool operand, typed i64)
        ReduceOp::Sum if body == DType::Bool => DType::I64,
        _ => body,
    }
}

fn reduce(kp: &KernelPlan, by_id: &HashMap<u64, Rc<Node>>) -> Result<HostData, Diagnostic> {
    let rop = kp.reduce.ok_or_else(|| internal("a reduction without its op"))?;
    let body_dtype = kp
        .body
        .last()
        .map(|s| s.dtype)
        .ok_or_else(|| internal("an empty reduction body"))?;
    let rank = kp.shape.len();
    let kept = kp.kept.min(rank);
    let kept_shape = &kp.shape[..kept];
    with_program(kp, by_id, |prog| {
        let rdtype = reduced_dtype(rop, body_dtype);
        let values = match reduce_mode(kp) {
            Some(mode) => fused_reduce(prog, &kp.shape, kept, rop, body_dtype, mode)?,
            None if arg_fused(kp) => arg::arg_reduce(prog, &kp.shape, kept, rop == ReduceOp::ArgMax, body_dtype)?,
            None => {
                // the reference reduction of the body's values, materialised
                let values = run_map_alloc(prog, &kp.shape, body_dtype)?;
                let mut shape = kp.shape.clone();
                if kept == rank {
                    shape.push(1);
                }
                let axes: Vec<usize> = (kept..shape.len()).collect();
                kernels::eval(
                    &Op::Reduce { op: rop, axes },
                    rdtype,
                    kept_shape,
                    &[(&values, &View::contiguous(&shape))],
                )?
            }
        };
        if kp.epilogue.is_empty() {
            return Ok(values);
        }
        // the epilogue: a map over the kept axes reading the reduced values as its last operand
        let ebufs = Buffers::of(&kp.epi_operands, by_id)?;
        let eguards = ebufs.guards();
        let mut inputs = bind_with(&kp.epi_operands, kept_shape, &eguards)?;
        let strides = contiguous_strides(kept_shape);
        inputs.push(Bound {
            input: Input::Data(Data::of(&values)),
            dtype: rdtype,
            strides: if strides.is_empty() {
                iteration_strides(&[])
            } else {
                strides.to_vec().into()
            },
            offset: 0,
        });
        let acc = inputs.len() - 1;
        let epilogue = Program::new(&kp.epilogue, inputs, Some(acc));
        run_map_alloc(&epilogue, kept_shape, kp.out_dtype)
    })
}

/// Dispatches a fused reduction on (op, dtype) to `fold_reduce` with its accumulator.
fn fused_reduce(
    prog: &Program,
    shape: &[usize],
    kept: usize,
    rop: ReduceOp,
    dtype: DType,
    mode: ReduceMode,
) -> Result<HostData, Diagnostic> {
    macro_rules! go {
        ($T:ty, $id:expr, $map:expr, $comb:expr, $fin:expr, $wrap:ident) => {
            HostData::$wrap(fold_reduce::<$T, _, _>(
                prog, shape, kept, mode, $id, $map, $comb, $fin,
            )?)
        };
    }
    let arg = || internal("arg-reductions run on the reference kernels");
    if dtype.is_storage_only() {
        // the body's values are wide (`block::load_storage`): reduce them so,
        // then store the result as the reference does (`HostData::narrow_to`)
        let wide = fused_reduce(prog, shape, kept, rop, block::register_dtype(dtype), mode)?;
        return Ok(wide.narrow_to(reduced_dtype(rop, dtype)));
    }
    Ok(match dtype {
        DType::F32 => num_fold!(rop, f32, F32, Bool, go!(f32,), return Err(arg())),
        DType::F64 => num_fold!(rop, f64, F64, Bool, go!(f64,), return Err(arg())),
        DType::I32 => num_fold!(rop, i32, I32, Bool, go!(i32,), return Err(arg())),
        DType::I64 => num_fold!(rop, i64, I64, Bool, go!(i64,), return Err(arg())),
        crate::storage_only_dtype!() => unreachable!("widened above"),
        DType::Bool => bool_fold!(rop, I64, Bool, go!(bool,), return Err(arg())),
    })
}

/// The identity of a NaN-propagating minimum: +inf, or the integer maximum.
fn top<T: Num>() -> T {
    T::from_val(kernels::Val::F(f64::INFINITY))
}

fn bottom<T: Num>() -> T {
    T::from_val(kernels::Val::F(f64::NEG_INFINITY))
}

#[inline(always)]
fn fold_lanes_impl<T: Copy, A: Copy>(
    x: Src<T>,
    len: usize,
    lanes: &mut [A; LANES],
    map: impl Fn(T) -> A,
    comb: impl Fn(A, A) -> A,
) {
    match x {
        Src::Slice(xs) => {
            // four local groups of eight lanes: LLVM keeps each in a vector
            // register, where one array of all the lanes stays in memory
            const G: usize = LANES / 4;
            const _: () = assert!(LANES == 4 * G);
            #[inline(always)]
            fn group<T: Copy, A: Copy>(g: &mut [A; G], c: &[T], map: &impl Fn(T) -> A, comb: &impl Fn(A, A) -> A) {
                for (l, &v) in g.iter_mut().zip(c) {
                    *l = comb(*l, map(v));
                }
            }
            let xs = &xs[..len];
            let part = |k: usize| -> [A; G] { std::array::from_fn(|j| lanes[k * G + j]) };
            let (mut g0, mut g1, mut g2, mut g3) = (part(0), part(1), part(2), part(3));
            let mut chunks = xs.chunks_exact(LANES);
            for c in &mut chunks {
                group(&mut g0, &c[..G], &map, &comb);
                group(&mut g1, &c[G..2 * G], &map, &comb);
                group(&mut g2, &c[2 * G..3 * G], &map, &comb);
                group(&mut g3, &c[3 * G..], &map, &comb);
            }
            for (k, g) in [g0, g1, g2, g3].iter().enumerate() {
                lanes[k * G..(k + 1) * G].copy_from_slice(g);
            }
            for (l, &v) in lanes.iter_mut().zip(chunks.remainder()) {
                *l = comb(*l, map(v));
            }
        }
        Src::Scalar(v) => {
            let m = map(v);
            for k in 0..len {
                lanes[k % LANES] = comb(lanes[k % LANES], m);
            }
        }
    }
}

avx2_dispatch! {
    /// Folds a block's values into lane accumulators (lane k takes elements k, k + LANES, ...).
    #[inline(always)]
    fn fold_lanes<T: Copy, A: Copy>(x: Src<T>, len: usize, lanes: &mut [A; LANES], map: impl Fn(T) -> A, comb: impl Fn(A, A) -> A) = fold_lanes_impl;
}

#[inline(always)]
fn fold_elems_impl<T: Copy, A: Copy>(x: Src<T>, acc: &mut [A], map: impl Fn(T) -> A, comb: impl Fn(A, A) -> A) {
    match x {
        Src::Slice(xs) => {
            for (a, &v) in acc.iter_mut().zip(xs) {
                *a = comb(*a, map(v));
            }
        }
        Src::Scalar(v) => {
            let m = map(v);
            for a in acc {
                *a = comb(*a, m);
            }
        }
    }
}

avx2_dispatch! {
    /// `acc[j] = comb(acc[j], map(x[j]))`.
    #[inline(always)]
    fn fold_elems<T: Copy, A: Copy>(x: Src<T>, acc: &mut [A], map: impl Fn(T) -> A, comb: impl Fn(A, A) -> A) = fold_elems_impl;
}

#[inline(always)]
fn fold_rows_impl<T: Copy, A: Copy>(
    x: Src<T>,
    len: usize,
    acc: &mut [A],
    id: A,
    map: impl Fn(T) -> A,
    comb: impl Fn(A, A) -> A,
) {
    match x {
        Src::Slice(xs) => {
            if len.is_power_of_two() && len <= 2 * SHORT_LANES {
                // tiny rows of a power-of-two length: each folded as a tree,
                // so a row's chain is a few adds deep and the halvings are
                // vector operations
                match len {
                    1 => fold_rows_tree::<1, _, _>(xs, acc, id, map, comb),
                    2 => fold_rows_tree::<2, _, _>(xs, acc, id, map, comb),
                    4 => fold_rows_tree::<4, _, _>(xs, acc, id, map, comb),
                    8 => fold_rows_tree::<8, _, _>(xs, acc, id, map, comb),
                    _ => fold_rows_tree::<16, _, _>(xs, acc, id, map, comb),
                }
            } else if len < 2 * SHORT_LANES {
                // other tiny rows: each folded in order (a row shorter than
                // the tree's width would go through masked stores); the rows'
                // chains are independent, so the processor overlaps them
                for (a, row) in acc.iter_mut().zip(xs.chunks_exact(len)) {
                    *a = row.iter().fold(id, |a, &v| comb(a, map(v)));
                }
            } else {
                for (a, row) in acc.iter_mut().zip(xs.chunks_exact(len)) {
                    *a = fold_row_impl(Src::Slice(row), len, id, &map, &comb);
                }
            }
        }
        Src::Scalar(v) => {
            let m = map(v);
            let mut one = id;
            for _ in 0..len {
                one = comb(one, m);
            }
            acc.fill(one);
        }
    }
}

/// Rows of `N` values (row after row in `xs`), each folded as a tree:
/// halves combined elementwise until one value is left, then combined into
/// the identity (as a sequential fold starts from it).
#[inline(always)]
fn fold_rows_tree<const N: usize, T: Copy, A: Copy>(
    xs: &[T],
    acc: &mut [A],
    id: A,
    map: impl Fn(T) -> A,
    comb: impl Fn(A, A) -> A,
) {
    for (a, row) in acc.iter_mut().zip(xs.chunks_exact(N)) {
        let Ok(row) = <&[T; N]>::try_from(row) else {
            continue;
        };
        let mut w = (*row).map(&map);
        let mut h = N;
        while h > 1 {
            h /= 2;
            for k in 0..h {
                w[k] = comb(w[k], w[k + h]);
            }
        }
        *a = comb(id, w[0]);
    }
}

avx2_dispatch! {
    /// Folds a block of rows (`acc.len()` rows of `len` values, row after row)
    /// into one accumulator per row.
    #[inline(always)]
    fn fold_rows<T: Copy, A: Copy>(x: Src<T>, len: usize, acc: &mut [A], id: A, map: impl Fn(T) -> A, comb: impl Fn(A, A) -> A) = fold_rows_impl;
}

/// The reduction of the body's values over the trailing `shape[kept..]` axes, one output per kept element.
#[allow(clippy::too_many_arguments)]
fn fold_reduce<T: Lane, A: Copy + Send + Sync, O: Lane>(
    prog: &Program,
    shape: &[usize],
    kept: usize,
    mode: ReduceMode,
    id: A,
    map: impl Fn(T) -> A + Copy + Sync,
    comb: impl Fn(A, A) -> A + Copy + Sync,
    fin: impl Fn(A) -> O + Copy + Sync,
) -> Result<Vec<O>, Diagnostic> {
    let rank = shape.len();
    let outs: usize = shape[..kept].iter().product();
    let red: usize = shape[kept..].iter().product();
    fn value<T: Lane>(v: Option<Value<'_>>) -> Result<Src<'_, T>, Diagnostic> {
        v.and_then(T::src)
            .ok_or_else(|| internal("a reduction body of another dtype"))
    }
    match mode {
        ReduceMode::Rows => {
            // short reduced rows of a reduction over two or more axes go
            // several to a block, as a map's do
            let walk = RowWalk::new(prog, shape, rank >= kept + 2);
            let (rin, inner) = (walk.len, &walk.inner);
            let nch = red.div_ceil(RED_CHUNK);
            let items = outs * nch;
            // the partial of output o's chunk c
            let partial = |item: usize, regs: &mut Vec<Reg>, offs: &mut Vec<isize>| -> Result<A, Diagnostic> {
                let (o, c) = (item / nch, item % nch);
                let (lo, hi) = (c * RED_CHUNK, ((c + 1) * RED_CHUNK).min(red));
                let mut lanes = [id; LANES];
                let mut q = lo;
                while q < hi {
                    let (row, col) = (q / rin, q % rin);
                    if let Some(nrows) = walk.rows_at(q, hi) {
                        for (off, b) in offs.iter_mut().zip(&prog.inputs) {
                            *off = b.offset;
                        }
                        add_offsets(offs, prog, kept..rank - 1, shape, row);
                        add_offsets(offs, prog, 0..kept, shape, o);
                        let v = block::eval_rows(prog, offs, &walk.rows, inner, rin, nrows, regs, None, &mut [])?;
                        fold_lanes(value::<T>(v)?, nrows * rin, &mut lanes, map, comb);
                        q += nrows * rin;
                        continue;
                    }
                    let len = BLOCK.min(rin - col).min(hi - q);
                    for (off, b) in offs.iter_mut().zip(&prog.inputs) {
                        *off = b.offset + col as isize * b.strides[rank - 1];
                    }
                    add_offsets(offs, prog, kept..rank - 1, shape, row);
                    add_offsets(offs, prog, 0..kept, shape, o);
                    let v = block::eval_block(prog, offs, inner, len, regs, None, &mut [])?;
                    fold_lanes(value::<T>(v)?, len, &mut lanes, map, comb);
                    q += len;
                }
                Ok(tree_fold(lanes, id, comb))
            };
            let work_per_item = red.clamp(1, RED_CHUNK);
            let group = (RED_CHUNK * 2 / work_per_item).max(1);
            let mut partials: Vec<A> = vec![id; items];
            let run = |(g, part): (usize, &mut [A]), regs: &mut Vec<Reg>| -> Result<(), Diagnostic> {
                check_interrupt()?;
                let mut offs = vec![0isize; prog.inputs.len()];
                for (k, p) in part.iter_mut().enumerate() {
                    *p = partial(g * group + k, regs, &mut offs)?;
                }
                Ok(())
            };
            if !parallel_pays(prog, outs * red) {
                let mut regs = Reg::for_steps(prog.steps);
                for pair in partials.chunks_mut(group).enumerate() {
                    run(pair, &mut regs)?;
                }
            } else {
                over_chunks_parallel(prog, &mut partials, group, &|start, part, regs| {
                    run((start / group, part), regs)
                })?;
            }
            Ok(partials
                .chunks(nch)
                .map(|ps| fin(ps.iter().copied().fold(id, comb)))
                .collect())
        }
        ReduceMode::ShortRows => {
            // kept == rank - 1: each output reduces one row of `red` elements
            let inner: Vec<isize> = prog.inputs.iter().map(|b| b.strides[rank - 1]).collect();
            let row_strides: Vec<isize> = prog.inputs.iter().map(|b| b.strides[kept - 1]).collect();
            let per = (BLOCK / red).max(1);
            let task = |start: usize, part: &mut [MaybeUninit<O>], regs: &mut Vec<Reg>| -> Result<(), Diagnostic> {
                check_interrupt()?;
                let mut offs = vec![0isize; prog.inputs.len()];
                let mut acc = vec![id; per];
                let end = start + part.len();
                let mut p = start;
                while p < end {
                    // rows up to the next wrap of the last kept axis are evenly spaced
                    let last = shape[kept - 1];
                    let nrows = per.min(end - p).min(last - p % last);
                    for (o, b) in offs.iter_mut().zip(&prog.inputs) {
                        *o = b.offset;
                    }
                    add_offsets(&mut offs, prog, 0..kept, shape, p);
                    let v = block::eval_rows(prog, &offs, &row_strides, &inner, red, nrows, regs, None, &mut [])?;
                    let acc = &mut acc[..nrows];
                    fold_rows(value::<T>(v)?, red, acc, id, map, comb);
                    for (o, &a) in part[p - start..p - start + nrows].iter_mut().zip(acc.iter()) {
                        o.write(fin(a));
                    }
                    p += nrows;
                }
                Ok(())
            };
            let size = task_items(outs, red, per);
            fresh(outs, |out| over_chunks(prog, out, outs * red, size, task))
        }
        ReduceMode::Cols if cols::applies::<T>(prog, shape, kept) => {
            fresh(outs, |out| cols::direct(prog, shape, kept, id, map, comb, fin, out))
        }
        ReduceMode::Cols => {
            let kin = shape[kept - 1];
            let inner: Vec<isize> = prog.inputs.iter().map(|b| b.strides[kept - 1]).collect();
            let ni = prog.inputs.len();
            // panels only where the kept axis is contiguous: a gathered one's
            // blocks stay in cache across the reduced loop only when small
            let contiguous = inner
                .iter()
                .zip(&prog.inputs)
                .all(|(&s, b)| !matches!(b.input, Input::Data(_)) || matches!(s, 0 | 1));
            let panel = if contiguous { COLS_PANEL } else { BLOCK };
            // a short kept inner axis: a block holds several of its rows
            // (`block::eval_rows`), one call per reduced index instead of one
            // per short row; tasks and panels then start at row boundaries
            let row_steps: Vec<isize> = prog.inputs.iter().map(|b| b.strides[kept.max(2) - 2]).collect();
            let rowwise = kept >= 2 && kin * 4 <= BLOCK && block::rows_ok(prog);
            let panel = if rowwise { (panel / kin).max(1) * kin } else { panel };
            // A task's outputs go in panels of up to COLS_PANEL: for each reduced
            // index, every block of the panel in turn, so a contiguous kept axis
            // is read in long runs and a short one's blocks share the reduced
            // index's offsets. Each output still folds its values in reduced
            // order, so the result is the one-block-at-a-time result bitwise.
            let task = |start: usize, part: &mut [MaybeUninit<O>], regs: &mut Vec<Reg>| -> Result<(), Diagnostic> {
                check_interrupt()?;
                let mut offs = vec![0isize; ni];
                let mut roff = vec![0isize; ni];
                let mut acc = vec![id; panel.min(part.len())];
                // per block of the panel: its first output (relative to the panel), length, base offsets
                let mut blocks: Vec<(usize, usize, usize)> = Vec::new();
                let mut bases: Vec<isize> = Vec::new();
                let end = start + part.len();
                let mut p0 = start;
                while p0 < end {
                    let pend = (p0 + panel).min(end);
                    blocks.clear();
                    bases.clear();
                    let mut p = p0;
                    while p < pend {
                        let (row, col) = (p / kin, p % kin);
                        // (block length, rows in it: 0 for a plain block)
                        let (len, nrows) = if rowwise && col == 0 {
                            let last = shape[kept - 2];
                            let nrows = (BLOCK / kin).min((pend - p) / kin).min(last - row % last).max(1);
                            (nrows * kin, nrows)
                        } else {
                            (BLOCK.min(kin - col).min(pend - p), 0)
                        };
                        let at = bases.len();
                        bases.extend(
                            prog.inputs
                                .iter()
                                .map(|b| b.offset + col as isize * b.strides[kept - 1]),
                        );
                        add_offsets(&mut bases[at..], prog, 0..kept - 1, shape, row);
                        blocks.push((p - p0, len, nrows));
                        p += len;
                    }
                    let acc = &mut acc[..pend - p0];
                    acc.fill(id);
                    for r in 0..red {
                        roff.fill(0);
                        add_offsets(&mut roff, prog, kept..rank, shape, r);
                        for (&(q, len, nrows), base) in blocks.iter().zip(bases.chunks_exact(ni.max(1))) {
                            for ((o, &b), &d) in offs.iter_mut().zip(base).zip(&roff) {
                                *o = b + d;
                            }
                            let v = if nrows > 0 {
                                block::eval_rows(prog, &offs, &row_steps, &inner, kin, nrows, regs, None, &mut [])?
                            } else {
                                block::eval_block(prog, &offs, &inner, len, regs, None, &mut [])?
                            };
                            fold_elems(value::<T>(v)?, &mut acc[q..q + len], map, comb);
                        }
                    }
                    for (o, &a) in part[p0 - start..pend - start].iter_mut().zip(acc.iter()) {
                        o.write(fin(a));
                    }
                    p0 = pend;
                }
                Ok(())
            };
            let size = task_items(outs, red, if rowwise { kin } else { 1 });
            fresh(outs, |out| over_chunks(prog, out, outs * red, size, task))
        }
    }
}

/// A segmented reduction in one pass over values and offsets
/// (`segment::segment`): a contiguous buffer's values read in place, a fused
/// expression's evaluated into a temporary first; the reference kernel where
/// the fast fold does not apply.
fn segmented(kp: &KernelPlan, node: &Rc<Node>, by_id: &HashMap<u64, Rc<Node>>) -> Result<HostData, Diagnostic> {
    let (op, inputs) = match &*node.state.borrow() {
        NodeState::Pending { op, inputs } => (op.clone(), inputs.clone()),
        NodeState::Ready(_) => return Err(internal("a segmented reduction computed twice")),
    };
    let bufs = Buffers::of(&kp.operands, by_id)?;
    let guards = bufs.guards();
    let rest: Vec<Buffer> = inputs[1..]
        .iter()
        .map(|a| a.node.buffer().ok_or_else(|| internal("segment offsets not realized")))
        .collect::<Result<_, _>>()?;
    let rest_guards: Vec<_> = rest.iter().map(|b| b.storage()).collect();
    let mut rest_args: Vec<(&HostData, &View)> = Vec::new();
    for (g, a) in rest_guards.iter().zip(&inputs[1..]) {
        match &**g {
            Storage::Host(d) => rest_args.push((d, &a.view)),
            Storage::Device(_) => return Err(super::host_error()),
        }
    }
    // the values read straight from their buffer: a body that only loads a contiguous operand
    let direct = match (kp.body.as_slice(), kp.operands.as_slice(), guards.as_slice()) {
        ([step], [o], [Some(g)])
            if step.inst == crate::plan::Inst::Load(0)
                && o.source == Source::Buffer
                && o.view.rank() == 1
                && (o.view.size() <= 1 || o.view.strides[0] == 1) =>
        {
            match &**g {
                Storage::Host(d) if d.dtype() == o.dtype => Some((d, &o.view)),
                _ => None,
            }
        }
        _ => None,
    };
    let materialized;
    let values_view;
    let (values, view) = match direct {
        Some(v) => v,
        None => {
            let bound = bind_with(&kp.operands, &kp.shape, &guards)?;
            let body_dtype = kp.body.last().map(|s| s.dtype).unwrap_or(node.dtype);
            let prog = Program::new(&kp.body, bound, None);
            materialized = run_map_alloc(&prog, &kp.shape, body_dtype)?;
            values_view = View::contiguous(&kp.shape);
            (&materialized, &values_view)
        }
    };
    let mut args: Vec<(&HostData, &View)> = vec![(values, view)];
    args.extend(rest_args);
    if let (Op::Segment { op: rop, .. }, Some(&(o, ov))) = (&op, args.get(1)) {
        let offs = match kernels::gather(o, ov) {
            HostData::I64(v) => v,
            other => return Err(internal(format!("segment offsets of dtype {}", other.dtype()))),
        };
        if let Some(out) = segment::segment(*rop, values, view, &offs)?
            && out.dtype() == node.dtype
        {
            return Ok(out);
        }
    }
    kernels::eval(&op, node.dtype, &node.shape, &args)
}

// ---- explain and profile ----

impl Fused {
    /// The kernels these nodes would run, as `explain` prints them.
    pub fn explain(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>], device: &str) -> String {
        let plan = self.plan(nodes, outputs);
        let n = plan.kernels.len();
        // the first line names every kernel: a profile shows only it
        let names: Vec<String> = plan
            .kernels
            .iter()
            .map(|kp| format!("{} [{}]", cpu_strategy(kp), kp.ops.join(", ")))
            .collect();
        let mut out = format!(
            "{n} kernel{} on {device}: {}\n",
            if n == 1 { "" } else { "s" },
            names.join("; ")
        );
        for (k, kp) in plan.kernels.iter().enumerate() {
            out.push_str(&format!("[{k}] {}", explain_kernel(kp)));
        }
        out
    }

    /// Starts recording kernel times, and measures the copy bandwidth they are compared with.
    pub fn start_profiling(&self) {
        copy_ceiling();
        self.profile.borrow_mut().get_or_insert_with(Vec::new);
    }

    /// Kernel times grouped by kernel, slowest first.
    pub fn profile_report(&self) -> Option<String> {
        let prof = self.profile.borrow();
        let times = prof.as_ref()?;
        let mut groups: Vec<(String, Vec<f64>, u64)> = Vec::new();
        for t in times {
            let key = format!("{} -> {}", t.strategy, t.label);
            match groups.iter_mut().find(|g| g.0 == key) {
                Some(g) => g.1.push(t.seconds),
                None => groups.push((key, vec![t.seconds], t.bytes)),
            }
        }
        let total = |g: &(String, Vec<f64>, u64)| g.1.iter().sum::<f64>();
        groups.sort_by(|a, b| total(b).total_cmp(&total(a)));
        let ceiling = copy_ceiling();
        let mut out = format!(
            "{:<42} {:>5} {:>10} {:>10} {:>7} {:>6}\n",
            "kernel", "runs", "total ms", "median ms", "GB/s", "% copy"
        );
        let mut sum = 0.0;
        for g in &groups {
            let median = crate::trace::median(g.1.clone());
            let gbs = if median > 0.0 { g.2 as f64 / median / 1e9 } else { 0.0 };
            sum += total(g);
            out.push_str(&format!(
                "{:<42} {:>5} {:>10.3} {:>10.4} {:>7.1} {:>5.0}%\n",
                g.0,
                g.1.len(),
                total(g) * 1e3,
                median * 1e3,
                gbs,
                100.0 * gbs / ceiling.max(1e-9)
            ));
        }
        out.push_str(&format!(
            "total: {:.3} ms in {} kernel runs on {} threads\ncopy ceiling: {ceiling:.1} GB/s (parallel copy of 2^24 f32, best of 5)\n",
            sum * 1e3,
            times.len(),
            rayon::current_num_threads()
        ));
        let busy = super::contention::busy_samples();
        if busy > 0 {
            out.push_str(&format!(
                "the machine was busy (this thread waited for a core) in {busy} samples, each of 5 ms or more: small kernels ran on one thread then\n"
            ));
        }
        Some(out)
    }
}

/// One planned kernel as the CPU runs it: the planner's description with the
/// CPU's strategy in place of the GPU's, and no launch shape.
fn explain_kernel(kp: &KernelPlan) -> String {
    let text = kp.to_string();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if let Some(first) = lines.first_mut() {
        *first = format!(
            "{} -> {} {}{:?}",
            cpu_strategy(kp),
            kp.out_label,
            kp.out_dtype,
            kp.out_shape
        );
    }
    if let Some(last) = lines.last_mut()
        && let Some(k) = last.find("; moves ")
    {
        *last = format!("  {}", &last[k + 2..]);
    }
    lines.join("\n") + "\n"
}

/// The bandwidth of a parallel copy of 64 MiB (measured once per process), in GB/s.
pub fn copy_ceiling() -> f64 {
    use std::sync::OnceLock;
    static CEILING: OnceLock<f64> = OnceLock::new();
    *CEILING.get_or_init(|| {
        let n = 1usize << 24;
        let src = vec![1.0f32; n];
        let mut dst = vec![0.0f32; n];
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let t = Instant::now();
            dst.par_chunks_mut(1 << 16)
                .zip(src.par_chunks(1 << 16))
                .for_each(|(d, s)| d.copy_from_slice(s));
            best = best.min(t.elapsed().as_secs_f64());
        }
        std::hint::black_box(&dst);
        (2 * n * 4) as f64 / best / 1e9
    })
}

// ---- slice assignment ----

/// A pointer that may cross threads: each thread writes its own elements.
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);
// SAFETY: used only to write disjoint elements of one buffer from several threads.
unsafe impl<T> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SendPtr<T> {}

/// True when no two indices of the view reach one element (strides, largest
/// first, each step over everything the smaller ones reach): a sufficient test.
pub(crate) fn injective(view: &View) -> bool {
    let mut axes: Vec<(usize, usize)> = view
        .shape
        .iter()
        .zip(&view.strides)
        .filter(|(d, _)| **d > 1)
        .map(|(&d, &s)| (d, s.unsigned_abs()))
        .collect();
    axes.sort_by_key(|a| a.1);
    let mut reach = 0usize;
    for (d, s) in axes {
        if s <= reach {
            return false;
        }
        reach += s * (d - 1);
    }
    true
}

/// Slice assignment from a source in another buffer, copied straight from
/// its view into the destination's, in parallel over rows: no temporary.
/// Returns false (nothing done) where the reference path must run: a source
/// in the destination's own buffer, another dtype, or a destination view that
/// reaches an element twice.
pub fn write_direct(dst: &Buffer, dst_view: &View, src: &Buffer, src_view: &View) -> Result<bool, Diagnostic> {
    let same = {
        let (a, b) = (dst.storage(), src.storage());
        std::ptr::eq(&*a, &*b)
    };
    if same || dst_view.shape != src_view.shape || !injective(dst_view) {
        return Ok(false);
    }
    let n = dst_view.size();
    if n == 0 {
        return Ok(true);
    }
    let src_guard = src.storage();
    let mut dst_guard = dst.storage_mut();
    let (Storage::Host(s), Storage::Host(d)) = (&*src_guard, &mut *dst_guard) else {
        return Err(super::host_error());
    };
    if s.dtype() != d.dtype() {
        return Ok(false);
    }
    kernels::check_reach(s.len(), &src_view.shape, &src_view.strides, src_view.offset)?;
    kernels::check_reach(d.len(), &dst_view.shape, &dst_view.strides, dst_view.offset)?;
    let (shape, ds, ss) = collapse_pair(&dst_view.shape, &dst_view.strides, &src_view.strides);
    let (doff, soff) = (dst_view.offset as isize, src_view.offset as isize);
    macro_rules! go {
        ($d:expr, $s:expr) => {
            copy_rows($d, (doff, &ds), $s, (soff, &ss), &shape)
        };
    }
    match (d, s) {
        (HostData::Bool(d), HostData::Bool(s)) => go!(d, s),
        (HostData::I32(d), HostData::I32(s)) => go!(d, s),
        (HostData::I64(d), HostData::I64(s)) => go!(d, s),
        (HostData::F32(d), HostData::F32(s)) => go!(d, s),
        (HostData::F64(d), HostData::F64(s)) => go!(d, s),
        _ => return Ok(false),
    }
    Ok(true)
}

/// A concatenation copied part by part from each input's view into its
/// slab of a fresh, never zero-filled output, rows at a time (the reference
/// copies each part contiguous first, into a zeroed vector). `None` for
/// dtypes the block kernels do not store (half floats).
fn concat(node: &Node) -> Result<Option<HostData>, Diagnostic> {
    let (axis, inputs) = match &*node.state.borrow() {
        NodeState::Pending {
            op: Op::Concat { axis },
            inputs,
        } => (*axis, inputs.clone()),
        _ => return Err(internal("a concat kernel without its pending concat")),
    };
    let shape = &node.shape;
    let buffers = inputs
        .iter()
        .map(|a| a.node.buffer().ok_or_else(|| internal("a concat input not realized")))
        .collect::<Result<Vec<_>, _>>()?;
    let guards: Vec<_> = buffers.iter().map(|b| b.storage()).collect();
    let out_strides = contiguous_strides(shape);
    let n: usize = shape.iter().product();
    // each part's slab: (input, offset of its first element in the output)
    let mut parts = Vec::with_capacity(inputs.len());
    let mut start = 0usize;
    for (guard, input) in guards.iter().zip(&inputs) {
        let Storage::Host(data) = &**guard else {
            return Err(super::host_error());
        };
        let v = &input.view;
        let fits = axis < shape.len()
            && v.rank() == shape.len()
            && (0..shape.len()).all(|k| k == axis || v.shape[k] == shape[k]);
        if !fits || data.dtype() != node.dtype {
            return Err(internal("a concat part that does not fit its output"));
        }
        kernels::check_reach(data.len(), &v.shape, &v.strides, v.offset)?;
        parts.push((data, v, start * out_strides[axis] as usize));
        start += v.shape[axis];
    }
    if start != shape.get(axis).copied().unwrap_or(0) {
        return Err(internal("concat parts that do not fill their output"));
    }
    /// Every part into `out`, whose elements the parts cover exactly once.
    fn fill<T: Copy + Send + Sync>(
        out: &mut [MaybeUninit<T>],
        parts: &[(&[T], &View, usize)],
        out_strides: &[isize],
    ) -> Result<(), Diagnostic> {
        for &(src, v, at) in parts {
            if v.size() == 0 {
                continue;
            }
            let (shape, ds, ss) = collapse_pair(&v.shape, out_strides, &v.strides);
            // SAFETY: MaybeUninit<T> has T's layout; the source is only read.
            let src: &[MaybeUninit<T>] = unsafe { std::slice::from_raw_parts(src.as_ptr().cast(), src.len()) };
            copy_rows(out, (at as isize, &ds), src, (v.offset as isize, &ss), &shape);
        }
        Ok(())
    }
    macro_rules! go {
        ($variant:ident) => {{
            let mut typed = Vec::with_capacity(parts.len());
            for &(data, v, at) in &parts {
                let HostData::$variant(values) = data else {
                    return Err(internal("a concat part of another dtype"));
                };
                typed.push((&values[..], v, at));
            }
            HostData::$variant(fresh(n, |o| fill(o, &typed, &out_strides))?)
        }};
    }
    Ok(Some(match node.dtype {
        DType::Bool => go!(Bool),
        DType::I32 => go!(I32),
        DType::I64 => go!(I64),
        DType::F32 => go!(F32),
        DType::F64 => go!(F64),
        crate::storage_only_dtype!() => return Ok(None),
    }))
}

/// Two views of one shape collapsed together to their fewest axes, at
/// least one: (shape, the first's strides, the second's).
pub(super) fn collapse_pair(shape: &[usize], a: &[isize], b: &[isize]) -> (Vec<usize>, Vec<isize>, Vec<isize>) {
    let mut strides = vec![a.to_vec(), b.to_vec()];
    let groups = vec![0u8; shape.len()];
    let (shape, _) = crate::plan::view_ops::collapse(shape, &groups, &mut strides);
    if shape.is_empty() {
        (vec![1], vec![0], vec![0])
    } else {
        let b = strides.pop().unwrap_or_default();
        let a = strides.pop().unwrap_or_default();
        (shape, a, b)
    }
}

/// Calls `row(d, s, inner)` with the offsets of each row (the last axis) of
/// two views of `shape` with strides `ds` and `ss` from `doff` and `soff`,
/// in parallel above the parallel threshold.
pub(super) fn for_each_row_pair(
    shape: &[usize],
    (doff, ds): (isize, &[isize]),
    (soff, ss): (isize, &[isize]),
    row: impl Fn(isize, isize, usize) + Sync,
) {
    let rank = shape.len();
    let inner = shape[rank - 1];
    let rows: usize = shape[..rank - 1].iter().product();
    let at = |r: usize| {
        let (mut d, mut s) = (doff, soff);
        let mut rest = r;
        for ax in (0..rank - 1).rev() {
            let i = (rest % shape[ax]) as isize;
            rest /= shape[ax];
            d += i * ds[ax];
            s += i * ss[ax];
        }
        row(d, s, inner)
    };
    if !super::contention::parallel_pays(rows * inner, PAR_THRESHOLD) {
        (0..rows).for_each(at);
    } else {
        let per = (PAR_THRESHOLD / inner.max(1)).max(1);
        (0..rows).into_par_iter().with_min_len(per).for_each(at);
    }
}

/// Copies every element of a strided view of `src` to the same position of one of `dst`.
pub(super) fn copy_rows<T: Copy + Send + Sync>(
    dst: &mut [T],
    (doff, ds): (isize, &[isize]),
    src: &[T],
    (soff, ss): (isize, &[isize]),
    shape: &[usize],
) {
    let rank = shape.len();
    let (dl, sl) = (ds[rank - 1], ss[rank - 1]);
    let ptr = SendPtr(dst.as_mut_ptr());
    for_each_row_pair(shape, (doff, ds), (soff, ss), |d, s, inner| {
        let p = ptr;
        if dl == 1 && sl == 1 {
            let from = &src[s as usize..s as usize + inner];
            // SAFETY: check_reach proved the destination row in bounds, and the
            // view is injective, so no other row writes these elements.
            unsafe { super::block::copy_elems(from.as_ptr(), p.0.offset(d), inner) };
        } else {
            for k in 0..inner as isize {
                // SAFETY: as above, element by element.
                unsafe { *p.0.offset(d + k * dl) = src[(s + k * sl) as usize] };
            }
        }
    });
}
