//! Launching: the realize loop over a plan's kernels, binding each kernel's
//! parameters (buffers, offsets, keys) and launching it on the default
//! stream, cuBLAS for the matmuls it takes, and the module's error flag.

// Diagnostic is the crate's one error type; boxing it here alone would buy nothing.
#![allow(clippy::result_large_err)]

use super::classes::Chosen;
use super::codegen::{self, Param, Sizes};
use super::module::Module;
use super::pool::{DeviceBuffer, device_ptr};
use super::profile::strategy_label;
use super::{CudaBackend, blas, cuda_error};
use crate::backend::cpu::kernels;
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::op::ReduceOp;
use crate::graph::{Buffer, Node, NodeState, Storage};
use crate::plan::{KernelPlan, Source, Strategy};
use cudarc::driver::result as cu;
use cudarc::driver::sys;
use rustc_hash::FxHashMap as HashMap;
use std::ffi::c_void;
use std::rc::Rc;

/// What launching a planned kernel again needs: its module and parameter list.
pub(super) struct Prepared {
    pub(super) module: Rc<Module>,
    pub(super) params: Vec<Param>,
    pub(super) part_bytes: usize,
    /// Specialised or shape-generic, for the profile.
    pub(super) kind: codegen::Kind,
}

/// What `run_kernel` gives back: the output, a multi-output kernel's other
/// outputs, and what to cache for the next launch.
type Ran = (DeviceBuffer, Vec<DeviceBuffer>, Option<Rc<Prepared>>);

impl CudaBackend {
    /// Launches `f` with the given 64-bit parameter values.
    pub(super) fn launch(
        &self,
        f: sys::CUfunction,
        grid: (u32, u32),
        block: u32,
        values: &mut [u64],
    ) -> Result<(), Diagnostic> {
        let mut ptrs: Vec<*mut c_void> = values.iter_mut().map(|v| v as *mut u64 as *mut c_void).collect();
        // SAFETY: `values` holds one 64-bit value per kernel parameter, in the order
        // the codegen declared them (pointers and integers are all 8 bytes), and
        // outlives the call, which copies them; the buffers they name are kept alive
        // by the caller until the launch is queued on the ordered default stream.
        unsafe {
            cu::launch_kernel(
                f,
                (grid.0.max(1), grid.1.max(1), 1),
                (block, 1, 1),
                0,
                std::ptr::null_mut(),
                &mut ptrs,
            )
        }
        .map_err(|e| cuda_error("launching a kernel", e))
    }

    /// Runs one planned kernel into a fresh buffer: cuBLAS for f32/f64
    /// matmuls it can take, else the generated module (`prepared`, when the
    /// plan cache has it, skips generating and hashing the source; `chosen`,
    /// when the caller generated it already, skips generating it again).
    /// Returns the output and what to cache for the next launch of this kernel.
    pub(super) fn run_kernel(
        &self,
        kp: &KernelPlan,
        nodes: &HashMap<u64, Rc<Node>>,
        prepared: Option<&Rc<Prepared>>,
        chosen: Option<Chosen>,
    ) -> Result<Ran, Diagnostic> {
        if let Some(op @ (ReduceOp::Min | ReduceOp::Max | ReduceOp::ArgMin | ReduceOp::ArgMax)) = kp.reduce
            && !matches!(kp.strategy, Strategy::Segmented { .. })
            && kp.shape[kp.kept..].iter().product::<usize>() == 0
        {
            // as the CPU backend: these reductions have no identity to return
            let name = format!("{op:?}").to_lowercase();
            return Err(Diagnostic::spanless(
                "E0402",
                format!("zero-size array to reduction operation {name}, which has no identity"),
            )
            .with_hint("the reduced axes are empty; check the array's size before reducing"));
        }
        let out = self.alloc(kp.out_dtype, kp.out_size())?;
        // a multi-output kernel's other outputs
        let extra = kp
            .extra_outputs()
            .iter()
            .map(|(_, dtype, shape)| self.alloc(*dtype, shape.iter().product()))
            .collect::<Result<Vec<_>, _>>()?;
        if kp.out_size() == 0 {
            return Ok((out, extra, None));
        }
        // keep the operand buffers borrowed (alive) until the launch is queued
        let mut keep: Vec<Buffer> = Vec::new();
        let operands: Vec<&crate::plan::Operand> = kp.operands.iter().chain(&kp.epi_operands).collect();
        let mut ptrs = Vec::with_capacity(operands.len());
        for o in &operands {
            if o.source != Source::Buffer {
                ptrs.push(0);
                continue;
            }
            let node = nodes
                .get(&o.node)
                .ok_or_else(|| Diagnostic::spanless("E0499", "internal: operand node missing"))?;
            let buffer = node
                .buffer()
                .ok_or_else(|| Diagnostic::spanless("E0499", "internal: operand not realized"))?;
            self.ensure_device(&buffer)?;
            let ptr = match &*buffer.storage() {
                Storage::Device(d) => d.as_any().downcast_ref::<DeviceBuffer>().map(|b| b.ptr),
                Storage::Host(_) => None,
            }
            .ok_or_else(|| Diagnostic::spanless("E0404", "a buffer belongs to another backend"))?;
            ptrs.push(ptr);
            keep.push(buffer);
        }
        if let Some(gemm) = blas::gemm_for(kp)
            && let Some(cublas) = self.blas()
        {
            let esz = kp.out_dtype.size_bytes() as u64;
            let a = ptrs[0] + operands[0].view.offset as u64 * esz;
            let b = ptrs[1] + operands[1].view.offset as u64 * esz;
            self.timed(
                kp,
                || "matmul(cublas)".to_string(),
                || {
                    if gemm.k == 0 {
                        // an empty sum: cuBLAS may leave C alone, so write the zeros here
                        let bytes = kp.out_size() * kp.out_dtype.size_bytes();
                        // SAFETY: `out` was allocated for `bytes` bytes above.
                        return unsafe { sys::cuMemsetD8_v2(out.ptr, 0, bytes).result() }
                            .map_err(|e| cuda_error("clearing a matrix", e));
                    }
                    cublas
                        .run(&gemm, kp.out_dtype, a, b, out.ptr)
                        .map_err(|e| cuda_error("running cuBLAS gemm", e))
                },
            )?;
            drop(keep);
            return Ok((out, extra, None));
        }
        let prep = match prepared {
            Some(p) => p.clone(),
            None => {
                let c = match chosen {
                    Some(c) => c,
                    None => self.host_timed(|h| &mut h.codegen, || self.classes.borrow_mut().kernel_chosen(kp)),
                };
                let module = self.module_hashed(&c.generated, c.hash)?;
                let g = c.generated;
                Rc::new(Prepared {
                    module,
                    params: g.params,
                    part_bytes: g.part_bytes,
                    kind: g.kind,
                })
            }
        };
        let module = &prep.module;
        let part = self.alloc(DType::Bool, prep.part_bytes)?;
        let mut aux = Vec::with_capacity(kp.aux.len());
        for o in &kp.aux {
            let buffer = nodes
                .get(&o.node)
                .and_then(|n| n.buffer())
                .ok_or_else(|| Diagnostic::spanless("E0499", "internal: index buffer not realized"))?;
            self.ensure_device(&buffer)?;
            let (ptr, _) = device_ptr(&buffer)
                .ok_or_else(|| Diagnostic::spanless("E0404", "a buffer belongs to another backend"))?;
            aux.push(ptr + (o.view.offset * o.dtype.size_bytes()) as u64);
            keep.push(buffer);
        }
        let mut values: Vec<u64> = prep
            .params
            .iter()
            .map(|p| match *p {
                Param::Out => out.ptr,
                Param::OutN(k) => extra.get(k - 1).map_or(0, |b| b.ptr),
                Param::Part => part.ptr,
                Param::Ptr(k) => ptrs[k],
                Param::Off(k) => operands[k].view.offset as u64,
                Param::Aux(k) => aux[k],
                Param::Dim(d) => kp.dim(d) as u64,
                Param::Key(k) => match operands[k].source {
                    Source::Random { key, .. } => key,
                    _ => 0,
                },
            })
            .collect();
        let label = || match prep.kind {
            codegen::Kind::Generic => format!("{} generic", strategy_label(&kp.strategy)),
            codegen::Kind::Specialised => strategy_label(&kp.strategy),
        };
        self.timed(kp, label, || {
            if let Strategy::Segmented { .. } = kp.strategy {
                for (name, grid) in codegen::segment_launches(kp) {
                    let f = match name {
                        "arr_main" => module.main,
                        "arr_finish" => module.finish.unwrap_or(module.main),
                        other => module.function(other)?,
                    };
                    self.launch(f, grid, 256, &mut values)?;
                }
            } else {
                self.launch(module.main, kp.grid, kp.block, &mut values)?;
            }
            if let Some(f) = module.finish
                && !matches!(kp.strategy, Strategy::Segmented { .. })
            {
                let grid = match kp.strategy {
                    Strategy::ReduceCols { .. } => (kp.grid.0, 1),
                    Strategy::ReduceAll { .. } | Strategy::ReduceAllMulti { .. } => (1, 1),
                    _ => kp.grid,
                };
                self.launch(f, grid, 256, &mut values)?;
            }
            Ok(())
        })?;
        if let Some(flag) = module.error_flag {
            // integer modulo or floor division by zero, a negative power: the CPU backend's errors
            let mut v = [0i32];
            // SAFETY: `flag` is the module's `int arr_error`, four bytes like `v`.
            unsafe { cu::memcpy_dtoh_sync(&mut v, flag) }.map_err(|e| cuda_error("running a kernel", e))?;
            if v[0] != 0 {
                // SAFETY: as above.
                unsafe { cu::memcpy_htod_sync(flag, &[0i32]) }.map_err(|e| cuda_error("resetting a flag", e))?;
                // the flag values of kernels/prelude.cu's arr_error
                return Err(match v[0] {
                    1 => kernels::modulo_by_zero(),
                    3 => kernels::division_by_zero(),
                    _ => kernels::negative_power(),
                });
            }
        }
        drop(part);
        drop(keep);
        Ok((out, extra, Some(prep)))
    }

    pub(super) fn run_graph(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Result<(), Diagnostic> {
        // a loop builds the same graph each iteration: plan and generate it once
        let planned = self.host_timed(
            |h| &mut h.plan,
            || {
                self.plans
                    .borrow_mut()
                    .get_or_plan(nodes, outputs, || crate::plan::plan(nodes, outputs, &self.info))
            },
        );
        let plan = &planned.plan;
        let by_id = crate::graph::nodes_by_id(nodes);
        // a fresh plan's new modules are generated once, here, and compile
        // together on host threads
        let mut fresh: Vec<Option<Chosen>> = plan
            .kernels
            .iter()
            .enumerate()
            .map(|(k, kp)| {
                let new = self.plans.borrow().payload(&planned, k).is_none()
                    && kp.out_size() > 0
                    && blas::gemm_for(kp).is_none();
                new.then(|| self.host_timed(|h| &mut h.codegen, || self.classes.borrow_mut().kernel_chosen(kp)))
            })
            .collect();
        let gens: Vec<(&codegen::Generated, u64)> = fresh.iter().flatten().map(|c| (&c.generated, c.hash)).collect();
        if gens.len() > 1 {
            self.precompile(&gens);
        }
        for (k, kp) in plan.kernels.iter().enumerate() {
            let prepared = self.plans.borrow().payload(&planned, k).cloned();
            let chosen = fresh.get_mut(k).and_then(Option::take);
            let (out, extra, prep) = self
                .run_kernel(kp, &by_id, prepared.as_ref(), chosen)
                .map_err(|d| match by_id.get(&kp.output).and_then(|n| n.span.clone()) {
                    Some(span) => d.or_span(&span),
                    None => d,
                })?;
            if prepared.is_none()
                && let Some(p) = prep
            {
                self.plans.borrow_mut().set_payload(&planned, k, p);
            }
            if let Some(node) = by_id.get(&kp.output) {
                *node.state.borrow_mut() = NodeState::Ready(Buffer::device(Box::new(out)));
            }
            for ((id, _, _), buf) in kp.extra_outputs().into_iter().zip(extra) {
                if let Some(node) = by_id.get(&id) {
                    *node.state.borrow_mut() = NodeState::Ready(Buffer::device(Box::new(buf)));
                }
            }
        }
        Ok(())
    }
}
