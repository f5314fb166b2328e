//! Boolean-mask compaction on the fused CPU backend (`Backend::compress`):
//! the elements of a flat array where a flat mask is true (`x[mask]`), or
//! the positions of the true elements (`nonzero`, and a mask over the
//! leading axes of a larger array, which then gathers whole rows).
//!
//! Two passes over the mask: pieces of it count their true elements in
//! parallel, then each piece writes its selection at its prefix sum. Within a
//! piece a short run is written into a small buffer without a branch (every
//! element stored, the write position moving on by the mask bit) and copied
//! out, so a random mask costs no mispredicted branches. The result is the
//! same for every split. Operands that are not contiguous are gathered
//! first; the reference executor keeps the positions-and-take path.

use super::kernels::{self, Elem};
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::{self, Array, Backend, Storage};
use rayon::prelude::*;
use std::borrow::Cow;
use std::mem::MaybeUninit;

/// Mask elements a task counts and compacts.
const PIECE: usize = 1 << 16;

/// Elements a run stores into its buffer before copying out the selected ones.
const RUN: usize = 256;

/// Masks at least this long are compacted in parallel.
const PAR_MASK: usize = 1 << 17;

fn internal(message: &str) -> Diagnostic {
    Diagnostic::spanless("E0499", format!("internal: {message}"))
}

/// `x[mask]` of a flat `x` and a flat bool `mask` of one size, or with no
/// `x` the i64 positions of the true elements: realized, then compacted.
pub(super) fn compress(backend: &dyn Backend, x: Option<&Array>, mask: &Array) -> Result<Array, Diagnostic> {
    let mut wanted = vec![mask];
    wanted.extend(x);
    graph::realize(backend, &wanted)?;
    let buffer = |a: &Array| {
        a.node
            .buffer()
            .ok_or_else(|| internal("a compress operand not realized"))
    };
    let mask_buffer = buffer(mask)?;
    let mask_storage = mask_buffer.storage();
    let HostData::Bool(m) = &*flat_host(mask, &mask_storage)? else {
        return Err(internal("a mask is not bool"));
    };
    let (data, dtype) = match x {
        Some(x) => {
            if x.size() != m.len() {
                return Err(internal("a mask of another size than its array"));
            }
            let x_buffer = buffer(x)?;
            let x_storage = x_buffer.storage();
            let values = flat_host(x, &x_storage)?;
            (
                crate::with_data!(&*values, v => Elem::wrap(select(m, |i| v[i]))),
                x.dtype(),
            )
        }
        None => (HostData::I64(select(m, |i| i as i64)), DType::I64),
    };
    let len = data.len();
    Ok(Array::from_buffer(backend.adopt(data)?, dtype, &[len]))
}

/// A realized array's elements in row-major order: its buffer as it is
/// when the view is the whole buffer from its start, else a gathered copy.
fn flat_host<'a>(a: &Array, storage: &'a Storage) -> Result<Cow<'a, HostData>, Diagnostic> {
    let Storage::Host(data) = storage else {
        return Err(internal("a compress operand off the host"));
    };
    let whole = a.view.offset == 0 && a.view.is_contiguous() && data.len() == a.size();
    Ok(if whole {
        Cow::Borrowed(data)
    } else {
        Cow::Owned(kernels::gather(data, &a.view))
    })
}

/// `pick(i)` for every `i` where `m[i]`, in order.
fn select<T: Copy + Default + Send + Sync>(m: &[bool], pick: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let count = |piece: &[bool]| piece.iter().map(|&b| b as usize).sum::<usize>();
    let parallel = super::contention::parallel_pays(m.len(), PAR_MASK);
    let counts: Vec<usize> = if parallel {
        m.par_chunks(PIECE).map(count).collect()
    } else {
        m.chunks(PIECE).map(count).collect()
    };
    let total: usize = counts.iter().sum();
    let mut out: Vec<T> = Vec::with_capacity(total);
    let mut parts: Vec<(usize, &mut [MaybeUninit<T>])> = Vec::with_capacity(counts.len());
    let mut rest = &mut out.spare_capacity_mut()[..total];
    for (p, &c) in counts.iter().enumerate() {
        let (part, tail) = rest.split_at_mut(c);
        parts.push((p * PIECE, part));
        rest = tail;
    }
    let write = |(start, part): (usize, &mut [MaybeUninit<T>])| {
        let end = (start + PIECE).min(m.len());
        let mut buf = [T::default(); RUN];
        let mut w = 0;
        let mut i = start;
        while i < end {
            let n = RUN.min(end - i);
            let mut k = 0;
            for (j, &b) in m[i..i + n].iter().enumerate() {
                // k < RUN: at most j of the j earlier elements were taken
                buf[k] = pick(i + j);
                k += b as usize;
            }
            for (o, &v) in part[w..w + k].iter_mut().zip(&buf[..k]) {
                o.write(v);
            }
            w += k;
            i += n;
        }
    };
    if parallel {
        parts.into_par_iter().for_each(write);
    } else {
        parts.into_iter().for_each(write);
    }
    // SAFETY: each piece wrote exactly its count of elements into its own
    // part, and the parts tile the first `total` elements.
    unsafe { out.set_len(total) };
    out
}
