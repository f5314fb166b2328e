//! The operations a graph node can perform. This is the contract between the
//! graph builder (which checks shapes and inserts casts and views) and the
//! backends (which only execute).

use crate::check::dtype::DType;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    /// Logical not (bool in, bool out).
    Not,
    Abs,
    Sign,
    Exp,
    Log,
    Sqrt,
    Sin,
    Cos,
    Tan,
    Tanh,
    Erf,
    Floor,
    Ceil,
    Round,
    /// bool out: x != x
    IsNan,
}

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
    Pow,
    /// NaN-propagating, like `np.minimum` / `np.maximum`.
    Min,
    Max,
    Atan2,
    /// Comparisons and logic produce bool.
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
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
    /// Inputs and output share a dtype, except `Not` and `IsNan`, whose output is bool.
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
    /// (m, k) @ (k, n) -> (m, n), same dtype; input views have those shapes.
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
}

impl Op {
    /// Elementwise ops whose inputs all have the output shape: fusable.
    pub fn is_elementwise(&self) -> bool {
        matches!(self, Op::Copy | Op::Cast | Op::Unary(_) | Op::Binary(_) | Op::Where)
    }
}

/// The dtype a reduction or scan is computed in for an input dtype (NumPy:
/// sums of bool and small ints widen to the default int).
pub fn accumulate_dtype(input: DType) -> DType {
    match input {
        DType::Bool | DType::I32 => DType::I64,
        other => other,
    }
}
