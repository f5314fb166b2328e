//! The CPU backend. By default it runs the planner's fused kernels
//! (`fused`: one pass over memory per kernel, blocks over rayon); the
//! reference executor evaluates each pending node in turn with the kernels in
//! `kernels`, whose results define what every other backend must compute. The
//! reference runs with `CpuBackend::reference()` or `ARR_CPU=reference`.
//! A slice assignment computes its source straight into the destination
//! where `graph::alias` allows (`fused/into.rs`); `ARR_CPU_ASSIGN=copy`
//! turns that off (realize, then copy), to measure what it saves.
//! Before a kernel big enough to go parallel, the pool's other workers are
//! kept spinning for a moment (`warm`): waking parked ones costs more than a
//! small parallel kernel saves.

pub mod block;
mod compress;
pub mod contention;
pub mod fused;
pub mod kernels;
pub mod pool;
pub mod vmath;
pub mod warm;

use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::view::View;
use crate::graph::{Array, Backend, Buffer, Node, NodeState, Storage};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::rc::Rc;

/// Which executor a `CpuBackend` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuMode {
    /// The planner's fused kernels.
    Fused,
    /// Node by node with the reference kernels.
    Reference,
}

pub struct CpuBackend {
    mode: CpuMode,
    fused: fused::Fused,
    /// Slice assignment into the destination (`write_pending`, `write_within`).
    in_place: bool,
}

impl Default for CpuBackend {
    fn default() -> CpuBackend {
        CpuBackend::new()
    }
}

impl CpuBackend {
    /// The fused executor, unless the environment asks for the reference (`ARR_CPU=reference`).
    pub fn new() -> CpuBackend {
        let reference = std::env::var("ARR_CPU").is_ok_and(|v| v == "reference" || v == "ref");
        CpuBackend::with_mode(if reference { CpuMode::Reference } else { CpuMode::Fused })
    }

    /// The node-by-node reference executor.
    pub fn reference() -> CpuBackend {
        CpuBackend::with_mode(CpuMode::Reference)
    }

    pub fn with_mode(mode: CpuMode) -> CpuBackend {
        CpuBackend {
            mode,
            fused: fused::Fused::default(),
            in_place: std::env::var("ARR_CPU_ASSIGN").map_or(true, |v| v != "copy"),
        }
    }

    pub fn mode(&self) -> CpuMode {
        self.mode
    }
}

fn host_error() -> Diagnostic {
    Diagnostic::spanless(
        "E0404",
        "the CPU backend was handed a buffer that lives on another device",
    )
}

/// Whether a node of `nodes`, or one of their inputs, holds values of a
/// storage-only dtype (f16, bf16, or a narrow integer).
fn touches_storage_only(nodes: &[Rc<Node>]) -> bool {
    nodes.iter().any(|n| node_touches_storage_only(n))
}

fn node_touches_storage_only(n: &Node) -> bool {
    n.dtype.is_storage_only()
        || match &*n.state.borrow() {
            NodeState::Pending { inputs, .. } => inputs.iter().any(|a| a.node.dtype.is_storage_only()),
            _ => false,
        }
}

/// Computes a pending node whose inputs are ready with the reference kernels.
fn eval_in_place(node: &Node) -> Result<(), Diagnostic> {
    crate::interrupt::check()?;
    check_memory(node)?;
    let out = eval_node_reference(node)?;
    *node.state.borrow_mut() = NodeState::Ready(Buffer::host(out));
    Ok(())
}

impl CpuBackend {
    /// A realize that touches a storage-only dtype in a kernel the fused
    /// executor refuses (`refused`, see `Fused::execute_storage`: a scan, a
    /// concatenation's parts of a narrow integer): those nodes run one by one
    /// on the reference kernels, and each run of nodes between them on the
    /// fused executor, which stores every node a later node or the realize's
    /// `outputs` read. A run whose own plan still has a refused kernel runs
    /// its storage-touching nodes on the reference too.
    fn execute_split(
        &self,
        nodes: &[Rc<Node>],
        outputs: &[Rc<Node>],
        refused: &HashSet<u64>,
    ) -> Result<(), Diagnostic> {
        self.split(
            nodes,
            outputs,
            |n| refused.contains(&n.id) && node_touches_storage_only(n),
            true,
        )
    }

    /// Runs `nodes` with those `on_reference` picks on the reference
    /// kernels and the runs between them fused (checked again for refused
    /// storage kernels when `check`).
    fn split(
        &self,
        nodes: &[Rc<Node>],
        outputs: &[Rc<Node>],
        on_reference: impl Fn(&Node) -> bool,
        check: bool,
    ) -> Result<(), Diagnostic> {
        // the position of each node's last reader among `nodes`
        let mut last_read: HashMap<u64, usize> = HashMap::default();
        for (i, n) in nodes.iter().enumerate() {
            if let NodeState::Pending { inputs, .. } = &*n.state.borrow() {
                for a in inputs {
                    last_read.insert(a.node.id, i);
                }
            }
        }
        let wanted: HashSet<u64> = outputs.iter().map(|n| n.id).collect();
        let mut run: Vec<Rc<Node>> = Vec::new();
        let flush = |run: &mut Vec<Rc<Node>>, end: usize| -> Result<(), Diagnostic> {
            if run.is_empty() {
                return Ok(());
            }
            let kept: Vec<Rc<Node>> = run
                .iter()
                .filter(|n| wanted.contains(&n.id) || last_read.get(&n.id).is_some_and(|&r| r >= end))
                .cloned()
                .collect();
            if !(check && touches_storage_only(run)) {
                self.fused.execute(run, &kept)?;
            } else if !self.fused.execute_storage(run, &kept)?.is_empty() {
                self.split(run, &kept, node_touches_storage_only, false)?;
            }
            run.clear();
            Ok(())
        };
        for (i, node) in nodes.iter().enumerate() {
            if node.is_ready() {
                continue;
            }
            if on_reference(node) {
                flush(&mut run, i)?;
                eval_in_place(node)?;
            } else {
                run.push(node.clone());
            }
        }
        flush(&mut run, nodes.len())
    }
}

/// Evaluates one pending node whose inputs are ready with the reference kernels.
fn eval_node_reference(node: &Node) -> Result<HostData, Diagnostic> {
    let (op, inputs) = match &*node.state.borrow() {
        NodeState::Pending { op, inputs } => (op.clone(), inputs.clone()),
        NodeState::Ready(_) => return Err(Diagnostic::spanless("E0499", "internal: a node computed twice")),
    };
    let buffers: Vec<Buffer> = inputs
        .iter()
        .map(|a| {
            a.node
                .buffer()
                .ok_or_else(|| Diagnostic::spanless("E0499", "internal: input not realized"))
        })
        .collect::<Result<_, _>>()?;
    let guards: Vec<_> = buffers.iter().map(|b| b.storage()).collect();
    let mut views = Vec::with_capacity(inputs.len());
    for (guard, input) in guards.iter().zip(&inputs) {
        match &**guard {
            Storage::Host(data) => views.push((data, &input.view)),
            Storage::Device(_) => return Err(host_error()),
        }
    }
    kernels::eval(&op, node.dtype, &node.shape, &views).map_err(|d| match &node.span {
        Some(span) => d.or_span(span),
        None => d,
    })
}

/// Computes one pending single-element node whose inputs are ready, in place,
/// with the reference kernel: folding a scalar (a loop counter, `n - 1`, `-1`
/// in a slice) must cost far less than planning a kernel for it.
pub fn fold_scalar(node: &Rc<Node>) -> Result<(), Diagnostic> {
    if node.is_ready() {
        return Ok(());
    }
    let out = match cast_of_host_scalar(node) {
        Some(out) => out,
        None => eval_node_reference(node)?,
    };
    *node.state.borrow_mut() = NodeState::Ready(Buffer::host(out));
    Ok(())
}

/// The value of `node` when it is the cast of one host element: the
/// builder's cast of a literal in front of every op that meets an array of
/// another dtype (`x + 1.0` on f32), computed without the reference
/// executor's general path, which cost more than the rest of the statement's
/// folding.
fn cast_of_host_scalar(node: &Node) -> Option<HostData> {
    let state = node.state.borrow();
    let NodeState::Pending {
        op: crate::graph::op::Op::Cast,
        inputs,
    } = &*state
    else {
        return None;
    };
    let [input] = inputs.as_slice() else { return None };
    if input.view.size() != 1 {
        return None;
    }
    let buffer = input.node.buffer()?;
    let storage = buffer.storage();
    let Storage::Host(data) = &*storage else { return None };
    kernels::cast_one(node.dtype, data, input.view.offset)
}

impl Backend for CpuBackend {
    fn describe(&self) -> String {
        match self.mode {
            CpuMode::Fused => format!("cpu ({} threads)", rayon::current_num_threads()),
            CpuMode::Reference => format!("cpu reference ({} threads)", rayon::current_num_threads()),
        }
    }

    fn execute(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Result<(), Diagnostic> {
        // The fused executor runs the maps and reductions of the storage-only
        // dtypes (f16, bf16, the narrow integers) computing in f32 or i64, as
        // the reference does (kernels::eval_storage); a graph with another
        // kernel that touches one runs those nodes one by one instead.
        if self.mode == CpuMode::Fused {
            if !touches_storage_only(nodes) {
                return self.fused.execute(nodes, outputs);
            }
            let refused = self.fused.execute_storage(nodes, outputs)?;
            return match refused.is_empty() {
                true => Ok(()),
                false => self.execute_split(nodes, outputs, &refused),
            };
        }
        for node in nodes {
            if node.is_ready() {
                continue;
            }
            eval_in_place(node)?;
        }
        Ok(())
    }

    fn read(&self, buffer: &Buffer, view: &View, _dtype: DType) -> Result<HostData, Diagnostic> {
        match &*buffer.storage() {
            Storage::Host(data) => Ok(kernels::gather(data, view)),
            Storage::Device(_) => Err(host_error()),
        }
    }

    fn write(&self, dst: &Buffer, dst_view: &View, src: &Array) -> Result<(), Diagnostic> {
        let src_buffer = src
            .node
            .buffer()
            .ok_or_else(|| Diagnostic::spanless("E0499", "internal: source not realized"))?;
        if self.mode == CpuMode::Fused {
            let done = if src_buffer.same(dst) {
                self.in_place && fused::write_within(dst, dst_view, &src.view)?
            } else {
                fused::write_direct(dst, dst_view, &src_buffer, &src.view)?
            };
            if done {
                return Ok(());
            }
        }
        // Copy the source first: it may view the very buffer being written.
        let values = match &*src_buffer.storage() {
            Storage::Host(data) => kernels::gather(data, &src.view),
            Storage::Device(_) => return Err(host_error()),
        };
        match &mut *dst.storage_mut() {
            Storage::Host(data) => {
                kernels::scatter(data, dst_view, &values);
                Ok(())
            }
            Storage::Device(_) => Err(host_error()),
        }
    }

    fn write_pending(&self, dst: &Buffer, dst_view: &View, src: &Array) -> Result<bool, Diagnostic> {
        if self.mode != CpuMode::Fused || !self.in_place || !fused::injective(dst_view) {
            return Ok(false);
        }
        let order = crate::graph::pending_in_order(std::slice::from_ref(&src.node));
        if touches_storage_only(&order) {
            return Ok(false);
        }
        if crate::graph::alias::direct_ok(dst, dst_view, src, &order) {
            self.fused.execute_into(&order, dst, dst_view, None)?;
            return Ok(true);
        }
        // The source reads what it overwrites (a stencil's neighbours): rather than
        // compute it into a temporary and copy that over, compute it into a fresh
        // buffer with the rest of the old one copied beside it, which then takes
        // the old one's place. That pays when the rest is the smaller part.
        if crate::graph::alias::computable_into(dst_view, src, &order)
            && let Some(region) = fused::BoxRegion::of(dst_view, dst.len())
            && region.size() * 2 >= dst.len()
        {
            self.fused.execute_into(&order, dst, dst_view, Some(&region))?;
            return Ok(true);
        }
        Ok(false)
    }

    fn compress(&self, x: Option<&Array>, mask: &Array) -> Option<Result<Array, Diagnostic>> {
        // the reference keeps the positions-and-take path, the oracle of this one
        (self.mode == CpuMode::Fused).then(|| compress::compress(self, x, mask))
    }

    fn adopt(&self, data: HostData) -> Result<Buffer, Diagnostic> {
        Ok(Buffer::host(data))
    }

    fn explain(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> String {
        match self.mode {
            CpuMode::Fused => self.fused.explain(nodes, outputs, &self.describe()),
            CpuMode::Reference => nodes
                .iter()
                .map(crate::graph::describe_node)
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    fn start_profiling(&self) {
        if self.mode == CpuMode::Fused {
            self.fused.start_profiling();
        }
    }

    fn profile_report(&self) -> Option<String> {
        self.fused.profile_report()
    }

    fn profiling(&self) -> bool {
        self.fused.profile.borrow().is_some()
    }

    fn record_host(&self, name: &str, label: &str, elapsed: std::time::Duration, bytes: u64) {
        if let Some(times) = self.fused.profile.borrow_mut().as_mut() {
            times.push(fused::KernelTime {
                label: label.to_string(),
                strategy: format!("{name} (host)"),
                seconds: elapsed.as_secs_f64(),
                bytes,
            });
        }
    }
}

/// Refuses, with a diagnostic, an output larger than the memory the process
/// may still allocate, instead of letting the allocator abort the process.
fn check_memory(node: &Node) -> Result<(), Diagnostic> {
    if node.size() as u128 > crate::check::shape::max_elements() {
        let d = Diagnostic::spanless(
            "E0403",
            format!("an array of {} elements is over this session's limit", node.size()),
        );
        return Err(match &node.span {
            Some(span) => d.or_span(span),
            None => d,
        });
    }
    let bytes = (node.size() as u128) * node.dtype.size_bytes() as u128;
    crate::backend::memory::check_bytes(bytes, "this array", node.span.as_ref())
}
