//! Indexing: integers, slices (with negative indices and steps), `newaxis`
//! and `...` make views; one integer-array index gathers.

use super::value::Value;
use super::{Interp, R};
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::Op;
use crate::graph::{self, Array};
use crate::syntax::ast::{IndexItem, IndexKind, Span};

pub enum Indexed {
    /// Shares the buffer (and writes through).
    View(Array),
    /// A new array gathered by an integer-array index.
    Gathered(Array),
}

enum Item {
    Int(i64, Span),
    Slice(Option<i64>, Option<i64>, Option<i64>, Span),
    Gather(Array, Span),
    NewAxis,
    Ellipsis,
}

/// Python's slice rules: the first index, the count and the step.
pub fn resolve_slice(n: usize, start: Option<i64>, stop: Option<i64>, step: i64) -> (usize, usize) {
    let n = n as i64;
    // A step longer than the axis takes at most one element; clamping keeps the arithmetic in range.
    let step = step.clamp(-(n + 1), n + 1);
    let clamp = |v: i64, lo: i64, hi: i64| v.max(lo).min(hi);
    let norm = |v: i64| if v < 0 { v + n } else { v };
    if step > 0 {
        let s = clamp(start.map(norm).unwrap_or(0), 0, n);
        let e = clamp(stop.map(norm).unwrap_or(n), 0, n);
        let len = if e > s { (e - s + step - 1) / step } else { 0 };
        (s as usize, len as usize)
    } else {
        let s = clamp(start.map(norm).unwrap_or(n - 1), -1, n - 1);
        let e = clamp(stop.map(norm).unwrap_or(-1), -1, n - 1);
        let len = if s > e { (s - e + (-step) - 1) / (-step) } else { 0 };
        (s.max(0) as usize, len as usize)
    }
}

impl Interp {
    fn index_int(&mut self, e: &crate::syntax::ast::Expr, what: &str) -> R<Option<i64>> {
        let v = self.eval(e)?;
        if matches!(v, Value::None) {
            return Ok(None);
        }
        self.static_int_named(&v, &e.span, what).map(Some)
    }

    pub(super) fn index(&mut self, a: &Array, items: &[IndexItem], span: &Span) -> R<Indexed> {
        let mut parsed = Vec::with_capacity(items.len());
        for item in items {
            parsed.push(match &item.kind {
                IndexKind::NewAxis => Item::NewAxis,
                IndexKind::Ellipsis => Item::Ellipsis,
                IndexKind::Slice { start, stop, step } => {
                    let s = match start { Some(e) => self.index_int(e, "a slice bound")?, None => None };
                    let t = match stop { Some(e) => self.index_int(e, "a slice bound")?, None => None };
                    let p = match step { Some(e) => self.index_int(e, "a slice step")?, None => None };
                    Item::Slice(s, t, p, item.span.clone())
                }
                IndexKind::Expr(e) => {
                    let v = self.eval(e)?;
                    match &v {
                        Value::Array(x) if x.rank() == 0 => Item::Int(self.static_int_named(&v, &e.span, "an index")?, item.span.clone()),
                        Value::Array(x) if x.dtype().is_int() => Item::Gather(x.clone(), item.span.clone()),
                        Value::Array(x) => {
                            return Err(Diagnostic::new("E0300", format!("arrays of {} cannot index", x.dtype()), e.span.clone())
                                .with_hint("index with integers; for a boolean mask use `where(mask, x, 0)` or `sum(where(mask, x, 0))`"));
                        }
                        other => return Err(Diagnostic::new("E0303", format!("an index must be an integer or a slice, found {}", other.kind_name()), e.span.clone())),
                    }
                }
            });
        }
        let consuming = parsed
            .iter()
            .filter(|i| matches!(i, Item::Int(..) | Item::Slice(..) | Item::Gather(..)))
            .count();
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
        let mut gather: Option<(usize, Array, Span)> = None;
        for item in expanded {
            match item {
                Item::Int(i, s) => {
                    let n = view.shape[axis];
                    let j = if i < 0 { i + n as i64 } else { i };
                    if j < 0 || j >= n as i64 {
                        return Err(Diagnostic::new(
                            "E0204",
                            format!("index {i} is out of range for an axis of size {n}"),
                            s,
                        )
                        .with_hint(format!(
                            "valid indices are {} to {}",
                            -(n as i64),
                            n as i64 - 1
                        )));
                    }
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
                Item::Gather(x, s) => {
                    if gather.is_some() {
                        return Err(Diagnostic::new("E0205", "only one integer-array index is supported", s));
                    }
                    gather = Some((axis, x, s));
                    axis += 1;
                }
                Item::Ellipsis => {}
            }
        }
        let viewed = a.with_view(view);
        let Some((axis, idx, s)) = gather else {
            return Ok(Indexed::View(viewed));
        };
        let n = viewed.shape()[axis] as i64;
        let host = graph::to_host(&*self.backend, &idx).map_err(|d| d.or_span(&s))?;
        let mut positions = Vec::with_capacity(host.len());
        for k in 0..host.len() {
            let i = host.get_i64(k);
            let j = if i < 0 { i + n } else { i };
            if j < 0 || j >= n {
                return Err(Diagnostic::new(
                    "E0204",
                    format!("index {i} is out of range for an axis of size {n}"),
                    s,
                ));
            }
            positions.push(j);
        }
        let idx_shape = idx.shape().to_vec();
        let positions = Array::from_buffer(self.backend.adopt(HostData::I64(positions))?, DType::I64, &idx_shape);
        let mut out_shape = viewed.shape()[..axis].to_vec();
        out_shape.extend(&idx_shape);
        out_shape.extend(&viewed.shape()[axis + 1..]);
        let dt = viewed.dtype();
        Ok(Indexed::Gathered(Array::pending(
            Op::Take { axis },
            vec![viewed, positions],
            dt,
            &out_shape,
            Some(span.clone()),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::resolve_slice;

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
