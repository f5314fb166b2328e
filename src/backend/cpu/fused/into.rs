//! Slice assignment on the fused executor. A pending source that
//! `graph::alias::direct_ok` allows runs its kernels as usual, except the
//! last: a map writes each block's values straight through the strided
//! destination view (no temporary, no second pass), even where the kernel
//! also reads the destination's buffer; any other last kernel computes into
//! a pooled temporary copied over in parallel. A source that reads the
//! region it writes (a stencil) and covers at least half of a destination
//! that is a box of its buffer runs its last map into a fresh vector, the
//! elements outside the box copied beside it, which then takes the old
//! vector's place in the buffer (`map_into_fresh`): a pass over the box
//! saved, against computing a temporary and copying it. A ready source in the
//! destination's own buffer is copied element to element when the two views
//! are disjoint, through a temporary when they overlap.

use super::{
    Buffers, Fused, RowWalk, SendPtr, bind_with, check_interrupt, collapse_pair, cpu_strategy, for_each_row_pair,
    internal, parallel_pays, run_kernel, set_extra_outputs, task_items, write_direct,
};
use crate::backend::cpu::block::{self, BLOCK, Bound, Data, Input, Lane, Program, Reg, Src, Value, iteration_strides};
use crate::backend::cpu::kernels;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::view::View;
use crate::graph::{Buffer, Node, Storage};
use crate::plan::{KernelPlan, Source, Strategy};
use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;
use std::cell::Ref;
use std::mem::MaybeUninit;
use std::rc::Rc;

impl Fused {
    /// Computes the pending graph `nodes` (inputs first; the last one the
    /// source) into `dst` through `dst_view` (the source's shape). The
    /// source node itself stays pending: its caller drops it.
    ///
    /// With `fresh` (the box `dst_view` is), a last kernel that is a map writes a new vector instead
    /// of `dst`'s (the elements outside the view copied from the old one),
    /// which then replaces `dst`'s: the source may read the region it writes
    /// (a stencil's neighbours), since the kernel reads only the old values.
    pub fn execute_into(
        &self,
        nodes: &[Rc<Node>],
        dst: &Buffer,
        dst_view: &View,
        fresh: Option<&BoxRegion>,
    ) -> Result<(), Diagnostic> {
        let root = nodes.last().ok_or_else(|| internal("an assignment of nothing"))?;
        let target = Target {
            root,
            dst,
            view: dst_view,
            fresh,
        };
        if !self.run_planned(nodes, std::slice::from_ref(root), Some(target))? {
            return Err(internal("no kernel computed the assigned value"));
        }
        Ok(())
    }
}

/// Where a slice assignment's source goes: `root`'s values into `dst`
/// through `view`, instead of a buffer of the node's own.
#[derive(Clone, Copy)]
pub(super) struct Target<'a> {
    pub root: &'a Rc<Node>,
    pub dst: &'a Buffer,
    pub view: &'a View,
    /// A map writes a fresh vector that replaces `dst`'s (`execute_into`); the box `view` is.
    pub fresh: Option<&'a BoxRegion>,
}

impl Target<'_> {
    /// Runs `kp`, the root's kernel, into the destination, and says how: a
    /// map stores its blocks through the view, any other kernel computes
    /// into a temporary copied over.
    pub(super) fn run(&self, kp: &KernelPlan, by_id: &HashMap<u64, Rc<Node>>) -> Result<&'static str, Diagnostic> {
        if is_map(kp) && kp.out_shape[..] == self.view.shape[..] {
            if let Some(region) = self.fresh {
                map_into_fresh(kp, by_id, self.dst, self.view, region)?;
                return Ok("map (into a fresh buffer)");
            }
            map_into(kp, by_id, self.dst, self.view)?;
            return Ok("map (into)");
        }
        crate::backend::cpu::check_memory(self.root)?;
        let (out, extra) = run_kernel(kp, self.root, by_id)?;
        set_extra_outputs(kp, extra, by_id)?;
        copy_into(self.dst, self.view, out, &self.root.shape)?;
        Ok(cpu_strategy(kp))
    }
}

impl Target<'_> {
    /// Copies the root's values, computed whole, into the destination.
    pub(super) fn write(&self, values: HostData) -> Result<(), Diagnostic> {
        copy_into(self.dst, self.view, values, &self.root.shape)
    }
}

fn is_map(kp: &KernelPlan) -> bool {
    matches!(
        kp.strategy,
        Strategy::Map | Strategy::Broadcast | Strategy::Sliding { .. }
    ) && kp.reduce.is_none()
}

/// Copies a computed temporary (contiguous over `shape`) into the destination view.
fn copy_into(dst: &Buffer, dst_view: &View, out: HostData, shape: &[usize]) -> Result<(), Diagnostic> {
    let tmp = Buffer::host(out);
    if write_direct(dst, dst_view, &tmp, &View::contiguous(shape))? {
        return Ok(());
    }
    let values = tmp.storage();
    let Storage::Host(values) = &*values else {
        return Err(crate::backend::cpu::host_error());
    };
    match &mut *dst.storage_mut() {
        Storage::Host(data) => {
            kernels::scatter(data, dst_view, values);
            Ok(())
        }
        Storage::Device(_) => Err(crate::backend::cpu::host_error()),
    }
}

/// Runs map kernel `kp` (output `dst_view`'s shape) with each block's values
/// written through `dst_view` into `dst`.
fn map_into(kp: &KernelPlan, by_id: &HashMap<u64, Rc<Node>>, dst: &Buffer, dst_view: &View) -> Result<(), Diagnostic> {
    if dst_view.size() == 0 {
        return Ok(());
    }
    let mut guard = dst.storage_mut();
    let Storage::Host(data) = &mut *guard else {
        return Err(crate::backend::cpu::host_error());
    };
    if data.dtype() != kp.out_dtype {
        return Err(internal(format!(
            "a {} value assigned into {} data",
            kp.out_dtype,
            data.dtype()
        )));
    }
    kernels::check_reach(data.len(), &dst_view.shape, &dst_view.strides, dst_view.offset)?;
    macro_rules! go {
        ($v:expr, $V:ident) => {{
            let (ptr, len) = ($v.as_mut_ptr(), $v.len());
            // SAFETY: `ptr` and `len` describe the destination's live vector,
            // which `guard` keeps mutably borrowed (nobody else can reach it)
            // until the kernel is done. The kernel reads the buffer through
            // this shared slice and writes it through `ptr`, but only elements
            // that `alias::direct_ok` proved are never read after their write:
            // each block reads all its operands into its registers before
            // `Out::put` stores its values, and an element read and written is
            // the same one of the same block. No `&mut` to the vector exists
            // meanwhile.
            let own = Data::$V(unsafe { std::slice::from_raw_parts(ptr as *const _, len) });
            map_into_typed(kp, by_id, Some((dst, own, len)), SendPtr(ptr), dst_view, false)
        }};
    }
    match data {
        HostData::Bool(v) => go!(v, B),
        HostData::I32(v) => go!(v, I32),
        HostData::I64(v) => go!(v, I64),
        HostData::F32(v) => go!(v, F32),
        HostData::F64(v) => go!(v, F64),
        crate::storage_only_data!() => Err(internal("storage-only dtypes run on the reference kernels")),
    }
}

/// Runs the map `kp` into a new vector of `dst`'s length through
/// `dst_view`, copies `dst`'s elements outside the view beside them, and
/// puts the vector in `dst`'s place. The kernel reads `dst` as it was
/// throughout, so the source may read the region written; an error or an
/// interrupt leaves `dst` as it was.
fn map_into_fresh(
    kp: &KernelPlan,
    by_id: &HashMap<u64, Rc<Node>>,
    dst: &Buffer,
    dst_view: &View,
    region: &BoxRegion,
) -> Result<(), Diagnostic> {
    let (len, dtype) = match &*dst.storage() {
        Storage::Host(data) => (data.len(), data.dtype()),
        Storage::Device(_) => return Err(crate::backend::cpu::host_error()),
    };
    if dtype != kp.out_dtype {
        return Err(internal(format!("a {} value assigned into {dtype} data", kp.out_dtype)));
    }
    kernels::check_reach(len, &dst_view.shape, &dst_view.strides, dst_view.offset)?;
    macro_rules! go {
        ($T:ty, $V:ident) => {{
            let mut fresh: Vec<$T> = Vec::with_capacity(len);
            // the operands read `dst` through their own borrows: no `own`;
            // what the map writes outside `dst_view` is copied over below
            map_into_typed(kp, by_id, None, SendPtr(fresh.as_mut_ptr()), dst_view, true)?;
            match &*dst.storage() {
                Storage::Host(HostData::$V(old)) => region.copy_outside(old, &mut fresh.spare_capacity_mut()[..len]),
                _ => return Err(internal("a destination that changed dtype")),
            }
            // SAFETY: the map stored every position of `dst_view` (each element of
            // the box once: `map_into_typed` covers its shape), and `copy_outside`
            // every other element of the `len`.
            unsafe { fresh.set_len(len) };
            *dst.storage_mut() = Storage::Host(HostData::$V(fresh));
            Ok(())
        }};
    }
    match dtype {
        crate::check::dtype::DType::Bool => go!(bool, Bool),
        crate::check::dtype::DType::I32 => go!(i32, I32),
        crate::check::dtype::DType::I64 => go!(i64, I64),
        crate::check::dtype::DType::F32 => go!(f32, F32),
        crate::check::dtype::DType::F64 => go!(f64, F64),
        _ => Err(internal("storage-only dtypes run on the reference kernels")),
    }
}

/// A view that is a box of its row-major buffer: along each axis of the
/// buffer's own shape (`dims`, read off the view's strides) a run of
/// `len` positions from `start`. Its complement is a few contiguous runs
/// per row, which is what makes `map_into_fresh` cheap next to computing
/// into a temporary and copying it over.
pub struct BoxRegion {
    dims: Vec<usize>,
    start: Vec<usize>,
    len: Vec<usize>,
    /// Elements per step of each axis of `dims`.
    strides: Vec<usize>,
}

impl BoxRegion {
    /// The box `view` is in a buffer of `total` elements; `None` unless its
    /// axes of more than one element step forward by strides that are the
    /// row-major strides of some shape of `total` elements.
    pub fn of(view: &View, total: usize) -> Option<BoxRegion> {
        let axes: Vec<(usize, isize)> = view
            .shape
            .iter()
            .zip(&view.strides)
            .filter(|(d, _)| **d > 1)
            .map(|(&d, &s)| (d, s))
            .collect();
        let (_, last) = *axes.last()?;
        if last != 1 || axes.iter().any(|&(_, s)| s <= 0) {
            return None;
        }
        let strides: Vec<usize> = axes.iter().map(|&(_, s)| s as usize).collect();
        if strides.windows(2).any(|w| w[0] <= w[1] || !w[0].is_multiple_of(w[1])) || !total.is_multiple_of(strides[0]) {
            return None;
        }
        let mut dims = vec![total / strides[0]];
        dims.extend(strides.windows(2).map(|w| w[0] / w[1]));
        let mut rest = view.offset;
        let mut start = Vec::with_capacity(axes.len());
        for &s in &strides {
            start.push(rest / s);
            rest %= s;
        }
        let len: Vec<usize> = axes.iter().map(|&(d, _)| d).collect();
        let fits = (0..len.len()).all(|k| start[k] + len[k] <= dims[k]);
        fits.then_some(BoxRegion {
            dims,
            start,
            len,
            strides,
        })
    }

    pub fn size(&self) -> usize {
        self.len.iter().product()
    }

    /// Copies every element of `old` outside the box into `new`: along each
    /// axis the runs before and after the box are whole blocks of the axes
    /// inside it, and the rows inside the box recurse.
    fn copy_outside<T: Copy>(&self, old: &[T], new: &mut [MaybeUninit<T>]) {
        self.outside(0, 0, old, new);
    }

    fn outside<T: Copy>(&self, k: usize, base: usize, old: &[T], new: &mut [MaybeUninit<T>]) {
        let (s, st, ln) = (self.strides[k], self.start[k], self.len[k]);
        let end = base + self.dims[k] * s;
        for (lo, hi) in [(base, base + st * s), (base + (st + ln) * s, end)] {
            for (n, &o) in new[lo..hi].iter_mut().zip(&old[lo..hi]) {
                n.write(o);
            }
        }
        if k + 1 < self.dims.len() {
            for i in st..st + ln {
                self.outside(k + 1, base + i * s, old, new);
            }
        }
    }
}

/// Where a map's values go: a strided view of the destination, addressed
/// by the row-major position over its shape.
struct Out<T> {
    ptr: SendPtr<T>,
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: isize,
}

impl<T: Lane> Out<T> {
    /// The offset of element `col` of row `row` (row-major over the leading axes).
    fn offset_of(&self, row: usize, col: usize) -> isize {
        let rank = self.shape.len();
        let mut off = self.offset + col as isize * self.strides[rank - 1];
        let mut r = row;
        for ax in (0..rank - 1).rev() {
            off += (r % self.shape[ax]) as isize * self.strides[ax];
            r /= self.shape[ax];
        }
        off
    }

    /// The elements of positions `p..p + len`, which lie in one row, as a
    /// slice a kernel can store into directly; `None` where the row's
    /// elements are not adjacent.
    ///
    /// # Safety
    /// Nothing else may read or write these elements while the slice lives
    /// (the destination is a fresh vector, `map_into_fresh`, or a
    /// concatenation's parts, and blocks are disjoint), and it must not
    /// outlive the vector behind `ptr`.
    unsafe fn run<'a>(&self, p: usize, len: usize) -> Option<&'a mut [MaybeUninit<T>]> {
        let inner = self.shape[self.shape.len() - 1];
        if self.strides[self.shape.len() - 1] != 1 || p % inner + len > inner {
            return None;
        }
        let off = self.offset_of(p / inner, p % inner);
        // SAFETY: `check_reach` proved the view's elements in bounds of the
        // vector behind `ptr`; the caller guarantees nothing else uses them.
        Some(unsafe { std::slice::from_raw_parts_mut(self.ptr.0.offset(off) as *mut MaybeUninit<T>, len) })
    }

    /// The elements of the `nrows` rows from position `p` (a row's start)
    /// and those between them, as one slice: `None` unless the view's rows
    /// are contiguous and `stride` apart.
    ///
    /// # Safety
    /// As `run`, and the elements between the rows are free to overwrite.
    unsafe fn run_span<'a>(&self, p: usize, nrows: usize, stride: usize) -> Option<&'a mut [MaybeUninit<T>]> {
        let rank = self.shape.len();
        let inner = self.shape[rank - 1];
        if rank < 2
            || self.strides[rank - 1] != 1
            || self.strides[rank - 2] != stride as isize
            || !p.is_multiple_of(inner)
        {
            return None;
        }
        let off = self.offset_of(p / inner, 0);
        // SAFETY: `check_reach` proved the rows in bounds, and the span ends
        // at the last row's end; the caller guarantees the rest.
        Some(unsafe {
            std::slice::from_raw_parts_mut(
                self.ptr.0.offset(off) as *mut MaybeUninit<T>,
                (nrows - 1) * stride + inner,
            )
        })
    }

    /// Stores `len` values of `v` at row-major positions `p..p + len`.
    fn put(&self, p: usize, len: usize, v: Option<Value<'_>>) -> Result<(), Diagnostic> {
        let src = v
            .and_then(T::src)
            .ok_or_else(|| internal("a map's value of another dtype"))?;
        if let Src::Slice(s) = src
            && s.len() < len
        {
            return Err(internal("a block shorter than its length"));
        }
        let rank = self.shape.len();
        let inner = self.shape[rank - 1];
        let il = self.strides[rank - 1];
        let (mut row, mut col) = (p / inner, p % inner);
        let mut k = 0;
        while k < len {
            let run = (inner - col).min(len - k);
            let off = self.offset_of(row, col);
            let at = self.ptr.0;
            match src {
                Src::Slice(s) if il == 1 => {
                    // SAFETY: `check_reach` proved every position of the view in
                    // bounds; the view is injective, so no other block writes
                    // these elements. A value loaded unchanged from the very
                    // elements it is stored into is the same memory, which
                    // `copy_elems` allows (`alias::direct_ok` rules out any other
                    // overlap).
                    unsafe { block::copy_elems(s[k..k + run].as_ptr(), at.offset(off), run) };
                }
                Src::Slice(s) => {
                    for (i, &x) in s[k..k + run].iter().enumerate() {
                        // SAFETY: as above, one element at a time.
                        unsafe { at.offset(off + i as isize * il).write(x) };
                    }
                }
                Src::Scalar(x) => {
                    for i in 0..run as isize {
                        // SAFETY: as above.
                        unsafe { at.offset(off + i * il).write(x) };
                    }
                }
            }
            k += run;
            row += 1;
            col = 0;
        }
        Ok(())
    }
}

/// A node assembled from parts (`KernelPlan::window`): its vector, with room
/// for every element, of which the parts run so far have written
/// `written`.
pub(super) struct Assembly {
    data: HostData,
    size: usize,
    written: usize,
}

impl Assembly {
    /// Room for `size` elements of `dtype`, none written (of a
    /// storage-only dtype, the parts may only copy: `super::storage_ok`).
    pub fn new(dtype: crate::check::dtype::DType, size: usize) -> Assembly {
        Assembly {
            data: HostData::with_capacity(dtype, size),
            size,
            written: 0,
        }
    }

    /// Runs part `kp` (a map with a window) into its box of the node of
    /// `shape`; returns the node's values once every part has run.
    pub fn run_part(
        &mut self,
        kp: &KernelPlan,
        by_id: &HashMap<u64, Rc<Node>>,
    ) -> Result<Option<HostData>, Diagnostic> {
        let view = kp
            .window
            .as_ref()
            .ok_or_else(|| internal("a part without its window"))?;
        if self.data.dtype() != kp.out_dtype || view.shape[..] != kp.shape[..] {
            return Err(internal("a part that does not fit its node"));
        }
        let part = view.size();
        if part > 0 {
            let copied = copied_operand(kp, by_id)?;
            macro_rules! go {
                ($v:expr, $V:ident) => {
                    go!(
                        $v,
                        $V,
                        map_into_typed(kp, by_id, None, SendPtr($v.as_mut_ptr()), view, false)
                    )
                };
                ($v:expr, $V:ident, $map:expr) => {{
                    // The vector's length stays 0 until every part has run: the
                    // parts write its spare capacity, and nothing reads it
                    // meanwhile (no part reads the node it builds).
                    kernels::check_reach($v.capacity(), &view.shape, &view.strides, view.offset)?;
                    match &copied {
                        Some((buffer, from)) => match &*buffer.storage() {
                            Storage::Host(HostData::$V(src)) => {
                                kernels::check_reach(src.len(), &from.shape, &from.strides, from.offset)?;
                                // SAFETY: MaybeUninit<T> has T's layout; the source is only read.
                                let src: &[std::mem::MaybeUninit<_>] =
                                    unsafe { std::slice::from_raw_parts(src.as_ptr().cast(), src.len()) };
                                let dst = &mut $v.spare_capacity_mut()[..self.size];
                                // a single element collapses to no axes: one axis of one
                                let at = |v: &View| match v.strides.len() {
                                    0 => (v.offset as isize, vec![0]),
                                    _ => (v.offset as isize, v.strides.to_vec()),
                                };
                                let ((doff, ds), (soff, ss)) = (at(view), at(from));
                                let shape = if view.shape.is_empty() {
                                    vec![1]
                                } else {
                                    view.shape.to_vec()
                                };
                                super::copy_rows(dst, (doff, &ds), src, (soff, &ss), &shape);
                                Ok(())
                            }
                            _ => Err(internal("a part copied from another dtype")),
                        },
                        None => $map,
                    }
                }};
            }
            // a storage-only dtype's parts only copy (`super::storage_ok`)
            let copy_only = || Err(internal("a part of a storage-only dtype that computes"));
            match &mut self.data {
                HostData::Bool(v) => go!(v, Bool),
                HostData::I32(v) => go!(v, I32),
                HostData::I64(v) => go!(v, I64),
                HostData::F32(v) => go!(v, F32),
                HostData::F64(v) => go!(v, F64),
                HostData::U8(v) => go!(v, U8, copy_only()),
                HostData::I8(v) => go!(v, I8, copy_only()),
                HostData::I16(v) => go!(v, I16, copy_only()),
                HostData::U16(v) => go!(v, U16, copy_only()),
                HostData::U32(v) => go!(v, U32, copy_only()),
                HostData::F16(v) => go!(v, F16, copy_only()),
                HostData::BF16(v) => go!(v, BF16, copy_only()),
            }?;
        }
        self.written += part;
        if self.written < self.size {
            return Ok(None);
        }
        if self.written > self.size {
            return Err(internal("parts that overlap"));
        }
        let mut data = std::mem::replace(&mut self.data, HostData::Bool(Vec::new()));
        // SAFETY: the parts are disjoint boxes (the planner cuts them from
        // the concatenation's inputs), in bounds (checked above), and their
        // sizes add up to the node's: every element has been written once.
        unsafe { data.set_len(self.size) };
        Ok(Some(data))
    }
}

/// `own`: the destination's buffer, its values (for the operands that read
/// it) and length; `None` when no operand can read the destination.
/// The buffer and view a part only copies from (its body one load of a
/// materialised array), if that is all it does.
fn copied_operand(kp: &KernelPlan, by_id: &HashMap<u64, Rc<Node>>) -> Result<Option<(Buffer, View)>, Diagnostic> {
    let [only] = &kp.operands[..] else { return Ok(None) };
    if kp.body.len() != 1 || only.source != Source::Buffer || only.dtype != kp.out_dtype {
        return Ok(None);
    }
    let node = by_id
        .get(&only.node)
        .ok_or_else(|| internal("a part's operand is not in the graph"))?;
    let buffer = node
        .buffer()
        .ok_or_else(|| internal("a part's operand is not computed"))?;
    Ok(Some((buffer, only.view.clone())))
}

fn map_into_typed<T: Lane>(
    kp: &KernelPlan,
    by_id: &HashMap<u64, Rc<Node>>,
    own: Option<(&Buffer, Data<'_>, usize)>,
    ptr: SendPtr<T>,
    dst_view: &View,
    scratch_gaps: bool,
) -> Result<(), Diagnostic> {
    let bufs = Buffers::of(&kp.operands, by_id)?;
    let aliased: Vec<bool> = bufs
        .buffers
        .iter()
        .map(|b| {
            b.as_ref()
                .is_some_and(|b| own.as_ref().is_some_and(|(dst, _, _)| b.same(dst)))
        })
        .collect();
    // the destination is borrowed mutably already: its operands read `own`
    let guards: Vec<Option<Ref<'_, Storage>>> = bufs
        .buffers
        .iter()
        .zip(&aliased)
        .map(|(b, &a)| if a { None } else { b.as_ref().map(|b| b.storage()) })
        .collect();
    let mut inputs: Vec<Bound<'_>> = Vec::with_capacity(kp.operands.len());
    for (k, o) in kp.operands.iter().enumerate() {
        if let Some((_, own, own_len)) = own.filter(|_| aliased[k] && o.source == Source::Buffer) {
            if o.dtype != kp.out_dtype || o.view.strides.len() != kp.shape.len() {
                return Err(internal(format!("operand {} does not fit its buffer", o.label)));
            }
            let strides = iteration_strides(&o.view.strides);
            kernels::check_reach(own_len, &kp.shape, &strides, o.view.offset)?;
            inputs.push(Bound {
                input: Input::Data(own),
                dtype: o.dtype,
                strides,
                offset: o.view.offset as isize,
            });
        } else {
            let mut one = bind_with(std::slice::from_ref(o), &kp.shape, &guards[k..k + 1])?;
            inputs.push(one.pop().ok_or_else(|| internal("an operand not bound"))?);
        }
    }
    let prog = Program::new(&kp.body, inputs, None);
    let shape: &[usize] = if kp.shape.is_empty() { &[1] } else { &kp.shape };
    let n: usize = shape.iter().product();
    let out = if dst_view.shape.is_empty() {
        Out {
            ptr,
            shape: vec![1],
            strides: vec![0],
            offset: dst_view.offset as isize,
        }
    } else {
        Out {
            ptr,
            shape: dst_view.shape.to_vec(),
            strides: dst_view.strides.to_vec(),
            offset: dst_view.offset as isize,
        }
    };
    if n != out.shape.iter().product::<usize>() {
        return Err(internal("a kernel over another shape than its destination"));
    }
    // the block walk of `run_map`, each block's values stored through `out`
    let rank = shape.len();
    // a span reads the positions between its rows too: not where they may
    // be the destination's own elements, which other tasks are writing
    let walk = if aliased.iter().any(|&a| a) {
        RowWalk::new(&prog, shape, true)
    } else {
        RowWalk::for_map(&prog, shape)
    };
    let inner = walk.len;
    // Ctrl-C is honoured before the first store, never between blocks: an
    // assignment is whole or not at all, so "variables keep their values"
    check_interrupt()?;
    // without `own`, the destination is a fresh vector that no operand reads
    let exclusive = own.is_none();
    let task = |start: usize, end: usize, regs: &mut Vec<Reg>| -> Result<(), Diagnostic> {
        let mut offs = vec![0isize; prog.inputs.len()];
        let mut p = start;
        while p < end {
            let (row, col) = (p / inner, p % inner);
            if let Some(nrows) = walk.rows_at(p, end) {
                for (o, b) in offs.iter_mut().zip(&prog.inputs) {
                    *o = b.offset;
                }
                super::add_offsets(&mut offs, &prog, 0..rank - 1, shape, row);
                let len = nrows * inner;
                if let Some(stride) = walk.span {
                    let span = walk.block_len(nrows);
                    // SAFETY: the destination is a fresh vector that no operand
                    // reads, and the positions between the view's rows are free
                    // to write (`scratch_gaps`); the span's rows are this task's.
                    let direct = (exclusive && scratch_gaps)
                        .then(|| unsafe { out.run_span(p, nrows, stride) })
                        .flatten();
                    match direct {
                        Some(d) => {
                            block::eval_block(&prog, &offs, &walk.inner, span, regs, Some(T::dst(d)), &mut [])?;
                        }
                        None => {
                            let v = block::eval_block(&prog, &offs, &walk.inner, span, regs, None, &mut [])?;
                            let v = v
                                .and_then(T::src)
                                .ok_or_else(|| internal("a map's value of another dtype"))?;
                            for r in 0..nrows {
                                let row = v.segment(r * stride, inner);
                                out.put(p + r * inner, inner, Some(T::value(row)))?;
                            }
                        }
                    }
                    p += len;
                    continue;
                }
                let v = block::eval_rows(&prog, &offs, &walk.rows, &walk.inner, inner, nrows, regs, None, &mut [])?;
                out.put(p, len, v)?;
                p += len;
                continue;
            }
            let len = BLOCK.min(inner - col).min(end - p);
            for (o, b) in offs.iter_mut().zip(&prog.inputs) {
                *o = b.offset + col as isize * b.strides[rank - 1];
            }
            super::add_offsets(&mut offs, &prog, 0..rank - 1, shape, row);
            // SAFETY: only a fresh destination (no `own`) is stored into directly:
            // no operand reads it, and this block's elements are this task's alone.
            match exclusive.then(|| unsafe { out.run(p, len) }).flatten() {
                // the kernel's last step writes the destination itself, not a register put there
                Some(d) => {
                    block::eval_block(&prog, &offs, &walk.inner, len, regs, Some(T::dst(d)), &mut [])?;
                }
                None => {
                    let v = block::eval_block(&prog, &offs, &walk.inner, len, regs, None, &mut [])?;
                    out.put(p, len, v)?;
                }
            }
            p += len;
        }
        Ok(())
    };
    if !parallel_pays(&prog, n) {
        let mut regs = Reg::for_steps(prog.steps);
        return task(0, n, &mut regs);
    }
    let size = task_items(n, 1, BLOCK);
    (0..n.div_ceil(size)).into_par_iter().with_max_len(1).try_for_each_init(
        || Reg::for_steps(prog.steps),
        |regs, c| task(c * size, ((c + 1) * size).min(n), regs),
    )
}

/// Slice assignment from a ready view of the destination's own buffer
/// (`H[:, 0] = H[:, 1]`): element to element in parallel when the views are
/// disjoint, else through a temporary (a parallel gather and copy). Returns
/// false where the reference path must run (another dtype, a destination
/// view that reaches an element twice).
pub fn write_within(dst: &Buffer, dst_view: &View, src_view: &View) -> Result<bool, Diagnostic> {
    if dst_view.shape != src_view.shape || !super::injective(dst_view) {
        return Ok(false);
    }
    if dst_view.size() == 0 {
        return Ok(true);
    }
    if !crate::graph::alias::disjoint(dst_view, src_view) {
        let values = match &*dst.storage() {
            Storage::Host(data) => kernels::gather(data, src_view),
            Storage::Device(_) => return Err(crate::backend::cpu::host_error()),
        };
        let tmp = Buffer::host(values);
        return write_direct(dst, dst_view, &tmp, &View::contiguous(&src_view.shape));
    }
    let mut guard = dst.storage_mut();
    let Storage::Host(data) = &mut *guard else {
        return Err(crate::backend::cpu::host_error());
    };
    kernels::check_reach(data.len(), &src_view.shape, &src_view.strides, src_view.offset)?;
    kernels::check_reach(data.len(), &dst_view.shape, &dst_view.strides, dst_view.offset)?;
    let (shape, ds, ss) = collapse_pair(&dst_view.shape, &dst_view.strides, &src_view.strides);
    let (doff, soff) = (dst_view.offset as isize, src_view.offset as isize);
    match data {
        HostData::Bool(v) => copy_disjoint(SendPtr(v.as_mut_ptr()), doff, &ds, soff, &ss, &shape),
        HostData::I32(v) => copy_disjoint(SendPtr(v.as_mut_ptr()), doff, &ds, soff, &ss, &shape),
        HostData::I64(v) => copy_disjoint(SendPtr(v.as_mut_ptr()), doff, &ds, soff, &ss, &shape),
        HostData::F32(v) => copy_disjoint(SendPtr(v.as_mut_ptr()), doff, &ds, soff, &ss, &shape),
        HostData::F64(v) => copy_disjoint(SendPtr(v.as_mut_ptr()), doff, &ds, soff, &ss, &shape),
        crate::storage_only_data!() => return Ok(false),
    }
    Ok(true)
}

/// Copies every element of one strided view of a buffer to the same
/// position of another, disjoint, injective view of it, in parallel over rows.
fn copy_disjoint<T: Copy + Send + Sync>(
    ptr: SendPtr<T>,
    doff: isize,
    ds: &[isize],
    soff: isize,
    ss: &[isize],
    shape: &[usize],
) {
    let rank = shape.len();
    let (dl, sl) = (ds[rank - 1], ss[rank - 1]);
    for_each_row_pair(shape, (doff, ds), (soff, ss), |d, s, inner| {
        let p = ptr;
        for k in 0..inner as isize {
            // SAFETY: `check_reach` proved both views in bounds; the views are
            // disjoint (no element read is ever written) and the destination
            // is injective (each element written by one row only); the vector
            // is mutably borrowed by the caller for the whole copy.
            unsafe { p.0.offset(d + k * dl).write(p.0.offset(s + k * sl).read()) };
        }
    });
}
