//! The operations a graph node can perform. This is the contract between the
//! graph builder (which checks shapes and inserts casts and views) and the
//! backends (which only execute).

use crate::check::dtype::DType;

/// So are the binary ones of the bitwise family.
pub use crate::check::prim::BitOp;
/// The elementwise unary primitives are declared in `check::prim` (one line each).
pub use crate::check::prim::UnaryOp;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// Float division only (the builder casts integers to float first).
    Div,
    /// Python/NumPy modulo: the result has the sign of the divisor.
    /// Integer modulo by zero is an error.
    Rem,
    /// Python/NumPy floor division: `floor(a / b)`. Integer floor division by
    /// zero is an error (as `Rem`); floats follow NumPy's `floor_divide`.
    FloorDiv,
    Pow,
    /// NaN-propagating, like `np.minimum` / `np.maximum`.
    Min,
    Max,
    Atan2,
    /// sqrt(a*a + b*b) without overflow (float only).
    Hypot,
    /// Comparisons and logic produce bool.
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    /// The bitwise and shift primitives of `check::prim::for_each_binary!`,
    /// on bool (`& | ^` only) and integer operands of the node's dtype.
    Bit(BitOp),
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }

    pub fn is_logical(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or)
    }

    /// A distinct number per op, for the plan cache's keys.
    pub fn code(self) -> u64 {
        use BinaryOp::*;
        match self {
            Add => 0,
            Sub => 1,
            Mul => 2,
            Div => 3,
            Rem => 4,
            FloorDiv => 5,
            Pow => 6,
            Min => 7,
            Max => 8,
            Atan2 => 9,
            Hypot => 10,
            Eq => 11,
            Ne => 12,
            Lt => 13,
            Le => 14,
            Gt => 15,
            Ge => 16,
            And => 17,
            Or => 18,
            Bit(b) => 64 + b as u64,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Sum,
    Prod,
    /// NaN-propagating.
    Min,
    Max,
    /// First index of the minimum/maximum along the single reduced axis
    /// (NaN counts as the extreme, as in NumPy); output i64.
    ArgMin,
    ArgMax,
    /// bool in, bool out.
    Any,
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanOp {
    Sum,
    Prod,
    Min,
    Max,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Distribution {
    /// Uniform on [0, 1).
    Uniform,
    /// Standard normal (Box-Muller on two uniforms).
    Normal,
}

/// What a node computes. Unless stated otherwise, every input view already
/// has the node's output shape (broadcasts are stride-0 views) and the
/// node's dtype (casts are explicit nodes).
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A realized leaf: the node's buffer is already there.
    Buffer,
    /// Materialise the input view contiguously.
    Copy,
    /// Convert the input (any dtype) to the node's dtype.
    Cast,
    /// Inputs and output share a dtype, except `Not` and the predicates (`IsNan`, ...), whose output is bool.
    Unary(UnaryOp),
    /// Inputs share a dtype; output is the node's dtype (bool for comparisons and logic).
    Binary(BinaryOp),
    /// `where(cond, a, b)`: cond is bool, a and b have the node's dtype.
    Where,
    /// Reduces the listed axes of input 0 (whose view has the *input* shape).
    /// Output shape = input shape without those axes. Sum/Prod/Min/Max keep
    /// the dtype (the builder casts first); Any/All are bool; ArgMin/ArgMax
    /// have exactly one axis and output i64.
    Reduce { op: ReduceOp, axes: Vec<usize> },
    /// Inclusive scan along `axis`; output shape = input shape, same dtype.
    Scan { op: ScanOp, axis: usize },
    /// (m, k) @ (k, n) -> (m, n), or a stack (b, m, k) @ (b, k, n) -> (b, m, n)
    /// (a batch axis may have stride 0), same dtype; input views have those shapes.
    MatMul,
    /// Joins inputs along `axis`; input views have the output shape except along `axis`.
    Concat { axis: usize },
    /// Element i of the (contiguous) output is `start + i * step`.
    Arange { start: f64, step: f64 },
    /// Reproducible random numbers: element i is a pure function of (key, i);
    /// see `graph::random`.
    Random { key: u64, dist: Distribution },
    /// Gathers along `axis` of input 0 at the positions in input 1 (i64,
    /// already bounds-checked and non-negative); input 0's view has the
    /// source shape, input 1's view has the index shape. Output shape =
    /// source shape with `axis` replaced by the index shape.
    Take { axis: usize },
    /// Ragged segmented reduction (`segsum`, `segmin`, ...). Input 0: the
    /// values (a 1-D view, already cast to the node's dtype); input 1: i64
    /// offsets (`segments + 1` of them, contiguous: 0, nondecreasing, ending
    /// at the number of values); input 2: i64 `layout` (see `SegLayout`).
    /// Output element k reduces values[offsets[k]..offsets[k + 1]]; an empty
    /// segment gives the reduction's identity (0, 1, +inf/max, -inf/min).
    Segment { op: ReduceOp, layout: SegLayout },
}

/// Segments longer than this are reduced by a block each (not a sub-warp).
pub const SEG_SHORT_MAX: usize = 1024;
/// Segments longer than this are split into `SEG_CHUNK`-element chunks
/// across blocks, with a second pass combining each segment's chunks.
pub const SEG_BLOCK_MAX: usize = 32768;
pub const SEG_CHUNK: usize = 8192;

/// Values per tile of the stream kernel (every segment short): the unit a
/// block loads into shared memory. Measured on an H200 (segsum of 3M
/// segments of 1..63): tiles of 4096 at 84% of the copy ceiling, of 2048 at
/// 79%.
pub const SEG_TILE: usize = 4096;
/// In the stream kernel, segments longer than this are reduced by a warp
/// (after the thread-per-segment pass) rather than by a thread.
pub const SEG_STREAM_LONG: usize = 64;

/// How a ragged reduction's segments fall into length classes, worked out
/// on the host from the offsets (which the builder validates there anyway).
///
/// When every segment is short (`tiles > 0`), one stream kernel reads all
/// values once: block t loads the tile of values `t * tile ..` into shared
/// memory together with the rest of the last segment that starts in it, and
/// reduces the segments that start in it. The layout input then holds
/// `tiles + 1` segment indices (tile t owns segments `lay[t]..lay[t + 1]`,
/// those starting at or after its first value and before the next tile's),
/// found by galloping search with no sort, then the `tiles` ends of the
/// blocks' regions (the offset where the next tile's first segment starts).
/// Otherwise it lists the segment ids class by class (short, block, split,
/// each in increasing order), then the split segments' chunk prefix
/// (`split + 1` entries: where each split segment's chunks start).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SegLayout {
    pub segments: usize,
    /// Segments of at most `SEG_SHORT_MAX` elements.
    pub short: usize,
    /// Mean length of the short segments, rounded up (sizes their sub-warps).
    pub short_mean: usize,
    /// Segments of `SEG_SHORT_MAX + 1 ..= SEG_BLOCK_MAX` elements.
    pub block: usize,
    /// Longer segments, and the chunks they are cut into.
    pub split: usize,
    pub chunks: usize,
    pub max_len: usize,
    /// Stream kernel (every segment short): tiles of `SEG_TILE` values; 0 otherwise.
    pub tiles: usize,
}

impl SegLayout {
    /// Classifies segments by length and returns the layout input to go with it.
    pub fn from_offsets(offsets: &[i64]) -> (SegLayout, Vec<i64>) {
        let n = offsets.len().saturating_sub(1);
        let len = |k: usize| (offsets[k + 1] - offsets[k]).max(0) as usize;
        // one branch-free pass for the common case (every segment short), classes only otherwise
        let max_len = offsets.windows(2).map(|w| (w[1] - w[0]).max(0)).max().unwrap_or(0) as usize;
        let total = offsets.last().copied().unwrap_or(0).max(0) as usize;
        let (mut short, mut block, mut short_total) = (n, 0usize, total);
        if max_len > SEG_SHORT_MAX {
            (short, short_total) = (0, 0);
            for w in offsets.windows(2) {
                let l = (w[1] - w[0]).max(0) as usize;
                if l <= SEG_SHORT_MAX {
                    short += 1;
                    short_total += l;
                } else if l <= SEG_BLOCK_MAX {
                    block += 1;
                }
            }
        }
        let mut layout = SegLayout {
            segments: n,
            short,
            short_mean: short_total.div_ceil(short.max(1)),
            block,
            split: n - short - block,
            chunks: 0,
            max_len,
            tiles: 0,
        };
        if short == n {
            // every segment short: the stream kernel over tiles, each owning the
            // segments that start in it; no classes, no sort
            let tile = SEG_TILE;
            let tiles = total.div_ceil(tile).max(1);
            let mut lay = Vec::with_capacity(2 * tiles + 1);
            lay.push(0);
            let mut s = 0usize;
            for b in 1..tiles {
                // the first segment starting at or after b * tile, searched forward from the last cut
                let at = (b * tile) as i64;
                let mut step = 1usize;
                while s + step < n && offsets[s + step] < at {
                    step *= 2;
                }
                let hi = (s + step).min(n);
                s += offsets[s..hi].partition_point(|&o| o < at);
                lay.push(s as i64);
            }
            lay.push(n as i64);
            for t in 0..tiles {
                let end = offsets[lay[t + 1] as usize];
                lay.push(end);
            }
            layout.tiles = tiles;
            return (layout, lay);
        }
        let mut ids: [Vec<i64>; 3] = [
            Vec::with_capacity(short),
            Vec::with_capacity(block),
            Vec::with_capacity(layout.split),
        ];
        for k in 0..n {
            let l = len(k);
            let class = if l <= SEG_SHORT_MAX {
                0
            } else if l <= SEG_BLOCK_MAX {
                1
            } else {
                2
            };
            ids[class].push(k as i64);
        }
        let mut prefix = Vec::with_capacity(layout.split + 1);
        let mut chunks = 0usize;
        prefix.push(0);
        for &k in &ids[2] {
            chunks += len(k as usize).div_ceil(SEG_CHUNK);
            prefix.push(chunks as i64);
        }
        layout.chunks = chunks;
        let [a, b, c] = ids;
        let mut out = a;
        out.extend(b);
        out.extend(c);
        out.extend(prefix);
        (layout, out)
    }

    /// Whether the layout input lists segment ids (more than one class, or no short ones).
    pub fn ordered(&self) -> bool {
        self.short != self.segments
    }
}

impl Op {
    /// Elementwise ops whose inputs all have the output shape: fusable.
    pub fn is_elementwise(&self) -> bool {
        matches!(self, Op::Copy | Op::Cast | Op::Unary(_) | Op::Binary(_) | Op::Where)
    }
}

/// The dtype a reduction or scan is computed in for an input dtype (NumPy:
/// sums of bool and small ints widen to the default int; NumPy gives
/// `u64` for the unsigned ones, which Arr does not have).
pub fn accumulate_dtype(input: DType) -> DType {
    if input == DType::Bool || input.is_int() {
        DType::I64
    } else {
        input
    }
}
