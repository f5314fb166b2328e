//! The kernel planner: partitions the pending part of a graph into kernels
//! and picks a strategy and launch shape for each. Plans are plain data (no
//! CUDA here), so they can be printed by `arr explain` and tested on any machine.
//!
//! Fusion rules: elementwise nodes and generators (arange, random) fuse into
//! their single consumer, through any view that maps axis to axis (broadcast,
//! slice, transpose, new axis); they also fuse into a reduction's input, so a
//! reduced temporary is never stored. Elementwise consumers of a reduction
//! fuse into its epilogue when they read it element for element. A node is
//! materialised when somebody needs it (an output), when two nodes consume
//! it, or when its consumer is not elementwise (scan, matmul, concat, take).
//! On the CPU a concatenation is assembled instead: each part is a map that
//! fuses its input and writes its box of the output, and a concatenation
//! read only by another, through slices, writes its parts into that one's
//! (a roll of a roll, `north(east(f))`, is one pass over `f`); and one read
//! only by a map fuses into it, the map computed in boxes that each read
//! one part of it (a roll stencil stores no rolled copy).

pub mod cache;
mod maps;
mod multi;
mod rows;
pub use rows::streams as rows_stream;
pub mod tiles;
pub mod view_ops;

use crate::check::dtype::DType;
use crate::graph::op::{
    BinaryOp, Distribution, Op, ReduceOp, SEG_CHUNK, SEG_STREAM_LONG, SEG_TILE, ScanOp, SegLayout, UnaryOp,
};
use crate::graph::view::{Dims, Strides, View};
use crate::graph::{Array, Node, NodeState};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::cell::Ref;
use std::fmt;
use std::rc::Rc;
use view_ops::{AxisMap, axis_map, collapse};

/// What the planner needs to know about the GPU.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceInfo {
    pub name: String,
    pub sm_count: u32,
    /// Compute capability as major * 10 + minor (90 for Hopper).
    pub arch: u32,
    pub max_threads_per_sm: u32,
    /// Whether the backend runs the GPU-only strategy `TransposeTiled`: the
    /// CUDA backend does; the fused CPU executor plans without it (it runs
    /// `RowResident` too, for rows that fit its cache).
    pub gpu_kernels: bool,
}

impl DeviceInfo {
    /// An H100-like device, for planning without a GPU (tests, `arr explain` on a laptop).
    pub fn reference() -> DeviceInfo {
        DeviceInfo {
            name: "reference (H100-like)".into(),
            sm_count: 132,
            arch: 90,
            max_threads_per_sm: 2048,
            gpu_kernels: true,
        }
    }

    /// The reference device without the GPU-only strategies: what the fused
    /// CPU executor plans for.
    pub fn for_cpu() -> DeviceInfo {
        DeviceInfo {
            gpu_kernels: false,
            ..DeviceInfo::reference()
        }
    }

    fn resident_blocks(&self, block: u32) -> u64 {
        self.sm_count as u64 * (self.max_threads_per_sm / block.max(1)).max(1) as u64
    }
}

/// Where an operand's elements come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A buffer: a ready node or one materialised by an earlier kernel.
    Buffer,
    /// Element i is `start + i * step` (cast to the dtype).
    Arange { start: f64, step: f64 },
    /// Element i is `graph::random` of (key, i).
    Random { key: u64, dist: Distribution },
}

/// One value a kernel reads, through a view in the kernel's iteration space.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    /// The node whose buffer (or generated values) this reads.
    pub node: u64,
    /// A name stable across runs, for `explain` ("a0" for inputs, "t3" for temporaries).
    pub label: String,
    pub dtype: DType,
    pub source: Source,
    pub view: View,
}

/// One SSA instruction of a fused expression. Operands of an instruction are
/// indices of earlier instructions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Inst {
    Load(usize),
    /// The reduced value (only in an epilogue).
    Acc,
    Cast(usize),
    Unary(UnaryOp, usize),
    Binary(BinaryOp, usize, usize),
    Where(usize, usize, usize),
    /// The result of reduction stage k of a row-resident kernel (the same
    /// value for every element of a row).
    Row(usize),
}

impl Inst {
    /// The steps the instruction reads.
    pub fn args(&self) -> impl Iterator<Item = usize> {
        let (a, b, c) = match *self {
            Inst::Cast(a) | Inst::Unary(_, a) => (Some(a), None, None),
            Inst::Binary(_, a, b) => (Some(a), Some(b), None),
            Inst::Where(c, a, b) => (Some(c), Some(a), Some(b)),
            Inst::Load(_) | Inst::Acc | Inst::Row(_) => (None, None, None),
        };
        a.into_iter().chain(b).chain(c)
    }
}

/// An instruction and the dtype it produces.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    pub inst: Inst,
    pub dtype: DType,
}

/// Whether evaluating `steps` can fail for some operand values: an integer
/// `%` or `//` by zero, an integer to a negative power. Every other step
/// gives some value for any input (a float NaN or infinity at worst).
pub fn steps_raise(steps: &[Step]) -> bool {
    steps.iter().any(|s| {
        matches!(&s.inst, Inst::Binary(BinaryOp::Rem | BinaryOp::FloorDiv | BinaryOp::Pow, a, _)
            if !steps[*a].dtype.is_float())
    })
}

#[derive(Clone, Debug, PartialEq)]
pub enum Strategy {
    /// Contiguous and same shape: `vec` elements per access (128-bit when aligned).
    Map,
    /// Any strides: coordinates from the linear index by constant divisors;
    /// `vec` consecutive elements of the inner axis per thread when all operands allow it.
    Broadcast,
    /// A buffer operand contiguous along axis `axis` but not along the last
    /// (a transpose, a permuted view, a column of a row-major array): 32 x 32
    /// tiles over `axis` and the last axis (the others are batch axes), those
    /// operands staged through shared memory so that their reads and the
    /// output's writes both coalesce. `paired`: the same buffer is also read
    /// directly (`a + transpose(a)`), so a block takes tiles (I, J) and (J, I)
    /// together and reads each source tile once (`tiles.rs`).
    TransposeTiled {
        axis: usize,
        paired: bool,
    },
    /// Rank 2, some operand broadcast down the rows: a thread owns `vec`
    /// columns and walks `rows` rows, reusing the broadcast values.
    Sliding {
        rows: u32,
    },
    /// To one value: grid-stride partials per block, then one finishing block.
    ReduceAll {
        blocks: u32,
    },
    /// Reduced axis contiguous: `lanes` threads per row (a sub-warp, a warp,
    /// or with lanes > 32 a whole block per row). With `split` > 1 (few long
    /// rows) each row is cut over `split` blocks; the last of them to finish
    /// (a counter per row) combines the row's partials.
    ReduceRows {
        lanes: u32,
        split: u32,
    },
    /// Reduced axis strided: a thread per kept element, the reduced axis split
    /// over `split` blocks (and a finishing pass) when there are few outputs.
    ReduceCols {
        split: u32,
    },
    /// A thread per output element, looping over the reduced elements.
    ReduceGeneral,
    /// Inclusive scan along a strided `axis`: a thread per line, or for long
    /// lines `chunks` blocks per line (chunk totals, then carry-in and block scans).
    Scan {
        op: ScanOp,
        axis: usize,
        chunks: u32,
    },
    /// Inclusive scan along a contiguous `axis`, many lines: a warp per line,
    /// coalesced `vec`-wide accesses, warp-shuffle scans of 32 x vec x unroll
    /// element tiles with the carry kept in a register.
    ScanRows {
        op: ScanOp,
        axis: usize,
    },
    /// Inclusive scan along a contiguous `axis`, few long lines: single pass,
    /// each line cut into `tiles` tiles of `scan_tile` elements, a block per
    /// tile taken in launch order (a ticket), the carry found by decoupled
    /// look-back over the earlier tiles' published aggregates (Merrill & Garland).
    ScanLookback {
        op: ScanOp,
        axis: usize,
        tiles: u32,
    },
    MatMul,
    Concat {
        axis: usize,
    },
    Take {
        axis: usize,
    },
    /// Ragged segmented reduction. When every segment is short (`tile > 0`):
    /// a block per tile of `tile` values loads it, and the rest of its last
    /// segment, into shared memory with coalesced loads, then reduces the
    /// segments that start in it, a thread each (a warp each past
    /// `SEG_STREAM_LONG` values). Otherwise by length class: short segments by `lanes` threads
    /// each (1: a thread per segment; up to a warp, packed into warps at
    /// power-of-two lanes, sub-warp shuffles), longer ones by a block each
    /// (`block_grid` blocks), the longest cut into chunks over `split_grid`
    /// blocks with a second pass per segment.
    Segmented {
        layout: SegLayout,
        tile: u32,
        lanes: u32,
        block_grid: u32,
        split_grid: u32,
    },
    /// Several reductions over the same rows with elementwise work between
    /// them (softmax, layer norm, variance): `shape` is [rows, cols], `lanes`
    /// threads per row (a warp, or a whole block past 32) read the row once
    /// into registers (`units` accesses of `vec` elements per lane; 0 when
    /// the row does not fit and each pass re-reads it), reduce it once per
    /// stage in order (a stage's value may use the earlier stages' results,
    /// `Inst::Row`), and write body step `out` per element, or per row when
    /// `per_row`; `extra` are per-row values of the run that are read after
    /// it (n-body's three force sums), written too (on the CPU, for long
    /// rows only: `plan::rows`).
    RowResident {
        stages: Vec<RowStage>,
        out: usize,
        per_row: bool,
        lanes: u32,
        units: u32,
        extra: Vec<ExtraOut>,
    },
    /// Several reductions of the whole iteration space that share one pass
    /// over it (Black-Scholes's two means, `min` and `max` of one array):
    /// the body computes every output's value per element, each reduced into
    /// its own accumulator; grid-stride partials per block, then one
    /// finishing block combines each output's partials and applies its
    /// epilogue. Output 0 is the kernel's `output`; `outs[k].node` indexes
    /// `KernelPlan::nodes`, where the plan cache re-binds node ids.
    ReduceAllMulti {
        blocks: u32,
        outs: Vec<MultiOut>,
    },
    /// Sibling elementwise kernels over the same output shape, merged into
    /// one pass (`plan::maps`, the CPU only): the last body step is the
    /// output, as in a map, and each of `extra` is another step written to
    /// its own buffer of the output's shape, so values the members share are
    /// loaded or computed once and a value only the members read is never
    /// stored.
    MapMulti {
        extra: Vec<ExtraOut>,
    },
}

/// One output of a `ReduceAllMulti` kernel: body step `value` reduced with
/// `op` into an accumulator of dtype `acc`, then `epilogue` (reading the
/// kernel's `epi_operands`, `Inst::Acc` the reduced value; empty: the
/// reduced value itself) stored as `dtype`.
#[derive(Clone, Debug, PartialEq)]
pub struct MultiOut {
    pub node: usize,
    pub label: String,
    pub dtype: DType,
    pub op: ReduceOp,
    pub value: usize,
    pub acc: DType,
    pub epilogue: Vec<Step>,
}

/// A value a multi-output kernel writes besides its output: body step
/// `value` stored as `dtype` into the node `KernelPlan::nodes[node]` (where
/// the plan cache re-binds node ids), of `shape`: one value per row of a
/// row-resident kernel, one per element of a `MapMulti`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtraOut {
    pub node: usize,
    pub label: String,
    pub value: usize,
    pub dtype: DType,
    pub shape: Vec<usize>,
}

/// One reduction of a row-resident kernel: body step `value` reduced along
/// the row with `op` into an accumulator of dtype `acc`.
#[derive(Clone, Debug, PartialEq)]
pub struct RowStage {
    pub op: ReduceOp,
    pub value: usize,
    pub acc: DType,
}

impl Strategy {
    pub fn name(&self) -> &'static str {
        match self {
            Strategy::Map => "map",
            Strategy::Broadcast => "broadcast",
            Strategy::Sliding { .. } => "sliding",
            Strategy::TransposeTiled { .. } => "transpose-tiled",
            Strategy::ReduceAll { .. } => "reduce-all",
            Strategy::ReduceRows { .. } => "reduce-rows",
            Strategy::ReduceCols { .. } => "reduce-cols",
            Strategy::ReduceGeneral => "reduce-general",
            Strategy::Scan { .. } => "scan",
            Strategy::ScanRows { .. } => "scan-rows",
            Strategy::ScanLookback { .. } => "scan-lookback",
            Strategy::MatMul => "matmul",
            Strategy::Concat { .. } => "concat",
            Strategy::Take { .. } => "take",
            Strategy::Segmented { .. } => "segmented",
            Strategy::RowResident { .. } => "row-resident",
            Strategy::ReduceAllMulti { .. } => "reduce-all-multi",
            Strategy::MapMulti { .. } => "map-multi",
        }
    }

    pub fn is_reduce(&self) -> bool {
        matches!(
            self,
            Strategy::ReduceAll { .. }
                | Strategy::ReduceRows { .. }
                | Strategy::ReduceCols { .. }
                | Strategy::ReduceGeneral
        )
    }
}

/// One kernel: what it computes, how, and with what launch shape.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelPlan {
    pub strategy: Strategy,
    /// The node this kernel materialises (contiguous, `out_shape`).
    pub output: u64,
    pub out_label: String,
    pub out_dtype: DType,
    pub out_shape: Vec<usize>,
    /// Every graph node computed inside this kernel (the output included).
    pub nodes: Vec<u64>,
    /// Names of the fused operations, in evaluation order.
    pub ops: Vec<String>,
    /// Operands of `body`, in the iteration space `shape`.
    pub operands: Vec<Operand>,
    pub body: Vec<Step>,
    /// For reductions: the reduction; `shape` is then kept axes followed by reduced axes.
    pub reduce: Option<ReduceOp>,
    /// Number of leading kept axes of `shape` (all of them for non-reductions).
    pub kept: usize,
    /// Operands of `epilogue`, in the output's (kept) space.
    pub epi_operands: Vec<Operand>,
    /// Applied to the reduced value; empty means the output is the reduced value.
    pub epilogue: Vec<Step>,
    /// The collapsed iteration space.
    pub shape: Vec<usize>,
    /// Elements per thread access along the innermost axis (16 bytes when aligned).
    pub vec: u32,
    /// Whether every index and offset fits 32-bit arithmetic.
    pub index32: bool,
    pub grid: (u32, u32),
    pub block: u32,
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Index buffers a kernel reads besides its operands (a segmented
    /// reduction's offsets and layout), contiguous i64.
    pub aux: Vec<Operand>,
    /// `Some(view)`: this map computes one part of `output` (a box of a
    /// concatenation, on the CPU), over `out_shape`, and writes it through
    /// `view` (over `shape`) into the output's contiguous buffer; the node is
    /// ready when its parts have covered it.
    pub window: Option<View>,
}

impl KernelPlan {
    /// Elements the kernel iterates over.
    pub fn work(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn out_size(&self) -> usize {
        self.out_shape.iter().product()
    }

    /// The nodes a multi-output kernel writes besides `output`, with their
    /// dtypes and shapes (empty for every other kernel).
    pub fn extra_outputs(&self) -> Vec<(u64, DType, Vec<usize>)> {
        match &self.strategy {
            Strategy::ReduceAllMulti { outs, .. } => outs
                .iter()
                .skip(1)
                .map(|o| (self.nodes[o.node], o.dtype, Vec::new()))
                .collect(),
            Strategy::RowResident { extra, .. } | Strategy::MapMulti { extra } => extra
                .iter()
                .map(|o| (self.nodes[o.node], o.dtype, o.shape.clone()))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// A whole graph's plan: kernels in execution order.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub device: String,
    pub kernels: Vec<KernelPlan>,
}

/// A part's kernel (`KernelPlan::window`): the body `b` built over the
/// iteration space of `window`, the view of the node's contiguous buffer it
/// writes.
fn finish_part(mut kp: KernelPlan, b: ExprBuilder, window: View, device: &DeviceInfo) -> KernelPlan {
    kp.operands = b.operands;
    kp.body = b.steps;
    kp.out_shape = window.shape.to_vec();
    kp.shape = window.shape.to_vec();
    kp.kept = window.rank();
    kp.bytes_written = (window.size() * kp.out_dtype.size_bytes()) as u64;
    kp.window = Some(window);
    finish_elementwise(&mut kp, device);
    kp
}

/// Collapses an elementwise kernel's iteration space and picks its strategy,
/// vector width and launch shape.
fn finish_elementwise(kp: &mut KernelPlan, device: &DeviceInfo) {
    let mut strides: Vec<Vec<isize>> = kp.operands.iter().map(|o| o.view.strides.to_vec()).collect();
    // the output: a part's window into its node, else contiguous
    strides.push(match &kp.window {
        Some(w) => w.strides.to_vec(),
        None => crate::graph::view::contiguous_strides(&kp.out_shape).to_vec(),
    });
    let groups = vec![0u8; kp.out_shape.len()];
    let (shape, _) = collapse(&kp.out_shape, &groups, &mut strides);
    let collapsed = |s: &[isize], offset: usize| View {
        shape: Dims::from_slice(&shape),
        strides: Strides::from_slice(s),
        offset,
    };
    if let Some(w) = &mut kp.window {
        *w = collapsed(&strides[strides.len() - 1], w.offset);
    }
    for (o, s) in kp.operands.iter_mut().zip(&strides) {
        o.view = collapsed(s, o.view.offset);
    }
    kp.shape = shape;
    kp.kept = kp.shape.len();
    kp.bytes_read = kp.operands.iter().map(operand_bytes).sum();
    kp.index32 = fits_32(kp);
    let n = kp.work() as u64;
    let rank = kp.shape.len();
    if rank == 0 || n == 0 {
        kp.strategy = Strategy::Map;
        kp.grid = (1, 1);
        return;
    }
    let vec_full = full_vec(kp);
    let inner = kp.shape[rank - 1];
    // vectorising the inner axis: every operand moves by 1 (aligned rows) or 0 along it
    let vec_ok = |v: u32| {
        inner.is_multiple_of(v as usize)
            && kp.operands.iter().all(|o| {
                let s = &o.view.strides;
                s[rank - 1] == 0
                    || (s[rank - 1] == 1
                        && (o.source != Source::Buffer || o.view.offset % v as usize == 0)
                        && s[..rank - 1].iter().all(|&x| x % v as isize == 0))
            })
    };
    // scalars (stride 0) ride along in a map
    if rank == 1 && kp.operands.iter().all(|o| matches!(o.view.strides[0], 0 | 1)) {
        let aligned = kp
            .operands
            .iter()
            .all(|o| o.source != Source::Buffer || o.view.strides[0] == 0 || o.view.offset % vec_full as usize == 0);
        kp.vec = if aligned { vec_full } else { 1 };
        kp.strategy = Strategy::Map;
        kp.grid = (grid_for(n.div_ceil(kp.vec as u64), 256, device, 4), 1);
        return;
    }
    kp.vec = if vec_ok(vec_full) { vec_full } else { 1 };
    let row_bcast = rank == 2
        && kp.operands.iter().all(|o| matches!(o.view.strides[1], 0 | 1))
        && kp
            .operands
            .iter()
            .any(|o| o.view.strides[0] == 0 && o.view.strides[1] == 1);
    if row_bcast {
        let cols = (inner as u64).div_ceil(kp.vec as u64);
        let rows_total = kp.shape[0] as u64;
        let target = device.sm_count as u64 * device.max_threads_per_sm as u64 * 2;
        let mut rows = 1u64;
        while rows < 8 && cols * rows_total.div_ceil(rows * 2) >= target {
            rows *= 2;
        }
        kp.strategy = Strategy::Sliding { rows: rows as u32 };
        let threads = cols * rows_total.div_ceil(rows);
        kp.grid = (grid_for(threads, 256, device, 16), 1);
        return;
    }
    // an operand read across the output's contiguous axis: stage it through shared-memory tiles
    let last = rank - 1;
    let axis = kp.operands.iter().find_map(|o| tiles::transposed_axis(o, rank));
    if let Some(axis) = axis
        && device.gpu_kernels
        && kp.shape[axis] >= 2
        && kp.shape[last] >= 2
        && tiles::shared_bytes(kp, axis) <= tiles::SHARED_LIMIT
    {
        kp.vec = 1;
        let pairs = tiles::pairs(kp, axis);
        let paired = !pairs.is_empty();
        // each pair's transposed read is the direct one's, already counted
        for &(_, t) in &pairs {
            kp.bytes_read -= kp.operands.get(t).map_or(0, operand_bytes);
        }
        kp.strategy = Strategy::TransposeTiled { axis, paired };
        let batch = kp.work() as u64 / (kp.shape[axis] as u64 * kp.shape[last] as u64);
        let tiles = batch * (kp.shape[axis] as u64).div_ceil(32) * (kp.shape[last] as u64).div_ceil(32);
        kp.grid = (tiles.min(device.resident_blocks(256) * 8).max(1) as u32, 1);
        return;
    }
    kp.strategy = Strategy::Broadcast;
    kp.grid = (grid_for(n.div_ceil(kp.vec as u64), 256, device, 4), 1);
}

/// Elements of a line one block scans in the chunked scan.
pub const SCAN_CHUNK: u64 = 4096;

/// Threads of a block in the look-back scan (8 warps).
pub const SCAN_BLOCK: u32 = 256;

/// Accesses of `vec` elements each that a lane of the warp-per-line scan
/// holds per tile: about 64 bytes in flight per lane, at most 32 elements.
pub fn scan_unroll(vec: u32, elem_bytes: usize) -> u32 {
    let bytes = (vec as usize * elem_bytes).max(1);
    ((64 / bytes) as u32).clamp(1, 16).min((32 / vec).max(1))
}

/// Accesses per lane of the look-back scan: about 256 bytes, at most 64
/// elements. Measured on an H200 (one line of 2^28 f32): tiles of 4096
/// reached 67% of the copy ceiling, of 16384 (64 per lane) 77.5%; fewer
/// tiles mean fewer look-back steps on the critical path.
pub fn scan_lookback_unroll(vec: u32, elem_bytes: usize) -> u32 {
    let bytes = (vec as usize * elem_bytes).max(1);
    ((256 / bytes) as u32).clamp(1, 32).min((64 / vec).max(1))
}

/// Elements of a line one block scans in the look-back scan.
pub fn scan_tile(vec: u32, elem_bytes: usize) -> u64 {
    SCAN_BLOCK as u64 * vec as u64 * scan_lookback_unroll(vec, elem_bytes) as u64
}

/// Plans `nodes` (pending, inputs before consumers) so that every node in
/// `outputs` ends up materialised.
pub fn plan(nodes: &[Rc<Node>], outputs: &[Rc<Node>], device: &DeviceInfo) -> Plan {
    let mut planner = Planner::new(nodes, outputs);
    planner.windows = !device.gpu_kernels;
    planner.run(device)
}

/// Plans the pending graph behind `arrays` without executing anything.
pub fn explain(arrays: &[&Array], device: &DeviceInfo) -> String {
    let outputs: Vec<Rc<Node>> = arrays
        .iter()
        .filter(|a| !a.is_ready())
        .map(|a| a.node.clone())
        .collect();
    let order = crate::graph::pending_in_order(&outputs);
    plan(&order, &outputs, device).to_string()
}

struct Info {
    op: Op,
}

/// A node's input views, borrowed from the graph for as long as the planner
/// runs (the graph is not mutated while it is planned). Borrowed, not cloned:
/// copying every node's inputs (each view two vectors) and copying them again
/// at every loop over them was a fifth of the planning of a small graph.
fn inputs_of(node: &Node) -> Ref<'_, [Array]> {
    Ref::map(node.state.borrow(), |s| match s {
        NodeState::Pending { inputs, .. } => &inputs[..],
        NodeState::Ready(_) => &[],
    })
}

struct Planner<'a> {
    nodes: &'a [Rc<Node>],
    pos: HashMap<u64, usize>,
    info: Vec<Info>,
    /// Distinct consumers of each pending node.
    consumers: Vec<Vec<usize>>,
    outputs: HashSet<u64>,
    materialised: Vec<bool>,
    /// The reduction fused into a node's expression (an epilogue), if any.
    red: Vec<Option<usize>>,
    /// Whether a node's fused expression draws random numbers or calls a
    /// real function (exp, sqrt, ...): worth storing rather than computing
    /// again for every read of a broadcast (`costly_broadcast`).
    costly: Vec<bool>,
    leaf_labels: HashMap<u64, String>,
    /// Whether a concatenation is computed as parts written into its buffer
    /// (the CPU), rather than by a kernel copying materialised inputs.
    windows: bool,
    /// Maps that read a concatenation fused into them (`split_concats`):
    /// each is computed as boxes, every box reading one part of each.
    split_roots: HashSet<usize>,
}

fn fusable_kind(op: &Op) -> bool {
    op.is_elementwise() || matches!(op, Op::Arange { .. } | Op::Random { .. })
}

impl<'a> Planner<'a> {
    fn new(nodes: &'a [Rc<Node>], outputs: &[Rc<Node>]) -> Planner<'a> {
        let pos: HashMap<u64, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
        let mut info = Vec::with_capacity(nodes.len());
        for n in nodes {
            match &*n.state.borrow() {
                NodeState::Pending { op, .. } => info.push(Info { op: op.clone() }),
                NodeState::Ready(_) => info.push(Info { op: Op::Buffer }),
            }
        }
        let mut consumers = vec![Vec::new(); nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            for a in inputs_of(n).iter() {
                if let Some(&p) = pos.get(&a.node.id)
                    && !consumers[p].contains(&i)
                {
                    consumers[p].push(i);
                }
            }
        }
        Planner {
            nodes,
            pos,
            materialised: vec![false; nodes.len()],
            red: vec![None; nodes.len()],
            costly: vec![false; nodes.len()],
            info,
            consumers,
            outputs: outputs.iter().map(|n| n.id).collect(),
            leaf_labels: HashMap::default(),
            windows: false,
            split_roots: HashSet::default(),
        }
    }

    /// Node `i`'s inputs (borrowing the graph, not the planner).
    fn inputs(&self, i: usize) -> Ref<'a, [Array]> {
        let nodes: &'a [Rc<Node>] = self.nodes;
        inputs_of(&nodes[i])
    }

    fn pending(&self, a: &Array) -> Option<usize> {
        self.pos
            .get(&a.node.id)
            .copied()
            .filter(|&p| !matches!(self.info[p].op, Op::Buffer))
    }

    /// Whether node `i`, read by several kernels, is cheaper computed again
    /// in each of them than stored once and read back: one elementwise
    /// operation on stored arrays (`x[newaxis, :] - x[:, newaxis]`, read by
    /// both a distance and a force kernel), whose recomputation reads what
    /// the stored copy's reads would and skips its write, which at the size
    /// of a pairwise table is most of the traffic. Capped in consumers so a
    /// widely shared value is still stored once; unary ops (the
    /// transcendentals among them) are not worth computing twice. An input
    /// this plan stores (decided earlier: inputs come first) counts as
    /// stored, so the first iteration of a loop whose inputs are still
    /// pending (`x = rand([n])`) plans as the later ones do.
    fn recomputed(&self, i: usize) -> bool {
        const MAX_CONSUMERS: usize = 4;
        let op = &self.info[i].op;
        matches!(op, Op::Binary(_) | Op::Cast)
            && !self.outputs.contains(&self.nodes[i].id)
            && (2..=MAX_CONSUMERS).contains(&self.consumers[i].len())
            && self
                .inputs(i)
                .iter()
                .all(|a| self.pending(a).is_none_or(|p| self.materialised[p]))
    }

    /// Whether a consumer reading node `p` through `view` reads a costly
    /// expression through a broadcast: fused, its random numbers or
    /// transcendentals would be computed once per read, not once per value
    /// (n-body's masses, `rand([n])`, read by every row of an n x n table on
    /// the first step, cost more than the rest of the step). Stored, they
    /// are computed once and read back as cheaply as any buffer.
    fn costly_broadcast(&self, view: &View, p: usize) -> bool {
        self.costly[p] && view.size() > self.nodes[p].shape.iter().product::<usize>()
    }

    /// Whether a consumer reading node `p` through `view` needs `p` stored:
    /// the view is not a map of `p`'s axes (a reshape that does not fuse),
    /// or it reads a costly expression through a broadcast.
    fn read_needs_store(&self, view: &View, p: usize) -> bool {
        axis_map(view, &self.nodes[p].shape).is_none() || self.costly_broadcast(view, p)
    }

    /// `costly` for an elementwise node or generator, once its inputs' fate is known.
    fn mark_costly(&mut self, i: usize) {
        let own = match &self.info[i].op {
            Op::Random { .. } => true,
            Op::Unary(u) => u.rule() == crate::check::prim::UnaryRule::Float,
            // a float power is a libm call an element (`1.01 ** j` broadcast over rows)
            Op::Binary(BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot) => self.nodes[i].dtype.is_float(),
            _ => false,
        };
        let inherited = self
            .inputs(i)
            .iter()
            .any(|a| self.pending(a).is_some_and(|p| !self.materialised[p] && self.costly[p]));
        self.costly[i] = own || inherited;
    }

    /// Decides which nodes are materialised, in topological order.
    fn partition(&mut self) {
        for i in 0..self.nodes.len() {
            let node = &self.nodes[i];
            let op = self.info[i].op.clone();
            let must = self.outputs.contains(&node.id) || self.consumers[i].len() != 1 || matches!(op, Op::Buffer);
            if let Op::Segment { .. } = op {
                // the values' expression streams into the segmented reduction
                self.materialised[i] = true;
                for (k, a) in self.inputs(i).iter().enumerate() {
                    if let Some(p) = self.pending(a)
                        && (k > 0 || self.red[p].is_some() || axis_map(&a.view, &self.nodes[p].shape).is_none())
                    {
                        self.materialised[p] = true;
                    }
                }
                continue;
            }
            if let Op::Concat { .. } = op
                && self.assembled(i)
            {
                self.materialised[i] = true;
                for a in self.inputs(i).iter() {
                    let Some(p) = self.pending(a) else { continue };
                    if matches!(self.info[p].op, Op::Concat { .. }) {
                        // a concatenation read only here, through boxes, writes its parts into ours
                        self.materialised[p] = !self.absorbed(p, i);
                    } else if !fusable_kind(&self.info[p].op)
                        || self.red[p].is_some()
                        || self.read_needs_store(&a.view, p)
                        || self.reads_shared(p)
                    {
                        self.materialised[p] = true;
                    }
                }
                continue;
            }
            if !fusable_kind(&op) && !matches!(op, Op::Reduce { .. }) {
                self.materialised[i] = true;
                for a in self.inputs(i).iter() {
                    if let Some(p) = self.pending(a) {
                        self.materialised[p] = true;
                    }
                }
                continue;
            }
            if let Op::Reduce { .. } = op {
                // The reduction's input expression may not itself contain a reduction.
                for a in self.inputs(i).iter() {
                    if let Some(p) = self.pending(a)
                        && !self.materialised[p]
                        && (self.red[p].is_some() || self.read_needs_store(&a.view, p))
                    {
                        self.materialised[p] = true;
                    }
                }
                let epilogue_ok = !must && {
                    let c = self.consumers[i][0];
                    self.info[c].op.is_elementwise()
                        && self
                            .inputs(c)
                            .iter()
                            .filter(|a| a.node.id == node.id)
                            .all(|a| a.view.is_identity_of(&node.shape) && self.nodes[c].shape == node.shape)
                };
                if epilogue_ok {
                    self.red[i] = Some(i);
                } else {
                    self.materialised[i] = true;
                }
                continue;
            }
            // elementwise or generator
            if must && !self.recomputed(i) {
                self.materialised[i] = true;
            }
            let mut red = None;
            for a in self.inputs(i).iter() {
                let Some(p) = self.pending(a) else { continue };
                if self.materialised[p] {
                    continue;
                }
                if self.read_needs_store(&a.view, p) {
                    self.materialised[p] = true;
                    continue;
                }
                if let Some(r) = self.red[p] {
                    let identity = a.view.is_identity_of(&self.nodes[p].shape);
                    if !identity || red.is_some_and(|x| x != r) {
                        self.materialised[p] = true;
                        if self.red[p] == Some(p) {
                            // a reduction that was waiting to fuse becomes its own kernel
                            self.red[p] = None;
                        }
                        continue;
                    }
                    red = Some(r);
                }
            }
            if let Some(r) = red {
                // an epilogue must read the reduction with no reduction-breaking materialisation
                if self.materialised[r] {
                    red = None;
                }
            }
            self.red[i] = red;
            self.mark_costly(i);
        }
        // A reduction marked for epilogue fusion whose consumer chain got materialised
        // before reaching it still needs a kernel of its own.
        for i in 0..self.nodes.len() {
            if self.red[i] == Some(i) && !self.materialised[i] {
                let used = (0..self.nodes.len()).any(|j| j != i && self.materialised[j] && self.red[j] == Some(i));
                if !used {
                    self.materialised[i] = true;
                    self.red[i] = None;
                }
            }
        }
        // on every device: a CPU runs the siblings as separate kernels, each
        // computing the shared temporaries, as separate realizes did
        let root = multi::sibling_roots(self);
        self.share_within_kernels(root);
        self.split_concats();
    }

    /// Fuses a concatenation into the map that reads it (a roll stencil,
    /// `u + roll(u, 1, axis=0) + roll(u, -1, axis=0)`): the map is computed
    /// as boxes of its output, cut where a read crosses from one part into
    /// the next, each box reading one part of every concatenation, so no
    /// rolled copy is stored. Only where every kernel the concatenation's
    /// values reach is a plain map.
    fn split_concats(&mut self) {
        if !self.windows {
            return;
        }
        for p in 0..self.nodes.len() {
            let fits = matches!(self.info[p].op, Op::Concat { .. })
                && self.materialised[p]
                && self.assembled(p)
                && !self.outputs.contains(&self.nodes[p].id)
                && self.consumers[p].len() == 1
                && {
                    let c = self.consumers[p][0];
                    fusable_kind(&self.info[c].op)
                        && self
                            .inputs(c)
                            .iter()
                            .filter(|a| a.node.id == self.nodes[p].id)
                            .all(|a| !self.read_needs_store(&a.view, p))
                };
            if !fits {
                continue;
            }
            self.materialised[p] = false;
            match self.map_roots(p) {
                Some(roots) => self.split_roots.extend(roots),
                None => self.materialised[p] = true,
            }
        }
    }

    /// The kernels that node `p`'s values reach through nodes fused into
    /// them, if every one is a plain map (no reduction, no concatenation).
    fn map_roots(&self, p: usize) -> Option<Vec<usize>> {
        let mut roots = Vec::new();
        let mut seen: HashSet<usize> = HashSet::default();
        let mut stack = vec![p];
        while let Some(q) = stack.pop() {
            for &c in &self.consumers[q] {
                if !seen.insert(c) {
                    continue;
                }
                if !fusable_kind(&self.info[c].op) || self.red[c].is_some() {
                    return None;
                }
                if self.materialised[c] {
                    roots.push(c);
                } else {
                    stack.push(c);
                }
            }
        }
        Some(roots)
    }

    /// Where node `i`'s expression, read through `view`, first reads a
    /// concatenation fused into it across two of its parts: (an axis of
    /// the view, the position to cut it at).
    fn find_split(&self, i: usize, view: &View) -> Option<(usize, usize)> {
        let inputs = self.inputs(i);
        let reads: Vec<(usize, View)> = if let Op::Concat { .. } = self.info[i].op {
            match self.concat_part(i, view) {
                Err(cut) => return Some(cut),
                Ok((k, v)) => vec![(k, v)],
            }
        } else if fusable_kind(&self.info[i].op) {
            let map = axis_map(view, &self.nodes[i].shape)?;
            inputs
                .iter()
                .enumerate()
                .map(|(k, a)| (k, map.compose(&view.shape, &a.view)))
                .collect()
        } else {
            return None;
        };
        reads.into_iter().find_map(|(k, v)| match self.pending(&inputs[k]) {
            Some(p) if !self.materialised[p] => self.find_split(p, &v),
            _ => None,
        })
    }

    /// Which part of concatenation `i` the box `view` (over an iteration
    /// space) reads: Ok((input, the view reading it)), or Err((axis of the
    /// view, position)) where the box must be cut because it reads two.
    fn concat_part(&self, i: usize, view: &View) -> Result<(usize, View), (usize, usize)> {
        let Op::Concat { axis } = self.info[i].op else {
            return Err((0, 0));
        };
        let map = axis_map(view, &self.nodes[i].shape).ok_or((0, 0))?;
        let first = map.start.get(axis).copied().unwrap_or(0) as isize;
        // the iteration axis that moves along the concatenation's axis, with its step
        let moving = map
            .axes
            .iter()
            .enumerate()
            .find_map(|(k, a)| a.filter(|&(j, _)| j == axis).map(|(_, step)| (k, step)));
        let (lo, hi) = match moving {
            Some((k, step)) => {
                let last = first + step * (view.shape[k] as isize - 1);
                (first.min(last), first.max(last))
            }
            None => (first, first),
        };
        let inputs = self.inputs(i);
        let mut start = 0isize;
        for (k, a) in inputs.iter().enumerate() {
            let end = start + a.view.shape[axis] as isize;
            if lo >= start && hi < end {
                let mut part = AxisMap {
                    start: map.start.clone(),
                    axes: map.axes.clone(),
                };
                part.start[axis] = (first - start) as usize;
                return Ok((k, part.compose(&view.shape, &a.view)));
            }
            if lo < end && hi >= end {
                // cut where the read leaves this part
                let (k, step) = moving.ok_or((0, 0))?;
                let at = if step > 0 {
                    (end - first + step - 1) / step
                } else {
                    (first - end) / (-step) + 1
                };
                return Err((k, at as usize));
            }
            start = end;
        }
        Err((0, 0))
    }

    /// The box kernels of map `i` (see `split_concats`): its output cut
    /// until no box reads two parts of a concatenation.
    fn split_parts(&mut self, i: usize, view: View, device: &DeviceInfo, kernels: &mut Vec<KernelPlan>) {
        if view.size() == 0 {
            return;
        }
        if let Some((k, at)) = self.find_split(i, &view)
            && at > 0
            && at < view.shape[k]
        {
            let n = view.shape[k];
            self.split_parts(i, view.slice_axis(k, 0, at, 1), device, kernels);
            self.split_parts(i, view.slice_axis(k, at, n - at, 1), device, kernels);
            return;
        }
        let mut kp = self.blank_kernel(i);
        let mut b = ExprBuilder::default();
        self.expr(i, view.clone(), &mut b, &mut kp, false);
        kernels.push(finish_part(kp, b, view, device));
    }

    /// Un-materialises an elementwise node or generator whose consumers all
    /// end up in one kernel, in the same space (a map's, or a reduction's
    /// input), reading it through the same view: that kernel computes it once
    /// per element (the expression builder shares it) instead of storing and
    /// reloading it. Consumers come later in the order, so one pass from the
    /// end lets this cascade through chains of shared nodes.
    /// `root` starts as each node's own kernel, or a representative shared by
    /// the whole-array reductions `multi` will merge into one kernel.
    fn share_within_kernels(&mut self, mut root: Vec<usize>) {
        let n = self.nodes.len();
        for i in (0..n).rev() {
            if !self.materialised[i] {
                // one consumer, or several sharing a root (made so below)
                if let Some(&c) = self.consumers[i].first() {
                    root[i] = root[c];
                }
                continue;
            }
            let op = &self.info[i].op;
            let id = self.nodes[i].id;
            if !fusable_kind(op) || self.outputs.contains(&id) || self.red[i].is_some() || self.consumers[i].len() < 2 {
                continue;
            }
            let mut views = Vec::new();
            let same_space = self.consumers[i].iter().all(|&c| {
                let body = match self.info[c].op {
                    Op::Reduce { .. } => true,
                    ref o => fusable_kind(o) && self.red[c].is_none(),
                };
                views.extend(
                    self.inputs(c)
                        .iter()
                        .filter(|a| a.node.id == id)
                        .map(|a| a.view.clone()),
                );
                body
            });
            let r = root[self.consumers[i][0]];
            let one_kernel = self.consumers[i].iter().all(|&c| root[c] == r);
            let one_view =
                views.windows(2).all(|w| w[0] == w[1]) && views.first().is_some_and(|v| !self.read_needs_store(v, i));
            if same_space && one_kernel && one_view {
                self.materialised[i] = false;
                root[i] = r;
            }
        }
    }

    /// Whether concatenation `i` is computed as parts, each a map writing
    /// its box of the output: on the CPU, for the dtypes its maps compute.
    fn assembled(&self, i: usize) -> bool {
        let node = &self.nodes[i];
        self.windows && node.size() > 0 && !matches!(node.dtype, DType::F16 | DType::BF16)
    }

    /// Whether concatenation `p`, an input of the assembled concatenation
    /// `c`, writes its parts straight into `c`'s: nobody else reads it, and
    /// `c` reads it only through boxes (slices without steps).
    fn absorbed(&self, p: usize, c: usize) -> bool {
        let node = &self.nodes[p];
        self.assembled(p)
            && self.consumers[p] == [c]
            && !self.outputs.contains(&node.id)
            && self
                .inputs(c)
                .iter()
                .filter(|a| a.node.id == node.id)
                .all(|a| box_start(&a.view, &node.shape).is_some())
    }

    /// Whether the expression that would fuse into node `p` reads an array
    /// that something outside it reads too. Such a producer is stored by a
    /// kernel of its own and copied into its part: beside its siblings it
    /// shares their reads and common subexpressions (lattice Boltzmann's
    /// rolled populations, each computed from the same densities and
    /// velocities, are one multi-output map), which separate parts, each
    /// over a box of its own, cannot.
    fn reads_shared(&self, p: usize) -> bool {
        let mut inside: HashSet<usize> = std::iter::once(p).collect();
        let mut frontier: HashSet<u64> = HashSet::default();
        let mut stack = vec![p];
        while let Some(q) = stack.pop() {
            for a in self.inputs(q).iter() {
                match self.pending(a) {
                    Some(r) if !self.materialised[r] && fusable_kind(&self.info[r].op) => {
                        if inside.insert(r) {
                            stack.push(r);
                        }
                    }
                    _ => {
                        frontier.insert(a.node.id);
                    }
                }
            }
        }
        (0..self.nodes.len())
            .filter(|j| !inside.contains(j))
            .any(|j| self.inputs(j).iter().any(|a| frontier.contains(&a.node.id)))
    }

    /// The kernels of assembled concatenation `i`: one map per part, each
    /// computing its input (fused as any map's) into its box of the output.
    fn parts(&mut self, i: usize, device: &DeviceInfo, kernels: &mut Vec<KernelPlan>) {
        let node = self.nodes[i].clone();
        let full = node.shape.to_vec();
        let mut boxes = Vec::new();
        self.boxes(i, &vec![0; full.len()], &full, &vec![0; full.len()], &mut boxes);
        for (a, view, start) in boxes {
            let mut kp = self.blank_kernel(i);
            let mut b = ExprBuilder::default();
            self.expr_of_input(&a, view.clone(), &mut b, &mut kp);
            kp.ops.push("concat".to_string());
            let mut window = View::contiguous(&node.shape);
            for (k, (&at, &n)) in start.iter().zip(view.shape.iter()).enumerate() {
                window = window.slice_axis(k, at, n, 1);
            }
            kernels.push(finish_part(kp, b, window, device));
        }
    }

    /// The parts of the box of concatenation `q` at `at` with `shape` (in
    /// `q`'s coordinates), which lies at `out_at` of the assembled output:
    /// (input, the view reading it over the part, the part's start in the
    /// output), descending into the concatenations absorbed into it.
    fn boxes(
        &self,
        q: usize,
        at: &[usize],
        shape: &[usize],
        out_at: &[usize],
        out: &mut Vec<(Array, View, Vec<usize>)>,
    ) {
        let Op::Concat { axis } = self.info[q].op else {
            return;
        };
        let mut lo = 0;
        for a in self.inputs(q).iter() {
            let len = a.view.shape[axis];
            let (from, to) = (at[axis].max(lo), (at[axis] + shape[axis]).min(lo + len));
            if from < to {
                // the overlap, in the part's coordinates and the output's
                let (mut sub_at, mut sub_shape, mut sub_out) = (at.to_vec(), shape.to_vec(), out_at.to_vec());
                sub_at[axis] = from - lo;
                sub_shape[axis] = to - from;
                sub_out[axis] += from - at[axis];
                let mut view = a.view.clone();
                for (k, (&s, &n)) in sub_at.iter().zip(&sub_shape).enumerate() {
                    view = view.slice_axis(k, s, n, 1);
                }
                // an absorbed concatenation is read through boxes, so its sub-boxes are boxes too
                let absorbed = self
                    .pending(a)
                    .filter(|&p| !self.materialised[p] && matches!(self.info[p].op, Op::Concat { .. }))
                    .and_then(|p| Some((p, box_start(&view, &self.nodes[p].shape)?)));
                match absorbed {
                    Some((p, start)) => self.boxes(p, &start, &sub_shape, &sub_out, out),
                    None => out.push((a.clone(), view, sub_out)),
                }
            }
            lo += len;
        }
    }

    /// A kernel of node `i` with nothing in it yet.
    fn blank_kernel(&mut self, i: usize) -> KernelPlan {
        let node = &self.nodes[i];
        KernelPlan {
            strategy: Strategy::MatMul,
            output: node.id,
            out_label: tag('t', i),
            out_dtype: node.dtype,
            out_shape: node.shape.to_vec(),
            nodes: vec![node.id],
            ops: Vec::new(),
            operands: Vec::new(),
            body: Vec::new(),
            reduce: None,
            kept: node.shape.len(),
            epi_operands: Vec::new(),
            epilogue: Vec::new(),
            shape: node.shape.to_vec(),
            vec: 1,
            index32: false,
            grid: (1, 1),
            block: 256,
            bytes_read: 0,
            bytes_written: (node.size() * node.dtype.size_bytes()) as u64,
            aux: Vec::new(),
            window: None,
        }
    }

    fn label(&mut self, node: &Rc<Node>) -> String {
        if let Some(&p) = self.pos.get(&node.id)
            && !matches!(self.info[p].op, Op::Buffer)
        {
            return tag('t', p);
        }
        let n = self.leaf_labels.len();
        self.leaf_labels.entry(node.id).or_insert_with(|| tag('a', n)).clone()
    }

    fn run(mut self, device: &DeviceInfo) -> Plan {
        self.partition();
        let mut kernels = Vec::new();
        // label leaves in order of first use so names are stable
        for i in 0..self.nodes.len() {
            for a in self.inputs(i).iter() {
                if self.pending(a).is_none() {
                    self.label(&a.node);
                }
            }
        }
        for i in 0..self.nodes.len() {
            if !self.materialised[i] || matches!(self.info[i].op, Op::Buffer) {
                continue;
            }
            if matches!(self.info[i].op, Op::Concat { .. }) && self.assembled(i) {
                self.parts(i, device, &mut kernels);
                continue;
            }
            if self.split_roots.contains(&i) {
                let whole = View::contiguous(&self.nodes[i].shape);
                self.split_parts(i, whole, device, &mut kernels);
                continue;
            }
            let k = self.kernel(i, device);
            kernels.push(k);
        }
        // row-resident runs on every backend (the CPU with its own row limit in `rows`)
        kernels = rows::fuse_rows(kernels, &self.outputs, device);
        if device.gpu_kernels {
            kernels = multi::fuse_siblings(kernels, device);
        } else {
            kernels = maps::fuse_maps(kernels, &self.outputs, device);
        }
        Plan {
            device: device.name.clone(),
            kernels,
        }
    }

    fn kernel(&mut self, i: usize, device: &DeviceInfo) -> KernelPlan {
        let node = self.nodes[i].clone();
        let op = self.info[i].op.clone();
        let mut kp = self.blank_kernel(i);
        if let Op::Segment { op: sop, layout } = &op {
            let inputs = self.inputs(i);
            let mut b = ExprBuilder::default();
            self.expr_of_input(&inputs[0], inputs[0].view.clone(), &mut b, &mut kp);
            kp.ops.push(format!("seg{}", reduce_name(*sop)));
            kp.operands = b.operands;
            kp.body = b.steps;
            kp.reduce = Some(*sop);
            kp.shape = inputs[0].view.shape.to_vec();
            kp.kept = 0;
            for a in &inputs[1..] {
                let label = self.label(&a.node);
                kp.aux.push(Operand {
                    node: a.node.id,
                    label,
                    dtype: a.dtype(),
                    source: Source::Buffer,
                    view: a.view.clone(),
                });
            }
            finish_segment(&mut kp, *layout, device);
            return kp;
        }
        let special = match &op {
            Op::Scan { op, axis } => Some(Strategy::Scan {
                op: *op,
                axis: *axis,
                chunks: 1,
            }),
            Op::MatMul => Some(Strategy::MatMul),
            Op::Concat { axis } => Some(Strategy::Concat { axis: *axis }),
            Op::Take { axis } => Some(Strategy::Take { axis: *axis }),
            _ => None,
        };
        if let Some(strategy) = special {
            for a in self.inputs(i).iter() {
                let label = self.label(&a.node);
                kp.operands.push(Operand {
                    node: a.node.id,
                    label,
                    dtype: a.dtype(),
                    source: Source::Buffer,
                    view: a.view.clone(),
                });
            }
            kp.ops.push(strategy.name().to_string());
            kp.strategy = strategy;
            kp.bytes_read = kp.operands.iter().map(operand_bytes).sum();
            kp.grid = (grid_for(node.size() as u64, 256, device, 4), 1);
            if let Strategy::Scan { op, axis, .. } = kp.strategy {
                let len = node.shape[axis] as u64;
                let lines = node.size() as u64 / len.max(1);
                if plan_contiguous_scan(&mut kp, op, axis, device) {
                    return kp;
                }
                kp.grid = (grid_for(lines, 256, device, 4), 1);
                // too few lines to fill the GPU with a thread each: split lines into chunks
                if len >= 2 * SCAN_CHUNK && lines < device.sm_count as u64 * 64 {
                    let chunks = len.div_ceil(SCAN_CHUNK) as u32;
                    kp.strategy = Strategy::Scan { op, axis, chunks };
                    kp.grid = (chunks, lines as u32);
                }
            }
            return kp;
        }
        // The reduction this kernel computes, if any.
        let reduce_node = if matches!(op, Op::Reduce { .. }) {
            Some(i)
        } else {
            self.red[i]
        };
        match reduce_node {
            None => {
                let mut b = ExprBuilder::default();
                let root = View::contiguous(&node.shape);
                self.expr(i, root, &mut b, &mut kp, false);
                kp.operands = b.operands;
                kp.body = b.steps;
                finish_elementwise(&mut kp, device);
            }
            Some(r) => {
                let (rop, axes) = match &self.info[r].op {
                    Op::Reduce { op, axes } => (*op, axes.clone()),
                    _ => unreachable!("red points at a reduction"),
                };
                let reduced = self.inputs(r);
                let input = &reduced[0];
                let in_shape = input.view.shape.clone();
                let kept_axes: Vec<usize> = (0..in_shape.len()).filter(|k| !axes.contains(k)).collect();
                let perm: Vec<usize> = kept_axes.iter().copied().chain(axes.iter().copied()).collect();
                let mut b = ExprBuilder::default();
                let v = input.view.permute(&perm);
                self.expr_of_input(input, v, &mut b, &mut kp);
                kp.ops.push(reduce_name(rop).to_string());
                if r != i {
                    kp.nodes.push(self.nodes[r].id);
                }
                kp.operands = b.operands;
                kp.body = b.steps;
                kp.reduce = Some(rop);
                kp.kept = kept_axes.len();
                kp.shape = perm.iter().map(|&k| in_shape[k]).collect();
                if r != i {
                    let mut e = ExprBuilder {
                        epilogue: true,
                        ..Default::default()
                    };
                    self.expr(i, View::contiguous(&node.shape), &mut e, &mut kp, true);
                    kp.epi_operands = e.operands;
                    kp.epilogue = e.steps;
                }
                self.finish_reduce(&mut kp, device);
            }
        }
        kp
    }

    fn expr_of_input(&mut self, a: &Array, view: View, b: &mut ExprBuilder, kp: &mut KernelPlan) -> usize {
        match self.pending(a) {
            Some(p) if !self.materialised[p] => {
                let e = b.epilogue;
                // A fused chain is as deep as the graph (thousands of nodes between realizes):
                // grow the stack rather than overflow it.
                stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || self.expr(p, view, b, kp, e))
            }
            _ => {
                let label = self.label(&a.node);
                b.load(a.node.id, label, a.dtype(), Source::Buffer, view)
            }
        }
    }

    /// Adds the expression computing node `i` at iteration coordinates that
    /// `view` maps onto `i`'s contiguous output.
    fn expr(&mut self, i: usize, view: View, b: &mut ExprBuilder, kp: &mut KernelPlan, epilogue: bool) -> usize {
        if let Some(&(_, s)) = b
            .memo
            .get(&self.nodes[i].id)
            .and_then(|m| m.iter().find(|(v, _)| *v == view))
        {
            return s;
        }
        let node = self.nodes[i].clone();
        let op = self.info[i].op.clone();
        let step = match &op {
            Op::Reduce { .. } if epilogue => b.push(Inst::Acc, node.dtype),
            Op::Concat { .. } => {
                // a concatenation fused into a map: the box reads one part (`split_parts`)
                let Ok((k, v)) = self.concat_part(i, &view) else {
                    unreachable!("split_parts cut every box to one part")
                };
                let a = self.inputs(i)[k].clone();
                let step = self.expr_of_input(&a, v, b, kp);
                return self.memo(b, i, view, step);
            }
            Op::Arange { start, step } => b.load(
                node.id,
                tag('t', i),
                node.dtype,
                Source::Arange {
                    start: *start,
                    step: *step,
                },
                view.clone(),
            ),
            Op::Random { key, dist } => b.load(
                node.id,
                tag('t', i),
                node.dtype,
                Source::Random { key: *key, dist: *dist },
                view.clone(),
            ),
            _ => {
                let map = axis_map(&view, &node.shape).expect("partition checked composability");
                let inputs = self.inputs(i);
                let mut args = Vec::new();
                for a in inputs.iter() {
                    let v = map.compose(&view.shape, &a.view);
                    args.push(self.expr_of_input(a, v, b, kp));
                }
                let inst = match op {
                    Op::Copy => return self.memo(b, i, view, args[0]),
                    Op::Cast => Inst::Cast(args[0]),
                    Op::Unary(u) => Inst::Unary(u, args[0]),
                    Op::Binary(o) => Inst::Binary(o, args[0], args[1]),
                    Op::Where => Inst::Where(args[0], args[1], args[2]),
                    other => unreachable!("not fusable: {other:?}"),
                };
                kp.ops.push(op_name(&self.info[i].op, node.dtype));
                b.push(inst, node.dtype)
            }
        };
        if i != self.pos[&kp.output] && !kp.nodes.contains(&node.id) && !matches!(op, Op::Reduce { .. }) {
            kp.nodes.push(node.id);
        }
        self.memo(b, i, view, step)
    }

    fn memo(&self, b: &mut ExprBuilder, i: usize, view: View, step: usize) -> usize {
        b.memo.entry(self.nodes[i].id).or_default().push((view, step));
        step
    }

    fn finish_reduce(&mut self, kp: &mut KernelPlan, device: &DeviceInfo) {
        let rank = kp.shape.len();
        let groups: Vec<u8> = (0..rank).map(|k| if k < kp.kept { 0 } else { 1 }).collect();
        let mut strides: Vec<Vec<isize>> = kp.operands.iter().map(|o| o.view.strides.to_vec()).collect();
        let body_count = strides.len();
        // epilogue operands live in the kept space: pad with stride 0 on reduced axes
        for o in &kp.epi_operands {
            let mut s = o.view.strides.to_vec();
            s.resize(rank, 0);
            strides.push(s);
        }
        // the output, contiguous over kept axes
        let mut out = crate::graph::view::contiguous_strides(&kp.out_shape).to_vec();
        out.resize(rank, 0);
        strides.push(out);
        let (shape, groups) = collapse(&kp.shape, &groups, &mut strides);
        let kept = groups.iter().filter(|&&x| x == 0).count();
        for (o, s) in kp.operands.iter_mut().zip(&strides[..body_count]) {
            o.view = View {
                shape: Dims::from_slice(&shape),
                strides: Strides::from_slice(s),
                offset: o.view.offset,
            };
        }
        for (o, s) in kp.epi_operands.iter_mut().zip(&strides[body_count..]) {
            o.view = View {
                shape: Dims::from_slice(&shape[..kept]),
                strides: Strides::from_slice(&s[..kept]),
                offset: o.view.offset,
            };
        }
        kp.shape = shape;
        kp.kept = kept;
        kp.bytes_read =
            kp.operands.iter().map(operand_bytes).sum::<u64>() + kp.epi_operands.iter().map(operand_bytes).sum::<u64>();
        kp.index32 = fits_32(kp);
        let outs: u64 = kp.shape[..kept].iter().product::<usize>() as u64;
        let red: u64 = kp.shape[kept..].iter().product::<usize>() as u64;
        let nred = kp.shape.len() - kept;
        let last = kp.shape.len().saturating_sub(1);
        let inner_moves = |k: usize| kp.operands.iter().all(|o| matches!(o.view.strides[k], 0 | 1));
        let vec_full = full_vec(kp);
        if kept == 0 && red > 0 {
            let contiguous = nred == 1
                && inner_moves(last)
                && kp
                    .operands
                    .iter()
                    .all(|o| o.source != Source::Buffer || o.view.offset % vec_full as usize == 0);
            kp.vec = if contiguous { vec_full } else { 1 };
            let blocks = grid_for(red.div_ceil(kp.vec as u64), 256, device, 1).min(1024);
            kp.strategy = Strategy::ReduceAll { blocks };
            kp.grid = (blocks, 1);
            return;
        }
        // several reduced axes are fine below: the templates unravel the reduced index
        // nred == 0: only size-1 (or no) axes reduced, collapsed away; the row and column
        // templates need a reduced axis to walk
        if outs == 0 || red == 0 || nred == 0 {
            kp.strategy = Strategy::ReduceGeneral;
            kp.grid = (grid_for(outs, 256, device, 4), 1);
            return;
        }
        // vector loads along the reduced axis: it moves by 1 (or 0) everywhere, rows aligned
        let vec_ok = inner_moves(last)
            && kp.shape[last].is_multiple_of(vec_full as usize)
            && kp.operands.iter().all(|o| {
                o.view.strides[last] == 0
                    || ((o.source != Source::Buffer || o.view.offset % vec_full as usize == 0)
                        && o.view.strides[..last].iter().all(|&x| x % vec_full as isize == 0))
            });
        if inner_moves(last) {
            let lanes: u32 = if red >= 8192 && outs < device.sm_count as u64 * 8 {
                256
            } else {
                (red.div_ceil(if vec_ok { vec_full as u64 } else { 1 })
                    .next_power_of_two()
                    .clamp(1, 32)) as u32
            };
            kp.vec = if vec_ok { vec_full } else { 1 };
            // too few rows to give every resident block one: cut each row over several blocks
            let resident = device.resident_blocks(256);
            let mut split = 1u64;
            if lanes > 32 && outs <= 65535 {
                while outs * split < resident && red / (split * 2) >= 8192 && split < 1024 {
                    split *= 2;
                }
            }
            kp.strategy = Strategy::ReduceRows {
                lanes,
                split: split as u32,
            };
            if split > 1 {
                kp.block = lanes;
                kp.grid = (split as u32, outs as u32);
            } else if lanes > 32 {
                kp.block = lanes;
                kp.grid = (outs.min(65535 * 16) as u32, 1);
            } else {
                let rows_per_block = 256 / lanes as u64;
                kp.grid = (grid_for(outs * lanes as u64, 256, device, 8).max(1), 1);
                let _ = rows_per_block;
            }
            return;
        }
        // the innermost kept axis is contiguous (a middle-axis or multi-axis reduction):
        // kept axes in parallel, a thread each, the reduced axes looped; no transpose copy
        if kept >= 1 && inner_moves(kept - 1) {
            // thread per kept element; split the reduced axis when outputs cannot fill the GPU
            let target = device.sm_count as u64 * device.max_threads_per_sm as u64;
            let mut split = 1u64;
            while outs * split * 2 <= target && red / (split * 2) >= 64 && split < 1024 {
                split *= 2;
            }
            kp.strategy = Strategy::ReduceCols { split: split as u32 };
            kp.grid = (outs.div_ceil(256) as u32, split as u32);
            return;
        }
        kp.strategy = Strategy::ReduceGeneral;
        kp.grid = (grid_for(outs, 256, device, 4), 1);
    }
}

/// Picks a contiguous scan (a warp per line, or the single-pass look-back
/// for few long lines) when the scanned axis moves by 1 in the input and the
/// output and lines are long enough to fill a warp; false leaves the
/// thread-per-line and chunked scans to the caller.
fn plan_contiguous_scan(kp: &mut KernelPlan, op: ScanOp, axis: usize, device: &DeviceInfo) -> bool {
    let v = kp.operands[0].view.clone();
    let len = v.shape[axis] as u64;
    let lines = kp.out_size() as u64 / len.max(1);
    let out_strides = crate::graph::view::contiguous_strides(&kp.out_shape);
    if v.strides[axis] != 1 || out_strides[axis] != 1 || len < 32 {
        return false;
    }
    let size = kp.out_dtype.size_bytes();
    let full = (16 / size.max(1)).max(1);
    // 16-byte accesses when every line starts on a vector boundary
    let aligned = len.is_multiple_of(full as u64)
        && v.offset.is_multiple_of(full)
        && (0..v.rank()).all(|d| d == axis || v.shape[d] == 1 || v.strides[d] % full as isize == 0);
    kp.vec = if aligned { full as u32 } else { 1 };
    let tile = scan_tile(kp.vec, size);
    kp.index32 = fits_32(kp) && (kp.work() as u64 + tile) < (1u64 << 31);
    kp.block = SCAN_BLOCK;
    let tiles = len.div_ceil(tile);
    // a warp per line fills the GPU once there are enough lines; otherwise cut lines into tiles
    if lines < device.sm_count as u64 * 32 && len >= 2 * tile && lines * tiles <= u32::MAX as u64 {
        kp.strategy = Strategy::ScanLookback {
            op,
            axis,
            tiles: tiles as u32,
        };
        kp.grid = ((lines * tiles) as u32, 1);
    } else {
        kp.strategy = Strategy::ScanRows { op, axis };
        kp.grid = (grid_for(lines * 32, SCAN_BLOCK, device, 4), 1);
    }
    true
}

/// Sizes a segmented reduction's launches from its length classes.
fn finish_segment(kp: &mut KernelPlan, layout: SegLayout, device: &DeviceInfo) {
    kp.bytes_read = kp.operands.iter().map(operand_bytes).sum::<u64>() + kp.aux.iter().map(operand_bytes).sum::<u64>();
    kp.index32 = fits_32(kp);
    kp.vec = 1;
    if layout.tiles > 0 {
        // a block per tile of values, its segments by a thread each (a warp each past SEG_STREAM_LONG)
        kp.grid = (layout.tiles.min(u32::MAX as usize) as u32, 1);
        kp.strategy = Strategy::Segmented {
            layout,
            tile: SEG_TILE as u32,
            lanes: 1,
            block_grid: 0,
            split_grid: 0,
        };
        return;
    }
    // lanes per short segment: about four values per lane, a power of two up to a warp
    let lanes = if layout.short_mean <= 4 {
        1
    } else {
        (layout.short_mean.div_ceil(4).next_power_of_two()).min(32) as u32
    };
    let short_threads = layout.short as u64 * lanes as u64;
    kp.grid = (grid_for(short_threads, 256, device, 8), 1);
    let resident = device.resident_blocks(256);
    let block_grid = (layout.block as u64).min(resident * 4).max(1) as u32;
    let split_grid = (layout.chunks as u64).min(resident * 4).max(1) as u32;
    kp.strategy = Strategy::Segmented {
        layout,
        tile: 0,
        lanes,
        block_grid,
        split_grid,
    };
}

/// Elements per 16-byte access for the widest dtype the kernel streams. A
/// scalar operand (every stride 0) is read once, not per access, so an f64
/// constant does not halve an f32 kernel's accesses; the half floats get 8.
fn full_vec(kp: &KernelPlan) -> u32 {
    let widest = kp
        .operands
        .iter()
        .filter(|o| o.source == Source::Buffer && o.view.strides.iter().any(|&s| s != 0))
        .map(|o| o.dtype.size_bytes())
        .chain([kp.out_dtype.size_bytes()])
        .max()
        .unwrap_or(4);
    (16 / widest.max(2)) as u32
}

/// True when every linear index and every operand offset stays below 2^31.
fn fits_32(kp: &KernelPlan) -> bool {
    let limit = 1u64 << 31;
    let span = |o: &Operand| -> u64 {
        let reach: u64 = o
            .view
            .shape
            .iter()
            .zip(&o.view.strides)
            .map(|(&d, &s)| (d as u64).saturating_sub(1) * s.unsigned_abs() as u64)
            .sum();
        reach + o.view.offset as u64 + 16
    };
    (kp.work() as u64) < limit
        && (kp.out_size() as u64) < limit
        && kp
            .operands
            .iter()
            .chain(&kp.epi_operands)
            .all(|o| o.source == Source::Buffer && span(o) < limit || o.source != Source::Buffer && span(o) < limit)
}

#[derive(Default)]
struct ExprBuilder {
    operands: Vec<Operand>,
    steps: Vec<Step>,
    /// Steps already built, by node and then view: looked up without
    /// building a key (a view is two vectors, and most nodes have one view).
    memo: HashMap<u64, Vec<(View, usize)>>,
    /// Building an epilogue: a fused reduction reads as the accumulator.
    epilogue: bool,
}

impl ExprBuilder {
    fn push(&mut self, inst: Inst, dtype: DType) -> usize {
        self.steps.push(Step { inst, dtype });
        self.steps.len() - 1
    }

    fn load(&mut self, node: u64, label: String, dtype: DType, source: Source, view: View) -> usize {
        let idx = match self.operands.iter().position(|o| o.node == node && o.view == view) {
            Some(k) => k,
            None => {
                // the same array through another view (a stencil's slices): number the views
                let same = self.operands.iter().filter(|o| o.node == node).count();
                let label = if same == 0 {
                    label
                } else {
                    // "a0.1": the label, a dot, the view's number
                    let mut l = label;
                    l.push('.');
                    l.push_str(&tag('.', same)[1..]);
                    l
                };
                self.operands.push(Operand {
                    node,
                    label,
                    dtype,
                    source,
                    view,
                });
                self.operands.len() - 1
            }
        };
        if let Some(s) = self.steps.iter().position(|s| s.inst == Inst::Load(idx)) {
            return s;
        }
        self.push(Inst::Load(idx), dtype)
    }
}

/// Bytes an operand reads from memory: each distinct element once.
/// Where `view` starts, when it reads a box of a contiguous array of
/// `shape`: the same rank, and along every axis it takes more than one
/// element of, consecutive elements (a slice without a step).
fn box_start(view: &View, shape: &[usize]) -> Option<Vec<usize>> {
    if view.rank() != shape.len() || view.size() == 0 {
        return None;
    }
    let strides = crate::graph::view::contiguous_strides(shape);
    let mut rest = view.offset;
    let mut start = Vec::with_capacity(shape.len());
    for k in 0..shape.len() {
        let (n, s) = (view.shape[k], strides[k] as usize);
        if n > 1 && view.strides[k] != s as isize {
            return None;
        }
        let at = rest / s.max(1);
        rest -= at * s;
        if at + n > shape[k] {
            return None;
        }
        start.push(at);
    }
    (rest == 0).then_some(start)
}

fn operand_bytes(o: &Operand) -> u64 {
    if o.source != Source::Buffer {
        return 0;
    }
    let distinct: usize = o
        .view
        .shape
        .iter()
        .zip(&o.view.strides)
        .map(|(&d, &s)| if s == 0 { 1 } else { d })
        .product();
    let distinct = if o.view.shape.contains(&0) { 0 } else { distinct };
    (distinct * o.dtype.size_bytes()) as u64
}

/// Grid-stride grid size: the blocks needed, at most `waves` full waves of resident blocks.
fn grid_for(units: u64, block: u32, device: &DeviceInfo, waves: u64) -> u32 {
    let needed = units.div_ceil(block as u64).max(1);
    needed.min(device.resident_blocks(block) * waves) as u32
}

fn reduce_name(op: ReduceOp) -> &'static str {
    match op {
        ReduceOp::Sum => "sum",
        ReduceOp::Prod => "prod",
        ReduceOp::Min => "min",
        ReduceOp::Max => "max",
        ReduceOp::ArgMin => "argmin",
        ReduceOp::ArgMax => "argmax",
        ReduceOp::Any => "any",
        ReduceOp::All => "all",
    }
}

fn op_name(op: &Op, dtype: DType) -> String {
    match op {
        Op::Cast => format!("cast<{dtype}>"),
        Op::Unary(u) => lower_debug(u),
        Op::Binary(b) => lower_debug(b),
        Op::Where => "where".into(),
        other => format!("{other:?}").to_lowercase(),
    }
}

/// An operator's variant name in lower case (ASCII: lowered in place, one allocation).
fn lower_debug(x: &impl fmt::Debug) -> String {
    let mut s = format!("{x:?}");
    s.make_ascii_lowercase();
    s
}

/// A label such as "t3" or "a0", without the formatting machinery: planning
/// a small graph makes one per operand and kernel.
fn tag(prefix: char, n: usize) -> String {
    let mut digits = [0u8; 20];
    let mut k = digits.len();
    let mut v = n;
    loop {
        k -= 1;
        digits[k] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let mut s = String::with_capacity(1 + digits.len() - k);
    s.push(prefix);
    s.extend(digits[k..].iter().map(|&d| d as char));
    s
}

/// Renders an SSA expression as one nested expression, for `explain`.
pub fn render_expr(steps: &[Step], operands: &[Operand]) -> String {
    render_step(steps, operands, None)
}

/// Renders step `at` (the last when none) of an SSA expression.
pub fn render_step(steps: &[Step], operands: &[Operand], at: Option<usize>) -> String {
    fn go(steps: &[Step], operands: &[Operand], i: usize) -> String {
        match &steps[i].inst {
            Inst::Load(k) => operands[*k].label.clone(),
            Inst::Acc => "acc".into(),
            Inst::Row(k) => format!("row{k}"),
            Inst::Cast(a) => format!("{}({})", steps[i].dtype, go(steps, operands, *a)),
            Inst::Unary(u, a) => {
                let arg = go(steps, operands, *a);
                match u {
                    UnaryOp::Neg => format!("-{arg}"),
                    UnaryOp::Not => format!("!{arg}"),
                    other => format!("{}({arg})", format!("{other:?}").to_lowercase()),
                }
            }
            Inst::Binary(op, a, b) => {
                let (x, y) = (go(steps, operands, *a), go(steps, operands, *b));
                let sym = match op {
                    BinaryOp::Add => "+",
                    BinaryOp::Sub => "-",
                    BinaryOp::Mul => "*",
                    BinaryOp::Div => "/",
                    BinaryOp::Rem => "%",
                    BinaryOp::Pow => "**",
                    BinaryOp::Eq => "==",
                    BinaryOp::Ne => "!=",
                    BinaryOp::Lt => "<",
                    BinaryOp::Le => "<=",
                    BinaryOp::Gt => ">",
                    BinaryOp::Ge => ">=",
                    BinaryOp::And => "&&",
                    BinaryOp::Or => "||",
                    BinaryOp::Bit(bit) => bit.symbol(),
                    other => return format!("{}({x}, {y})", format!("{other:?}").to_lowercase()),
                };
                format!("({x} {sym} {y})")
            }
            Inst::Where(c, a, b) => format!(
                "where({}, {}, {})",
                go(steps, operands, *c),
                go(steps, operands, *a),
                go(steps, operands, *b)
            ),
        }
    }
    if steps.is_empty() {
        String::new()
    } else {
        go(steps, operands, at.unwrap_or(steps.len() - 1))
    }
}

fn fmt_operand(f: &mut fmt::Formatter<'_>, o: &Operand) -> fmt::Result {
    let what = match &o.source {
        Source::Buffer => String::new(),
        Source::Arange { start, step } => format!(" = arange(start {start}, step {step})"),
        Source::Random { dist, .. } => format!(" = random {}", format!("{dist:?}").to_lowercase()),
    };
    writeln!(
        f,
        "    {}: {}{:?} strides {:?} offset {}{}",
        o.label, o.dtype, o.view.shape, o.view.strides, o.view.offset, what
    )
}

fn fmt_bytes(b: u64) -> String {
    if b >= 1 << 20 {
        format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)
    } else if b >= 1 << 10 {
        format!("{:.1} KiB", b as f64 / 1024.0)
    } else {
        format!("{b} B")
    }
}

impl KernelPlan {
    /// The `and label dtype shape = step` lines of a kernel's extra outputs.
    fn fmt_extra_outputs(&self, f: &mut fmt::Formatter<'_>, extra: &[ExtraOut]) -> fmt::Result {
        for o in extra {
            writeln!(
                f,
                "  and {} {}{:?} = {}",
                o.label,
                o.dtype,
                o.shape,
                render_step(&self.body, &self.operands, Some(o.value))
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for KernelPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let detail = match &self.strategy {
            Strategy::Sliding { rows } => format!(" ({rows} rows per thread)"),
            Strategy::TransposeTiled { axis, paired } => format!(
                " (32 x 32 tiles over axes {axis} and {}{})",
                self.shape.len() - 1,
                if *paired {
                    ", tiles (I, J) and (J, I) together: each source tile read once"
                } else {
                    ""
                }
            ),
            Strategy::ReduceAll { blocks } => format!(" ({blocks} partials + finishing block)"),
            Strategy::ReduceRows { lanes, split } if *split > 1 => {
                format!(" ({lanes} lanes per row, each row split over {split} blocks, the last to finish combines)")
            }
            Strategy::ReduceRows { lanes, .. } => format!(" ({lanes} lanes per row)"),
            Strategy::ReduceCols { split } => format!(" (reduced axis split {split} ways)"),
            Strategy::Scan { op, axis, chunks } => {
                format!(
                    " ({} along axis {axis}, {chunks} chunks per line)",
                    format!("{op:?}").to_lowercase()
                )
            }
            Strategy::ScanRows { op, axis } => format!(
                " ({} along axis {axis}, a warp per line, {} elements per lane access)",
                format!("{op:?}").to_lowercase(),
                self.vec
            ),
            Strategy::ScanLookback { op, axis, tiles } => format!(
                " ({} along axis {axis}, {tiles} tiles of {} per line, decoupled look-back)",
                format!("{op:?}").to_lowercase(),
                scan_tile(self.vec, self.out_dtype.size_bytes())
            ),
            Strategy::Concat { axis } | Strategy::Take { axis } => format!(" (axis {axis})"),
            Strategy::ReduceAllMulti { blocks, outs } => {
                format!(
                    " ({} outputs in one pass, {blocks} partials + finishing block)",
                    outs.len()
                )
            }
            Strategy::RowResident {
                stages,
                lanes,
                units,
                per_row,
                ..
            } => {
                let held = if *units > 0 {
                    format!("row held in registers, {units} x {} per lane", self.vec)
                } else {
                    "row re-read for each pass".to_string()
                };
                format!(
                    " ({} reductions per row, {lanes} lanes per row, {held}, written per {})",
                    stages.len(),
                    if *per_row { "row" } else { "element" }
                )
            }
            Strategy::Segmented {
                layout,
                tile,
                lanes,
                block_grid,
                split_grid,
            } => {
                let mut parts = Vec::new();
                if *tile > 0 {
                    parts.push(format!(
                        "all short (mean length {}): {} {} of {tile} values in shared memory, a thread per segment, a warp past {SEG_STREAM_LONG}",
                        layout.short_mean,
                        layout.tiles,
                        if layout.tiles == 1 { "tile" } else { "tiles" }
                    ));
                } else if layout.short > 0 {
                    let who = if *lanes == 1 {
                        "a thread each".to_string()
                    } else if *lanes == 32 {
                        "a warp each".to_string()
                    } else {
                        format!("{lanes} lanes each, {} per warp", 32 / lanes)
                    };
                    parts.push(format!(
                        "{} short (mean length {}) by {who}",
                        layout.short, layout.short_mean
                    ));
                }
                if layout.block > 0 {
                    parts.push(format!("{} by a block each over {block_grid} blocks", layout.block));
                }
                if layout.split > 0 {
                    parts.push(format!(
                        "{} long split into {} chunks of {SEG_CHUNK} over {split_grid} blocks + a finishing pass",
                        layout.split, layout.chunks
                    ));
                }
                format!(
                    " ({} segments, longest {}: {})",
                    layout.segments,
                    layout.max_len,
                    if parts.is_empty() {
                        "none".to_string()
                    } else {
                        parts.join("; ")
                    }
                )
            }
            _ => String::new(),
        };
        let part = match &self.window {
            Some(w) => format!(" part (offset {}, strides {:?})", w.offset, &w.strides[..]),
            None => String::new(),
        };
        writeln!(
            f,
            "{}{} -> {}{part} {}{:?}, vec {}, {}-bit index",
            self.strategy.name(),
            detail,
            self.out_label,
            self.out_dtype,
            self.out_shape,
            self.vec,
            if self.index32 { 32 } else { 64 }
        )?;
        if let Strategy::RowResident { stages, out, extra, .. } = &self.strategy {
            for (k, st) in stages.iter().enumerate() {
                writeln!(
                    f,
                    "  row{k} = {}({})",
                    reduce_name(st.op),
                    render_step(&self.body, &self.operands, Some(st.value))
                )?;
            }
            writeln!(f, "  writes {}", render_step(&self.body, &self.operands, Some(*out)))?;
            self.fmt_extra_outputs(f, extra)?;
        } else if let Strategy::MapMulti { extra } = &self.strategy {
            writeln!(f, "  computes {}", render_expr(&self.body, &self.operands))?;
            self.fmt_extra_outputs(f, extra)?;
        } else if let Strategy::ReduceAllMulti { outs, .. } = &self.strategy {
            for o in outs {
                write!(
                    f,
                    "  {} {}{:?} = {}({})",
                    o.label,
                    o.dtype,
                    self.out_shape,
                    reduce_name(o.op),
                    render_step(&self.body, &self.operands, Some(o.value))
                )?;
                if o.epilogue.is_empty() {
                    writeln!(f)?;
                } else {
                    writeln!(f, ", epilogue {}", render_expr(&o.epilogue, &self.epi_operands))?;
                }
            }
        } else if !self.body.is_empty() {
            let what = if self.reduce.is_some() { "reduces" } else { "computes" };
            writeln!(f, "  {what} {}", render_expr(&self.body, &self.operands))?;
        }
        if !self.epilogue.is_empty() {
            writeln!(f, "  epilogue {}", render_expr(&self.epilogue, &self.epi_operands))?;
        }
        if !self.ops.is_empty() {
            writeln!(f, "  fused ops: {}", self.ops.join(", "))?;
        }
        let kept = &self.shape[..self.kept.min(self.shape.len())];
        let red = &self.shape[self.kept.min(self.shape.len())..];
        if let Strategy::Segmented { .. } = self.strategy {
            writeln!(
                f,
                "  iteration: {:?} values into {} segments",
                self.shape,
                self.out_size()
            )?;
        } else if self.reduce.is_some() {
            writeln!(f, "  iteration: kept {kept:?} x reduced {red:?}")?;
        } else {
            writeln!(f, "  iteration: {:?}", self.shape)?;
        }
        if !self.operands.is_empty() || !self.epi_operands.is_empty() {
            writeln!(f, "  reads:")?;
            for o in self.operands.iter().chain(&self.epi_operands).chain(&self.aux) {
                fmt_operand(f, o)?;
            }
        }
        writeln!(
            f,
            "  grid {}x{}, block {}; moves {} read + {} written",
            self.grid.0,
            self.grid.1,
            self.block,
            fmt_bytes(self.bytes_read),
            fmt_bytes(self.bytes_written)
        )
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.kernels.len();
        writeln!(f, "{n} kernel{} on {}", if n == 1 { "" } else { "s" }, self.device)?;
        for (k, kp) in self.kernels.iter().enumerate() {
            write!(f, "[{k}] {kp}")?;
        }
        Ok(())
    }
}
