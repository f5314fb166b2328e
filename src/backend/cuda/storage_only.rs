//! The storage-only dtypes (f16, bf16 and the narrow integers u8, i8, i16,
//! u16, u32) on the CUDA backend. Elementwise kernels, casts, copies, slice
//! assignment and reductions are the generated kernels themselves: the
//! codegen stores a half float as 16 bits (`arr_f16`, `arr_bf16` in
//! kernels/prelude.cu) and computes in float, a narrow integer at its width
//! and computes in i64; each step rounds or wraps once at its store, and
//! reductions accumulate wide, as the CPU backend does. The ops
//! whose kernels are written for 32- and 64-bit types only (scans,
//! segmented reductions, matrix products, concatenation, gathers along an
//! axis) run here instead, node by node on the CPU reference kernels, with
//! their inputs read from the device and each result put back there.

use super::CudaBackend;
use super::pool::device_ptr;
use crate::backend::cpu::kernels;
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::Op;
use crate::graph::view::View;
use crate::graph::{Buffer, Node, NodeState, Storage};
use std::rc::Rc;

fn internal(message: &str) -> Diagnostic {
    Diagnostic::spanless("E0499", format!("internal: {message}"))
}

/// Whether a node of `nodes` that computes on a storage-only dtype (f16,
/// bf16 or a narrow integer: its own dtype or an input's) has no native
/// kernel for it, so that the realize runs on the host (`run_on_host`).
pub(super) fn needs_host(nodes: &[Rc<Node>]) -> bool {
    nodes.iter().any(|n| match &*n.state.borrow() {
        NodeState::Pending { op, inputs } => {
            (n.dtype.is_storage_only() || inputs.iter().any(|a| a.node.dtype.is_storage_only()))
                && matches!(
                    op,
                    Op::Scan { .. } | Op::Segment { .. } | Op::MatMul | Op::Concat { .. } | Op::Take { .. }
                )
        }
        NodeState::Ready(_) => false,
    })
}

impl CudaBackend {
    /// Computes every pending node of `nodes` (in order: inputs first) with
    /// the CPU reference kernels and leaves each result on the device.
    pub(super) fn run_on_host(&self, nodes: &[Rc<Node>]) -> Result<(), Diagnostic> {
        for node in nodes {
            crate::interrupt::check()?;
            let (op, inputs) = match &*node.state.borrow() {
                NodeState::Pending { op, inputs } => (op.clone(), inputs.clone()),
                NodeState::Ready(_) => continue,
            };
            let hosts: Vec<HostData> = inputs
                .iter()
                .map(|a| {
                    let buffer = a.node.buffer().ok_or_else(|| internal("input not realized"))?;
                    self.whole_to_host(&buffer, a.node.dtype)
                })
                .collect::<Result<_, _>>()?;
            let args: Vec<(&HostData, &View)> = hosts.iter().zip(&inputs).map(|(d, a)| (d, &a.view)).collect();
            let out = kernels::eval(&op, node.dtype, &node.shape, &args).map_err(|d| match &node.span {
                Some(span) => d.or_span(span),
                None => d,
            })?;
            *node.state.borrow_mut() = NodeState::Ready(Buffer::device(Box::new(self.upload(&out)?)));
        }
        Ok(())
    }

    /// Every element of `buffer`, on the host.
    pub(super) fn whole_to_host(&self, buffer: &Buffer, dtype: DType) -> Result<HostData, Diagnostic> {
        if let Storage::Host(data) = &*buffer.storage() {
            return Ok(data.clone());
        }
        let (ptr, len) = device_ptr(buffer).ok_or_else(|| internal("no device buffer"))?;
        self.download(ptr, dtype, len)
    }
}
