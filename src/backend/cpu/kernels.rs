//! Reference kernels for every `Op` on host data. (Being written.)

use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::Op;
use crate::graph::view::View;

/// Computes `op` into a fresh contiguous vector of `dtype` and `shape`.
/// `inputs` are each input's data and the view through which the op reads it.
pub fn eval(op: &Op, dtype: DType, shape: &[usize], inputs: &[(&HostData, &View)]) -> Result<HostData, Diagnostic> {
    let _ = (op, dtype, shape, inputs);
    todo!()
}

/// The elements `view` sees, contiguous in row-major order.
pub fn gather(data: &HostData, view: &View) -> HostData {
    let _ = (data, view);
    todo!()
}

/// Writes `values` (contiguous, `view.size()` long, same dtype) through `view`.
pub fn scatter(data: &mut HostData, view: &View, values: &HostData) {
    let _ = (data, view, values);
    todo!()
}
