//! The CPU backend: executes each pending node in turn with the reference
//! kernels in `kernels`, in parallel (rayon) for large arrays. Its results
//! define what every other backend must compute.

pub mod kernels;
pub mod vmath;

use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::view::View;
use crate::graph::{Array, Backend, Buffer, Node, NodeState, Storage};
use std::rc::Rc;

#[derive(Default)]
pub struct CpuBackend;

impl CpuBackend {
    pub fn new() -> CpuBackend {
        CpuBackend
    }
}

fn host_error() -> Diagnostic {
    Diagnostic::spanless(
        "E0404",
        "the CPU backend was handed a buffer that lives on another device",
    )
}

impl Backend for CpuBackend {
    fn describe(&self) -> String {
        format!("cpu ({} threads)", rayon::current_num_threads())
    }

    fn execute(&self, nodes: &[Rc<Node>], _outputs: &[Rc<Node>]) -> Result<(), Diagnostic> {
        for node in nodes {
            let (op, inputs) = match &*node.state.borrow() {
                NodeState::Pending { op, inputs } => (op.clone(), inputs.clone()),
                NodeState::Ready(_) => continue,
            };
            crate::interrupt::check()?;
            check_memory(node)?;
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
            let out = kernels::eval(&op, node.dtype, &node.shape, &views).map_err(|d| match &node.span {
                Some(span) => d.or_span(span),
                None => d,
            })?;
            drop(guards);
            *node.state.borrow_mut() = NodeState::Ready(Buffer::host(out));
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

    fn adopt(&self, data: HostData) -> Result<Buffer, Diagnostic> {
        Ok(Buffer::host(data))
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
