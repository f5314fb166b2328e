//! Running `for v in array` and f-strings (`f"x = {x:.3f}"`).

use super::value::Value;
use super::{Interp, R};
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::format_spec::{Scalar, format_scalar, format_text};
use crate::graph::{self, Array, data::HostData};
use crate::syntax::ast::{FPart, Span};

impl Interp {
    /// The items `for v in x` walks: a tuple's items, or an array's along its
    /// first axis, a vector's as numbers on the host (NumPy's iteration gives
    /// scalars, copies), so that `arange(i + 1)` or `x[i]` in a loop body is
    /// host arithmetic rather than a kernel per iteration; a higher rank's as
    /// views. Also the items `enumerate` and `zip` pair.
    pub(super) fn items_of(&self, v: &Value, span: &Span) -> R<Items> {
        match v {
            Value::Tuple(t) => Ok(Items::Tuple(t.clone())),
            Value::Array(a) if a.rank() == 1 => {
                let host = graph::to_host(&*self.backend, a).map_err(|d| d.or_span(span))?;
                Ok(Items::Numbers(a.dtype(), host))
            }
            Value::Array(a) if a.rank() > 1 => Ok(Items::Rows(a.clone())),
            other => {
                let what = match other {
                    Value::Array(_) => "a scalar",
                    o => o.kind_name(),
                };
                Err(
                    Diagnostic::new("E0303", format!("cannot loop over {what}"), span.clone())
                        .with_hint("`for v in x` walks the first axis of an array of rank 1 or more"),
                )
            }
        }
    }

    /// The text of an f-string: its literal parts and each value formatted by
    /// its spec (as `print` shows it when the spec is empty).
    pub(super) fn fstring(&mut self, parts: &[FPart]) -> R<Value> {
        let mut out = String::new();
        for part in parts {
            match part {
                FPart::Text(t) => out.push_str(t),
                FPart::Value { expr, spec } => {
                    let v = self.eval(expr)?;
                    out.push_str(&self.format_value(&v, spec, &expr.span)?);
                }
            }
        }
        Ok(Value::Str(out))
    }

    fn format_value(&mut self, v: &Value, spec: &str, span: &Span) -> R<String> {
        let bad = |m: String| {
            Diagnostic::new("E0308", m, span.clone()).with_hint(
                "a spec is [[fill]align][sign][0][width][,][.precision][type], type one of d f e g % s x o b c",
            )
        };
        match v {
            Value::Array(a) if !spec.is_empty() => {
                let host = graph::to_host(&*self.backend, a).map_err(|d| d.or_span(span))?;
                let mut items = Vec::with_capacity(host.len());
                for i in 0..host.len() {
                    let one = HostData::scalar(host.dtype(), host.get_f64(i));
                    let plain = crate::format::format_array(&one, &[]);
                    // every integer dtype formats as an integer (`{x:d}` of a `u8`), as Python's int
                    let x = match &host {
                        HostData::Bool(b) => Scalar::Bool(b[i]),
                        _ if host.dtype().is_int() => Scalar::Int(host.get_i64(i)),
                        _ => Scalar::Float(host.get_f64(i)),
                    };
                    items.push(format_scalar(x, spec, &plain).map_err(bad)?);
                }
                Ok(nest(&items, a.shape()))
            }
            Value::Str(s) => format_text(s, spec).map_err(bad),
            other => {
                let text = self.display(other).map_err(|d| d.or_span(span))?;
                format_text(&text, spec).map_err(bad)
            }
        }
    }
}

/// What `for` walks (`Interp::items_of`); each item is made when it is
/// reached, so a long loop holds one at a time.
pub(super) enum Items {
    Tuple(Vec<Value>),
    /// A vector's elements, on the host, of this dtype.
    Numbers(DType, HostData),
    /// An array of rank 2 or more: views of its rows.
    Rows(Array),
}

impl Items {
    pub(super) fn len(&self) -> usize {
        match self {
            Items::Tuple(t) => t.len(),
            Items::Numbers(_, host) => host.len(),
            Items::Rows(a) => a.shape()[0],
        }
    }

    pub(super) fn get(&self, i: usize) -> Value {
        match self {
            Items::Tuple(t) => t[i].clone(),
            Items::Numbers(dtype, host) => {
                let element = match host {
                    HostData::I64(v) => HostData::I64(vec![v[i]]),
                    other => HostData::scalar(*dtype, other.get_f64(i)),
                };
                Value::Array(Array::from_host(element, &[]))
            }
            Items::Rows(a) => Value::Array(a.with_view(a.view.select_axis(0, i))),
        }
    }
}

/// Formatted elements in nested brackets by `shape` (a scalar alone).
fn nest(items: &[String], shape: &[usize]) -> String {
    if shape.is_empty() {
        return items.first().cloned().unwrap_or_default();
    }
    let n = shape[0];
    let inner: usize = shape[1..].iter().product();
    let parts: Vec<String> = (0..n)
        .map(|k| nest(&items[k * inner..(k + 1) * inner], &shape[1..]))
        .collect();
    format!("[{}]", parts.join(", "))
}
