//! f16 and bf16 on the CUDA backend, for now on the host: the codegen has no
//! half-float loads and stores yet, so a realize that touches a half float
//! runs node by node on the CPU reference kernels (each op computing in f32
//! and rounding once at its store, exactly as on the CPU), reading its
//! inputs from the device and putting each result back there. Slice
//! assignment into a half-float buffer and reads of its strided views take
//! the same host path. Correct and slow; native kernels would load the
//! 16-bit patterns, compute in float and round at the store.

use super::pool::device_ptr;
use super::{CudaBackend, cuda_error};
use crate::backend::cpu::kernels;
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::view::View;
use crate::graph::{Array, Buffer, Node, NodeState, Storage};
use cudarc::driver::result as cu;
use std::rc::Rc;

fn internal(message: &str) -> Diagnostic {
    Diagnostic::spanless("E0499", format!("internal: {message}"))
}

/// Whether a node of `nodes`, or one of their inputs, holds f16 or bf16 values.
pub(super) fn touches_half(nodes: &[Rc<Node>]) -> bool {
    nodes.iter().any(|n| {
        n.dtype.is_half()
            || match &*n.state.borrow() {
                NodeState::Pending { inputs, .. } => inputs.iter().any(|a| a.node.dtype.is_half()),
                _ => false,
            }
    })
}

impl CudaBackend {
    /// Computes every pending node of `nodes` (in order: inputs first) with
    /// the CPU reference kernels and leaves each result on the device.
    pub(super) fn run_half_graph(&self, nodes: &[Rc<Node>]) -> Result<(), Diagnostic> {
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

    /// Slice assignment into a half-float buffer, on the host: the whole
    /// buffer down, the values scattered through `dst_view`, the buffer back.
    pub(super) fn write_half(&self, dst: &Buffer, dst_view: &View, src: &Array) -> Result<(), Diagnostic> {
        let src_buffer = src.node.buffer().ok_or_else(|| internal("source not realized"))?;
        let values = self.read_to_host(&src_buffer, &src.view, src.dtype())?;
        let (ptr, len) = device_ptr(dst).ok_or_else(|| internal("no device buffer"))?;
        let mut whole = self.download(ptr, src.dtype(), len)?;
        kernels::scatter(&mut whole, dst_view, &values);
        let bits: Vec<u16> = match &whole {
            HostData::F16(v) => v.iter().map(|x| x.to_bits()).collect(),
            HostData::BF16(v) => v.iter().map(|x| x.to_bits()).collect(),
            _ => return Err(internal("write_half of a dtype that is not a half float")),
        };
        // SAFETY: `ptr` is the live device buffer of `len` half floats that `bits` was read
        // from (same length); the copy ends before the call returns.
        unsafe { cu::memcpy_htod_sync(ptr, &bits) }.map_err(|e| cuda_error("copying to the GPU", e))
    }
}
