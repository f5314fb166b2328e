//! Indexing: integers, slices (with negative indices and steps), `newaxis`
//! (also `none`/`None`) and `...` make views; integer-array indices and
//! boolean masks gather (NumPy's advanced indexing, several taken together as
//! one flat position), and assigning through them scatters, the last of
//! repeated indices winning.

use super::value::Value;
use super::{Interp, R};
use crate::check::dtype::DType;
use crate::check::shape::{index_out_of_range, resolve_slice};
use crate::diag::Diagnostic;
use crate::graph::build;
use crate::graph::data::HostData;
use crate::graph::op::Op;
use crate::graph::{self, Array};
use crate::syntax::ast::{BinOp, Expr, IndexItem, IndexKind, Span};
use rayon::prelude::*;

pub enum Indexed {
    /// Shares the buffer (and writes through).
    View(Array),
    /// A new array gathered by an integer-array index or a boolean mask.
    Gathered(Box<Gather>),
}

/// An advanced index resolved against its array: the gathered result
/// (lazy) and what a write through it needs.
pub struct Gather {
    /// The gathered values (a pending `Take`).
    pub array: Array,
    /// The indexed array after the basic items (a view of its buffer).
    viewed: Array,
    /// The first axis of `viewed` the advanced index consumes, and how many
    /// (a mask consumes its rank; an integer array one).
    axis: usize,
    merged: usize,
    positions: Positions,
    /// When `array`'s gathered axes were moved to the front (NumPy's rule for
    /// advanced indices apart), the permutation that undoes it.
    undo: Option<Vec<usize>>,
}

/// Flat positions over the consumed axes, checked and non-negative: read at
/// once for an integer index; for a mask gathered on the device, found from
/// the (flat) mask only when a write needs them.
enum Positions {
    /// The checked positions (i64, ready), read back only by a write.
    Host(Array),
    Mask(Array),
}

enum Item {
    Int(i64, Span),
    Slice(Option<i64>, Option<i64>, Option<i64>, Span),
    Gather(Array, Span),
    Mask(Array, Span),
    NewAxis,
    Ellipsis,
}

impl Interp {
    /// An index expression made only of integer literals, host i64 scalars
    /// (loop counters, sizes) and `+ - *`, computed without building arrays:
    /// `a[k+1:, k]` in a loop otherwise made and dropped six scalar arrays a
    /// statement. The arithmetic is the kernels' (wrapping i64); anything
    /// else is `None` and takes the general path.
    fn host_int_expr(&self, e: &Expr) -> Option<i64> {
        use crate::syntax::ast::{ExprKind, UnOp};
        match &e.kind {
            ExprKind::Int(v) => Some(*v),
            ExprKind::Name(n) => match self.lookup(n)? {
                Value::Array(a) if a.dtype() == DType::I64 && a.rank() == 0 => {
                    let graph::NodeState::Ready(buffer) = &*a.node.state.borrow() else {
                        return None;
                    };
                    match &*buffer.storage() {
                        graph::Storage::Host(HostData::I64(v)) => v.get(a.view.offset).copied(),
                        _ => None,
                    }
                }
                _ => None,
            },
            ExprKind::Unary(UnOp::Neg, x) => Some(self.host_int_expr(x)?.wrapping_neg()),
            ExprKind::Binary(op, l, r) => {
                let (x, y) = (self.host_int_expr(l)?, self.host_int_expr(r)?);
                match op {
                    BinOp::Add => Some(x.wrapping_add(y)),
                    BinOp::Sub => Some(x.wrapping_sub(y)),
                    BinOp::Mul => Some(x.wrapping_mul(y)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A slice's start, stop and step, each a constant integer or absent (`None` too).
    fn slice_bounds(
        &mut self,
        start: &Option<Expr>,
        stop: &Option<Expr>,
        step: &Option<Expr>,
    ) -> R<(Option<i64>, Option<i64>, Option<i64>)> {
        let mut bound = |e: &Option<Expr>, what: &str| match e {
            Some(e) => self.index_int(e, what),
            None => Ok(None),
        };
        Ok((
            bound(start, "a slice bound")?,
            bound(stop, "a slice bound")?,
            bound(step, "a slice step")?,
        ))
    }

    fn index_int(&mut self, e: &Expr, what: &str) -> R<Option<i64>> {
        if let Some(x) = self.host_int_expr(e) {
            return Ok(Some(x));
        }
        let v = self.eval(e)?;
        if matches!(v, Value::None) {
            return Ok(None);
        }
        self.static_int_named(&v, &e.span, what).map(Some)
    }

    pub(super) fn index(&mut self, a: &Array, items: &[IndexItem], span: &Span) -> R<Indexed> {
        let mut parsed = Vec::with_capacity(items.len());
        for item in items {
            if let IndexKind::Expr(e) = &item.kind
                && let Some(i) = self.host_int_expr(e)
            {
                parsed.push(Item::Int(i, item.span.clone()));
                continue;
            }
            let one = match &item.kind {
                IndexKind::NewAxis => Item::NewAxis,
                IndexKind::Ellipsis => Item::Ellipsis,
                IndexKind::Slice { start, stop, step } => {
                    let (s, t, p) = self.slice_bounds(start, stop, step)?;
                    Item::Slice(s, t, p, item.span.clone())
                }
                IndexKind::Expr(e) if matches!(&e.kind, crate::syntax::ast::ExprKind::Name(n) if n == "None" && self.lookup(n).is_none()) => {
                    Item::NewAxis
                }
                // `a[[]]`: the empty list selects nothing, as NumPy's empty index list
                IndexKind::Expr(e) if matches!(&e.kind, crate::syntax::ast::ExprKind::ArrayLit(items) if items.is_empty()) => {
                    Item::Gather(Array::from_host(HostData::I64(Vec::new()), &[0]), item.span.clone())
                }
                IndexKind::Expr(e) => match self.eval(e)? {
                    // `a[nonzero(m)]`, `a[triu_indices(n, 1)]`: a tuple of index arrays indexes one axis each
                    Value::Tuple(parts) if parts.iter().all(|p| matches!(p, Value::Array(_))) => {
                        for part in parts {
                            parsed.push(self.index_item(part, e, &item.span)?);
                        }
                        continue;
                    }
                    v => self.index_item(v, e, &item.span)?,
                },
            };
            parsed.push(one);
        }
        // NumPy counts integers beside an array index as advanced indices too;
        // when the advanced items are not adjacent (a slice, `newaxis` or `...`
        // between them), the gathered axes come first in the result.
        let advanced = |i: &Item| matches!(i, Item::Int(..) | Item::Gather(..) | Item::Mask(..));
        let apart = parsed.iter().any(|i| matches!(i, Item::Gather(..) | Item::Mask(..)))
            && match (parsed.iter().position(advanced), parsed.iter().rposition(advanced)) {
                (Some(first), Some(last)) => !parsed[first..=last].iter().all(advanced),
                _ => false,
            };
        let consuming: usize = parsed
            .iter()
            .map(|i| match i {
                Item::Int(..) | Item::Slice(..) | Item::Gather(..) => 1,
                Item::Mask(m, _) => m.rank(),
                _ => 0,
            })
            .sum();
        let ellipses = parsed.iter().filter(|i| matches!(i, Item::Ellipsis)).count();
        if ellipses > 1 {
            return Err(Diagnostic::new(
                "E0205",
                "an index can contain only one `...`",
                span.clone(),
            ));
        }
        if consuming > a.rank() {
            return Err(Diagnostic::new(
                "E0205",
                format!("too many indices: {consuming} for an array of rank {}", a.rank()),
                span.clone(),
            )
            .with_hint(format!("the array's shape is {:?}", a.shape())));
        }
        let fill = a.rank() - consuming;
        let mut expanded = Vec::with_capacity(parsed.len() + fill);
        let mut filled = false;
        for item in parsed {
            if matches!(item, Item::Ellipsis) {
                expanded.extend((0..fill).map(|_| Item::Slice(None, None, None, span.clone())));
                filled = true;
            } else {
                expanded.push(item);
            }
        }
        if !filled {
            expanded.extend((0..fill).map(|_| Item::Slice(None, None, None, span.clone())));
        }
        let mut view = a.view.clone();
        let mut axis = 0;
        let mut gathers: Vec<(usize, Array, Span, bool)> = Vec::new();
        for item in expanded {
            match item {
                Item::Int(i, s) => {
                    let n = view.shape[axis] as i64;
                    let j = wrap_index(i, n).ok_or_else(|| index_out_of_range(i, n, &s))?;
                    view = view.select_axis(axis, j as usize);
                }
                Item::Slice(start, stop, step, s) => {
                    let step = step.unwrap_or(1);
                    if step == 0 {
                        return Err(Diagnostic::new("E0209", "a slice step cannot be zero", s));
                    }
                    let (first, len) = resolve_slice(view.shape[axis], start, stop, step);
                    view = view.slice_axis(axis, first, len, step as isize);
                    axis += 1;
                }
                Item::NewAxis => {
                    view = view.insert_axis(axis);
                    axis += 1;
                }
                Item::Gather(x, s) | Item::Mask(x, s) => {
                    let mask = x.dtype() == DType::Bool;
                    let r = if mask { x.rank() } else { 1 };
                    if mask && view.shape[axis..axis + r] != *x.shape() {
                        return Err(Diagnostic::new(
                            "E0212",
                            format!(
                                "a boolean mask of shape {:?} does not match the indexed axes, of shape {:?}",
                                x.shape(),
                                &view.shape[axis..axis + r]
                            ),
                            s,
                        )
                        .with_hint("a mask has the shape of the array or of its leading axes"));
                    }
                    gathers.push((axis, x, s, mask));
                    axis += r;
                }
                Item::Ellipsis => {}
            }
        }
        let viewed = a.with_view(view);
        if gathers.len() > 1 {
            return self.gather_jointly(viewed, gathers, apart, span);
        }
        let Some((axis, idx, s, mask)) = gathers.pop() else {
            return Ok(Indexed::View(viewed));
        };
        let merged = if mask { idx.rank() } else { 1 };
        let source = merge_axes(&viewed, axis, merged, span);
        let dt = viewed.dtype();
        let take = |source: Array, pos: Array| {
            let mut out_shape = source.shape()[..axis].to_vec();
            out_shape.extend(pos.shape());
            out_shape.extend(&source.shape()[axis + 1..]);
            Array::pending(Op::Take { axis }, vec![source, pos], dt, &out_shape, Some(span.clone()))
        };
        if mask {
            // on a device: the selection (a whole-array mask) or the positions, never read back
            let flat_mask = build::reshape(&idx, &[idx.size()], &s);
            let device = if source.rank() == 1 {
                self.backend.compress(Some(&source), &flat_mask)
            } else {
                self.backend
                    .compress(None, &flat_mask)
                    .map(|pos| pos.map(|pos| take(source.clone(), pos)))
            };
            if let Some(array) = device {
                let (array, undo) = gathered_first(array.map_err(|d| d.or_span(&s))?, apart, axis, 1);
                return Ok(Indexed::Gathered(Box::new(Gather {
                    array,
                    viewed,
                    axis,
                    merged,
                    positions: Positions::Mask(flat_mask),
                    undo,
                })));
            }
        }
        let host = graph::to_host(&*self.backend, &idx).map_err(|d| d.or_span(&s))?;
        let (positions, idx_shape) = if mask {
            let HostData::Bool(m) = &host else {
                return Err(Diagnostic::new("E0499", "internal: a mask is not bool", s));
            };
            let p = crate::backend::cpu::kernels::sort::true_positions(m);
            let n = p.len();
            (p, vec![n])
        } else {
            (wrapped_positions(host, viewed.shape()[axis], &s)?, idx.shape().to_vec())
        };
        let pos = Array::from_buffer(self.backend.adopt(HostData::I64(positions))?, DType::I64, &idx_shape);
        let (array, undo) = gathered_first(take(source, pos.clone()), apart, axis, idx_shape.len());
        Ok(Indexed::Gathered(Box::new(Gather {
            array,
            viewed,
            axis,
            merged,
            positions: Positions::Host(pos),
            undo,
        })))
    }

    /// One index item's value: `None` a new axis, a bool array a mask, a 0-d
    /// integer an integer, an integer array a gather.
    fn index_item(&self, v: Value, e: &Expr, span: &Span) -> R<Item> {
        Ok(match &v {
            Value::None => Item::NewAxis,
            Value::Array(x) if x.dtype() == DType::Bool => Item::Mask(x.clone(), span.clone()),
            Value::Array(x) if x.rank() == 0 => {
                Item::Int(self.static_int_named(&v, &e.span, "an index")?, span.clone())
            }
            Value::Array(x) if x.dtype().is_int() => Item::Gather(x.clone(), span.clone()),
            Value::Array(x) => {
                return Err(
                    Diagnostic::new("E0300", format!("arrays of {} cannot index", x.dtype()), e.span.clone())
                        .with_hint("index with integers, or with a boolean mask (`a[a > 0]`)"),
                );
            }
            other => {
                return Err(Diagnostic::new(
                    "E0303",
                    format!("an index must be an integer or a slice, found {}", other.kind_name()),
                    e.span.clone(),
                ));
            }
        })
    }

    /// `a[i, j]` with several index arrays or masks (NumPy's advanced items
    /// taken together): their positions broadcast to one shape and become one
    /// flat position over all the axes they index, so a single gather (and a
    /// single scatter, for a write) serves them. When they stand apart, those
    /// axes are moved to the front first, which is where NumPy puts the result's.
    fn gather_jointly(
        &mut self,
        viewed: Array,
        gathers: Vec<(usize, Array, Span, bool)>,
        apart: bool,
        span: &Span,
    ) -> R<Indexed> {
        // per item: its flat positions over the axes it indexes, their shape, and those axes' extent
        let mut parts = Vec::with_capacity(gathers.len());
        let mut shapes = Vec::with_capacity(gathers.len());
        let mut consumed = Vec::new();
        for (axis, idx, s, mask) in &gathers {
            let rank = if *mask { idx.rank() } else { 1 };
            let extent: usize = viewed.shape()[*axis..*axis + rank].iter().product();
            consumed.extend(*axis..*axis + rank);
            let host = graph::to_host(&*self.backend, idx).map_err(|d| d.or_span(s))?;
            let (positions, shape) = match host {
                HostData::Bool(m) => {
                    let p = crate::backend::cpu::kernels::sort::true_positions(&m);
                    let n = p.len();
                    (p, vec![n])
                }
                other => (wrapped_positions(other, extent, s)?, idx.shape().to_vec()),
            };
            shapes.push((
                Some(if *mask { DType::I64 } else { idx.dtype() }),
                shape.iter().map(|&d| Some(d)).collect(),
                s.clone(),
            ));
            parts.push((positions, shape, extent));
        }
        let whole = gathers[0].2.start..gathers[gathers.len() - 1].2.end;
        let shape: Vec<usize> = crate::check::npsort::index_arrays_broadcast(&shapes, &whole)?
            .into_iter()
            .map(|d| d.unwrap_or(0))
            .collect();
        let count: usize = shape.iter().product();
        // row-major place value of each item's axes among all the consumed ones
        let mut place = 1i64;
        let mut flat: Option<Vec<i64>> = None;
        for (positions, part_shape, extent) in parts.into_iter().rev() {
            let full = part_shape == shape;
            if full && flat.is_none() && place == 1 {
                // the last item's positions are the flat ones' units: taken as they are
                flat = Some(positions);
                place *= extent as i64;
                continue;
            }
            let flat = match &mut flat {
                Some(f) => f,
                None => {
                    let mut f = crate::backend::memory::try_vec(count, "indices", Some(span))?;
                    f.resize(count, 0i64);
                    flat.insert(f)
                }
            };
            if full {
                // no broadcasting: element for element, a loop that vectorises
                for (f, &p) in flat.iter_mut().zip(&positions) {
                    *f += p * place;
                }
                place *= extent as i64;
                continue;
            }
            let rank = shape.len();
            let mut strides = vec![0usize; rank];
            let mut stride = 1;
            for (k, &d) in part_shape.iter().enumerate().rev() {
                if d != 1 {
                    strides[rank - part_shape.len() + k] = stride;
                }
                stride *= d;
            }
            let mut at = vec![0usize; rank];
            let mut offset = 0usize;
            for f in flat.iter_mut() {
                *f += positions[offset] * place;
                for ax in (0..rank).rev() {
                    at[ax] += 1;
                    offset += strides[ax];
                    if at[ax] < shape[ax] {
                        break;
                    }
                    offset -= strides[ax] * at[ax];
                    at[ax] = 0;
                }
            }
            place *= extent as i64;
        }
        let flat = match flat {
            Some(f) => f,
            None => {
                return Err(Diagnostic::new(
                    "E0499",
                    "internal: a joint gather of no index arrays",
                    span.clone(),
                ));
            }
        };
        let (viewed, axis) = if apart {
            let rest = (0..viewed.rank()).filter(|a| !consumed.contains(a));
            let perm: Vec<usize> = consumed.iter().copied().chain(rest).collect();
            (viewed.with_view(viewed.view.permute(&perm)), 0)
        } else {
            (viewed, consumed[0])
        };
        let merged = consumed.len();
        let source = merge_axes(&viewed, axis, merged, span);
        let pos = Array::from_buffer(self.backend.adopt(HostData::I64(flat))?, DType::I64, &shape);
        let mut out_shape = source.shape()[..axis].to_vec();
        out_shape.extend(&shape);
        out_shape.extend(&source.shape()[axis + 1..]);
        let array = Array::pending(
            Op::Take { axis },
            vec![source, pos.clone()],
            viewed.dtype(),
            &out_shape,
            Some(span.clone()),
        );
        Ok(Indexed::Gathered(Box::new(Gather {
            array,
            viewed,
            axis,
            merged,
            positions: Positions::Host(pos),
            undo: None,
        })))
    }

    /// `t[i]` of a tuple (`nonzero(x)[0]`, `shape(x)[1]`): one constant
    /// integer, negative counting from the end; or `t[a:b:c]`, a tuple, by
    /// Python's slice rules (`shape(x)[1:]`).
    pub(super) fn index_tuple(&mut self, items: Vec<Value>, index: &[IndexItem], span: &Span) -> R<Value> {
        if let [
            IndexItem {
                kind: IndexKind::Slice { start, stop, step },
                span: item_span,
            },
        ] = index
        {
            let (start, stop, step) = self.slice_bounds(start, stop, step)?;
            let step = step.unwrap_or(1);
            if step == 0 {
                return Err(Diagnostic::new(
                    "E0209",
                    "a slice step cannot be zero",
                    item_span.clone(),
                ));
            }
            let (first, len) = resolve_slice(items.len(), start, stop, step);
            let picked = (0..len as i64).map(|k| (first as i64 + k * step) as usize);
            return Ok(Value::Tuple(picked.map(|k| items[k].clone()).collect()));
        }
        let [
            IndexItem {
                kind: IndexKind::Expr(e),
                span: item_span,
            },
        ] = index
        else {
            return Err(Diagnostic::new(
                "E0303",
                "a tuple takes one integer index or one slice",
                span.clone(),
            ));
        };
        let v = self.eval(e)?;
        let i = self.static_int_named(&v, item_span, "a tuple index")?;
        let n = items.len() as i64;
        let Some(j) = wrap_index(i, n) else {
            return Err(Diagnostic::new(
                "E0204",
                format!("index {i} is out of range for a tuple of {n}"),
                item_span.clone(),
            ));
        };
        Ok(items.into_iter().nth(j as usize).unwrap_or(Value::Unit))
    }

    /// `a[idx] = v` (or `a[idx] op= v`) through an integer-array or mask
    /// index: `v` broadcasts to the gathered shape; repeated indices keep the
    /// last value, as NumPy. The indexed part is read to the host, updated
    /// and written back through its view (on a GPU, a round trip).
    pub(super) fn assign_gathered(
        &mut self,
        g: Gather,
        op: Option<BinOp>,
        value: &Expr,
        target_span: &Span,
        span: &Span,
    ) -> R<()> {
        let dst = &g.viewed;
        super::writable(dst, target_span)?;
        let rhs = self.eval(value)?;
        let rhs = self.expect_array(rhs, &value.span)?;
        let src = match op {
            None => rhs,
            Some(op) => build::binary(op, &g.array, &rhs, (Some(target_span), Some(&value.span)), span)?,
        };
        let target_shape = g.array.shape().to_vec();
        // NumPy drops leading size-1 axes of a value with more axes than the selection
        let extra = src.rank().saturating_sub(target_shape.len());
        let src = if extra > 0 && src.shape()[..extra].iter().all(|&d| d == 1) {
            let kept = src.shape()[extra..].to_vec();
            build::reshape(&src, &kept, span)
        } else {
            src
        };
        let fits = src.rank() <= target_shape.len()
            && src
                .shape()
                .iter()
                .rev()
                .zip(target_shape.iter().rev())
                .all(|(&s, &t)| s == t || s == 1);
        if !fits {
            return Err(Diagnostic::new(
                "E0208",
                format!(
                    "cannot assign an array of shape {:?} to a selection of shape {:?}",
                    src.shape(),
                    target_shape
                ),
                span.clone(),
            )
            .with_label(value.span.clone(), format!("this has shape {:?}", src.shape()))
            .with_hint("the value must have the selection's shape or broadcast to it"));
        }
        let src = build::broadcast_view(&build::convert(&src, dst.dtype(), Some(&value.span))?, &target_shape);
        let src = match &g.undo {
            Some(undo) => src.with_view(src.view.permute(undo)),
            None => src,
        };
        // Every pending computation must read the old contents before we overwrite them.
        self.realize_all()?;
        let positions = match g.positions {
            Positions::Host(p) => match graph::to_host(&*self.backend, &p).map_err(|d| d.or_span(span))? {
                HostData::I64(p) => Scattered::At(p),
                _ => {
                    return Err(Diagnostic::new(
                        "E0499",
                        "internal: positions are not i64",
                        span.clone(),
                    ));
                }
            },
            Positions::Mask(m) => match graph::to_host(&*self.backend, &m).map_err(|d| d.or_span(span))? {
                HostData::Bool(b) => Scattered::Mask(b),
                _ => return Err(Diagnostic::new("E0499", "internal: a mask is not bool", span.clone())),
            },
        };
        let values = graph::to_host(&*self.backend, &src).map_err(|d| d.or_span(span))?;
        let shape = dst.shape();
        let outer: usize = shape[..g.axis].iter().product();
        let n: usize = shape[g.axis..g.axis + g.merged].iter().product();
        let inner: usize = shape[g.axis + g.merged..].iter().product();
        let lines = (outer, n, inner);
        let buffer = dst
            .node
            .buffer()
            .ok_or_else(|| Diagnostic::new("E0499", "internal: target not realized", span.clone()))?;
        // the whole of a host buffer: scattered where it lies, not copied out and back
        if dst.view.is_identity_of(&dst.node.shape) {
            let mut storage = buffer.storage_mut();
            if let graph::Storage::Host(current) = &mut *storage
                && current.len() == dst.size()
            {
                scatter(current, lines, &positions, &values, span)?;
                drop(storage);
                graph::count_write(&buffer);
                return Ok(());
            }
        }
        let mut current = graph::to_host(&*self.backend, dst).map_err(|d| d.or_span(span))?;
        scatter(&mut current, lines, &positions, &values, span)?;
        let updated = Array::from_buffer(self.backend.adopt(current)?, dst.dtype(), shape);
        graph::write(&*self.backend, &buffer, &dst.view, &updated).map_err(|d| d.or_span(span))
    }
}

/// Where an assignment through an index array or a mask writes along the
/// gathered axes: at positions, or where a mask is true.
enum Scattered {
    At(Vec<i64>),
    Mask(Vec<bool>),
}

/// Writes `values` (shape `(outer, selected, inner)`) into `current` (shape
/// `lines = (outer, n, inner)`, one dtype with `values`) at the selected
/// places along the middle axis.
fn scatter(
    current: &mut HostData,
    lines: (usize, usize, usize),
    at: &Scattered,
    values: &HostData,
    span: &Span,
) -> R<()> {
    fn typed<T: Copy>(dst: &mut [T], lines: (usize, usize, usize), at: &Scattered, values: &[T]) {
        match at {
            // one element a place along a flat mask: a walk of the mask, no positions made
            Scattered::Mask(mask) if lines.0 == 1 && lines.2 == 1 && mask.len() == dst.len() => {
                let mut next = values.iter();
                for (d, _) in dst.iter_mut().zip(mask).filter(|(_, m)| **m) {
                    if let Some(&v) = next.next() {
                        *d = v;
                    }
                }
            }
            Scattered::Mask(mask) => {
                let positions = crate::backend::cpu::kernels::sort::true_positions(mask);
                crate::backend::cpu::kernels::sort::scatter_rows(dst, lines, &positions, values)
            }
            Scattered::At(positions) => crate::backend::cpu::kernels::sort::scatter_rows(dst, lines, positions, values),
        }
    }
    crate::with_same_data!(current, values, d, v => typed(d, lines, at, v), else {
        return Err(Diagnostic::new(
            "E0499",
            "internal: assigned dtypes differ",
            span.clone(),
        ));
    });
    Ok(())
}

/// `gathered` (its `count` gathered axes at `axis`) with those axes first
/// when the advanced indices were `apart`, and the permutation back.
fn gathered_first(gathered: Array, apart: bool, axis: usize, count: usize) -> (Array, Option<Vec<usize>>) {
    if !apart || axis == 0 {
        return (gathered, None);
    }
    let rank = gathered.rank();
    let perm: Vec<usize> = (axis..axis + count).chain(0..axis).chain(axis + count..rank).collect();
    let mut undo = vec![0; rank];
    for (k, &p) in perm.iter().enumerate() {
        undo[p] = k;
    }
    (gathered.with_view(gathered.view.permute(&perm)), Some(undo))
}

/// `a` with axes `axis..axis + count` merged into one (a new size-1 axis when
/// `count` is 0, as a 0-d mask indexes).
fn merge_axes(a: &Array, axis: usize, count: usize, span: &Span) -> Array {
    if count == 0 {
        return a.with_view(a.view.insert_axis(axis));
    }
    if count == 1 {
        return a.clone();
    }
    let shape = a.shape();
    let mut target = shape[..axis].to_vec();
    target.push(shape[axis..axis + count].iter().product());
    target.extend(&shape[axis + count..]);
    build::reshape(a, &target, span)
}

/// An integer index array read to the host as positions along an axis of
/// `n`, wrapped and checked (E0204 at `span` for one outside it).
fn wrapped_positions(host: HostData, n: usize, span: &Span) -> R<Vec<i64>> {
    let positions = match host {
        // the copy read back is wrapped in place
        HostData::I64(v) => v,
        HostData::I32(v) => {
            let mut positions = crate::backend::memory::try_vec(v.len(), "indices", Some(span))?;
            positions.extend(v.iter().map(|&i| i as i64));
            positions
        }
        other => {
            let mut positions = crate::backend::memory::try_vec(other.len(), "indices", Some(span))?;
            positions.extend((0..other.len()).map(|k| other.get_i64(k)));
            positions
        }
    };
    let n = n as i64;
    wrap_indices(positions, n).map_err(|i| index_out_of_range(i, n, span))
}

/// Index `i` of an axis of `n`, negative ones counted from the end; `None` outside it.
fn wrap_index(i: i64, n: i64) -> Option<i64> {
    let j = if i < 0 { i + n } else { i };
    (0..n).contains(&j).then_some(j)
}

/// The indices of an axis of `n`, each wrapped as `wrap_index` does, or the
/// first index outside the axis. Both passes are one compare or add an
/// element with no early exit, so they vectorise (and go over the pool's
/// threads for many indices): a gather of a million elements spent a sixth
/// of its time wrapping them one by one into a fresh vector.
fn wrap_indices(mut indices: Vec<i64>, n: i64) -> Result<Vec<i64>, i64> {
    // -n <= i < n, as one unsigned compare (n is far below 2^62)
    let span = (2 * n) as u64;
    let outside = |c: &[i64]| c.iter().fold(false, |bad, &i| bad | (i.wrapping_add(n) as u64 >= span));
    let wrap = |c: &mut [i64]| c.iter_mut().for_each(|i| *i += n & (*i >> 63));
    let parallel = indices.len() >= crate::backend::cpu::kernels::PAR_THRESHOLD;
    let bad = if parallel {
        indices.par_chunks(WRAP_CHUNK).any(outside)
    } else {
        outside(&indices)
    };
    if bad {
        return Err(indices
            .iter()
            .copied()
            .find(|&i| wrap_index(i, n).is_none())
            .unwrap_or(n));
    }
    if parallel {
        indices.par_chunks_mut(WRAP_CHUNK).for_each(wrap);
    } else {
        wrap(&mut indices);
    }
    Ok(indices)
}

/// Indices a task of `wrap_indices` takes.
const WRAP_CHUNK: usize = 1 << 16;

#[cfg(test)]
mod tests {
    use super::{resolve_slice, wrap_index, wrap_indices};

    /// Indices wrap as `wrap_index` wraps each one, and the first index
    /// outside the axis is the one reported, below and above the parallel
    /// threshold.
    #[test]
    fn indices_wrap_as_one_by_one() {
        assert_eq!(wrap_indices(vec![-3, 0, 2, -1], 3), Ok(vec![0, 0, 2, 2]));
        assert_eq!(wrap_indices(vec![1, 3, -4], 3), Err(3));
        assert_eq!(wrap_indices(vec![0, -4, 3], 3), Err(-4));
        assert_eq!(wrap_indices(vec![i64::MIN], 3), Err(i64::MIN));
        assert_eq!(wrap_indices(vec![i64::MAX], 3), Err(i64::MAX));
        assert_eq!(wrap_indices(vec![], 0), Ok(vec![]));
        assert_eq!(wrap_indices(vec![0], 0), Err(0));
        for len in [7, 100_000] {
            let n = 1000;
            let idx: Vec<i64> = (0..len as i64).map(|k| (k * 7919) % (2 * n) - n).collect();
            let expect: Vec<i64> = idx.iter().map(|&i| wrap_index(i, n).unwrap()).collect();
            assert_eq!(wrap_indices(idx.clone(), n), Ok(expect));
            let mut bad = idx;
            bad[len - 2] = n;
            bad[len - 1] = -n - 1;
            assert_eq!(wrap_indices(bad, n), Err(n));
        }
    }

    #[test]
    fn slices_follow_python() {
        assert_eq!(resolve_slice(5, None, None, 1), (0, 5));
        assert_eq!(resolve_slice(5, Some(1), Some(-1), 1), (1, 3));
        assert_eq!(resolve_slice(5, None, None, 2), (0, 3));
        assert_eq!(resolve_slice(5, None, None, -1), (4, 5));
        assert_eq!(resolve_slice(5, Some(-2), None, -2), (3, 2));
        assert_eq!(resolve_slice(5, Some(10), Some(20), 1), (5, 0));
        assert_eq!(resolve_slice(0, None, None, -1), (0, 0));
        assert_eq!(resolve_slice(5, Some(3), Some(1), 1), (3, 0));
    }
}
