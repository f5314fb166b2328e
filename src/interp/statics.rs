//! Static arguments: shapes, axes, counts, flags and dtypes that must be
//! known while the graph is built. Reading one realizes its (small) array.

use super::value::Value;
use super::{Interp, R};
use crate::check::dtype::DType;
use crate::check::shape;
use crate::diag::Diagnostic;
use crate::graph;
use crate::syntax::ast::Span;

/// The value of a ready rank-0 integer array held on the host.
fn host_int(a: &graph::Array) -> Option<i64> {
    if a.rank() != 0 {
        return None;
    }
    let graph::NodeState::Ready(buffer) = &*a.node.state.borrow() else {
        return None;
    };
    match &*buffer.storage() {
        graph::Storage::Host(crate::graph::data::HostData::I64(v)) => v.get(a.view.offset).copied(),
        graph::Storage::Host(crate::graph::data::HostData::I32(v)) => v.get(a.view.offset).map(|&x| x as i64),
        _ => None,
    }
}

impl Interp {
    /// The elements of a small array as i64 (ints and bools only).
    fn static_ints_of(&self, v: &Value, span: &Span, what: &str) -> R<Vec<i64>> {
        match v {
            // `zeros([])`: the empty list (a float literal by default) holds no size
            Value::Array(a) if a.size() == 0 && a.rank() == 1 => Ok(Vec::new()),
            Value::Array(a) => {
                if !(a.dtype().is_int() || a.dtype() == DType::Bool) {
                    return Err(shape::not_an_integer(what, a.dtype(), span));
                }
                if a.rank() > 1 {
                    return Err(Diagnostic::new(
                        "E0305",
                        format!("{what} must be an integer or a list of integers"),
                        span.clone(),
                    ));
                }
                let host = graph::to_host(&*self.backend, a).map_err(|d| d.or_span(span))?;
                Ok((0..host.len()).map(|i| host.get_i64(i)).collect())
            }
            Value::Tuple(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    let v = self.static_ints_of(item, span, what)?;
                    match (&item, v.as_slice()) {
                        (Value::Array(a), [x]) if a.rank() == 0 => out.push(*x),
                        _ => {
                            return Err(Diagnostic::new(
                                "E0305",
                                format!("{what} must be a tuple of integers"),
                                span.clone(),
                            ));
                        }
                    }
                }
                Ok(out)
            }
            other => Err(Diagnostic::new(
                "E0305",
                format!("{what} must be an integer, found {}", other.kind_name()),
                span.clone(),
            )),
        }
    }

    pub(super) fn static_int(&self, v: &Value, span: &Span) -> R<i64> {
        self.static_int_named(v, span, "this value")
    }

    pub(super) fn static_int_named(&self, v: &Value, span: &Span, what: &str) -> R<i64> {
        // A loop counter or `k + 1` in a slice bound: its value is already on
        // the host, and reading it through the backend (a gather into a new
        // vector) cost more than the rest of the index.
        if let Value::Array(a) = v
            && let Some(x) = host_int(a)
        {
            return Ok(x);
        }
        if let Value::Array(a) = v
            && a.rank() != 0
        {
            return Err(Diagnostic::new(
                "E0305",
                format!("{what} must be one integer, found an array of shape {:?}", a.shape()),
                span.clone(),
            ));
        }
        let ints = self.static_ints_of(v, span, what)?;
        match ints.as_slice() {
            [x] if !matches!(v, Value::Tuple(_)) => Ok(*x),
            _ => Err(Diagnostic::new(
                "E0305",
                format!("{what} must be one integer"),
                span.clone(),
            )),
        }
    }

    /// A scalar number as f64 (any dtype).
    pub(super) fn static_f64(&self, v: &Value, span: &Span, what: &str) -> R<f64> {
        match v {
            Value::Array(a) if a.rank() == 0 => {
                let host = graph::to_host(&*self.backend, a).map_err(|d| d.or_span(span))?;
                Ok(host.get_f64(0))
            }
            other => Err(Diagnostic::new(
                "E0305",
                format!("{what} must be a number, found {}", describe_value(other)),
                span.clone(),
            )),
        }
    }

    /// A shape: an int, or a list/tuple of non-negative ints.
    pub(super) fn static_shape(&self, v: &Value, span: &Span) -> R<Vec<usize>> {
        let dims = self.static_ints_of(v, span, "a shape")?;
        let shape: Vec<usize> = dims
            .iter()
            .map(|&d| {
                usize::try_from(d).map_err(|_| {
                    Diagnostic::new(
                        "E0210",
                        format!("a shape cannot contain the negative size {d}"),
                        span.clone(),
                    )
                })
            })
            .collect::<R<_>>()?;
        shape::check_size(&shape, span)?;
        Ok(shape)
    }

    /// A list of possibly negative ints (reshape targets, axes).
    pub(super) fn static_int_list(&self, v: &Value, span: &Span, what: &str) -> R<Vec<i64>> {
        self.static_ints_of(v, span, what)
    }

    /// `none` or an axis or a tuple of axes.
    pub(super) fn static_axes(&self, v: Option<&(Value, Span)>) -> R<Option<Vec<i64>>> {
        match v {
            None | Some((Value::None, _)) => Ok(None),
            Some((v, span)) => self.static_int_list(v, span, "an axis").map(Some),
        }
    }

    pub(super) fn static_bool(&self, v: Option<&(Value, Span)>, default: bool) -> R<bool> {
        match v {
            None | Some((Value::None, _)) => Ok(default),
            Some((Value::Array(a), span)) if a.rank() == 0 && a.dtype() == DType::Bool => {
                let host = graph::to_host(&*self.backend, a).map_err(|d| d.or_span(span))?;
                Ok(host.get_f64(0) != 0.0)
            }
            Some((other, span)) => Err(shape::not_a_flag(&describe_value(other), span)),
        }
    }

    pub(super) fn static_dtype(&self, v: Option<&(Value, Span)>) -> R<Option<DType>> {
        match v {
            None | Some((Value::None, _)) => Ok(None),
            Some((Value::DType(d), _)) => Ok(Some(*d)),
            // a string may also be a NumPy type code, as `np.zeros(3, dtype="f8")` takes one
            Some((Value::Str(s), span)) => DType::parse(s)
                .or_else(|| DType::from_numpy_code(s))
                .map(Some)
                .ok_or_else(|| crate::check::checker::unknown_dtype_named(s, span)),
            Some((other, span)) => Err(shape::not_a_dtype(&describe_value(other), span)),
        }
    }

    pub(super) fn static_str(&self, v: &Value, span: &Span, what: &str) -> R<String> {
        match v {
            Value::Str(s) => Ok(s.clone()),
            other => Err(Diagnostic::new(
                "E0303",
                format!("{what} must be a string, found {}", describe_value(other)),
                span.clone(),
            )),
        }
    }
}

fn describe_value(v: &Value) -> String {
    match v {
        Value::Array(a) => shape::describe_found(a.dtype(), a.shape()),
        other => other.kind_name().to_string(),
    }
}
