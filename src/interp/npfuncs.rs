//! Run-time behaviour of NumPy's sorting, searching and counting builtins
//! (`sort`, `argsort`, `unique`, `searchsorted`, `median`, `percentile`,
//! `quantile`, `bincount`, `histogram`, `nonzero`, `count_nonzero`, `take`,
//! ...). Results whose size depends on the data (`unique`, `nonzero`,
//! `bincount`) and the sorts are computed on the host by the kernels of
//! `backend::cpu::kernels::sort` from realized inputs, then handed to the
//! backend (an upload on a GPU); `take` and `count_nonzero` stay lazy graph
//! nodes.

use super::value::Value;
use super::{Interp, R};
use crate::backend::cpu::kernels::sort::{self as k, Key};
use crate::check::dtype::{DType, promote_weak};
use crate::check::{npsort, shape};
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::{BinaryOp, Op, ReduceOp, UnaryOp};
use crate::graph::{self, Array, Storage, build};
use crate::syntax::ast::{BinOp, Span};
use crate::with_data;
use std::ops::Range;
use std::time::Instant;

type Slot = Option<(Value, Span)>;

/// When a host kernel started, while the profile records (`Interp::on_host`).
struct HostTimer(Option<Instant>);

/// The builtins this module runs.
pub(super) use crate::check::npsort::NAMES;

/// `(outer, len, inner)` of `axis` in a row-major `shape`.
fn lines_of(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

fn wrap<T: Key>(v: Vec<T>) -> HostData {
    T::wrap(v)
}

/// E0212: an argument's shape that the function does not take.
pub(super) fn bad_shape(message: impl Into<String>, span: &Span) -> Diagnostic {
    Diagnostic::new("E0212", message, span.clone())
}

/// E0413: an argument's value outside what the function takes.
pub(super) fn bad_value(message: impl Into<String>, span: &Span) -> Diagnostic {
    Diagnostic::new("E0413", message, span.clone())
}

fn require_int(a: &Array, what: &str, span: &Span) -> R<()> {
    if !a.dtype().is_int() && a.dtype() != DType::Bool {
        return Err(Diagnostic::new(
            "E0300",
            format!("{what} must be integers, not {}", a.dtype()),
            span.clone(),
        )
        .with_hint(format!("cast with `{what} as i64`")));
    }
    Ok(())
}

/// E0300 unless `a` holds integers (not bools) that index something.
pub(super) fn require_index_ints(a: &Array, what: &str, span: &Span) -> R<()> {
    require_int(a, what, span)?;
    if a.dtype() == DType::Bool {
        return Err(
            Diagnostic::new("E0300", format!("{what} must be integers, not bool"), span.clone())
                .with_hint("for a boolean mask index with `a[mask]`, or use `nonzero(mask)`"),
        );
    }
    Ok(())
}

/// Per axis of `shape`, the coordinates of the flat `positions` (i64), as
/// lazy arrays: `positions // stride % size`.
fn unravel_lazy(positions: &Array, shape: &[usize], span: &Span) -> R<Vec<Value>> {
    let mut stride = 1i64;
    let mut coords = Vec::with_capacity(shape.len());
    for &size in shape.iter().rev() {
        let along = build::binary(
            BinOp::FloorDiv,
            positions,
            &build::scalar_i64(stride, true),
            (None, None),
            span,
        )?;
        let c = build::binary(
            BinOp::Rem,
            &along,
            &build::scalar_i64(size as i64, true),
            (None, None),
            span,
        )?;
        coords.push(Value::Array(c));
        stride *= size as i64;
    }
    coords.reverse();
    Ok(coords)
}

impl Interp {
    /// `sort` or `argsort` of `x` along `axis` on the backend's device: the
    /// axis moved last for the device's row sort, and back after; `None`
    /// where the backend sorts on the host.
    fn device_sort(&self, x: &Array, axis: usize, argsort: bool) -> Option<R<Array>> {
        let last = x.rank().checked_sub(1)?;
        let mut perm: Vec<usize> = (0..x.rank()).filter(|&a| a != axis).collect();
        perm.push(axis);
        let moved = if axis == last {
            x.clone()
        } else {
            x.with_view(x.view.permute(&perm))
        };
        let sorted = self.backend.sort(&moved, argsort)?;
        Some(sorted.map(|r| {
            if axis == last {
                return r;
            }
            let mut back = vec![0; perm.len()];
            for (k, &p) in perm.iter().enumerate() {
                back[p] = k;
            }
            r.with_view(r.view.permute(&back))
        }))
    }

    /// `histogram` with equal bins (`edges`, f64) of the f64 `xf` as a device
    /// bincount of each element's bin (NumPy's: the scaled offset, then one
    /// step down or up against the edges; outside values and NaN to an extra
    /// bin, dropped), nothing read back but the bincount's bounds; `None`
    /// where the backend counts on the host.
    fn device_histogram(
        &self,
        xf: &Array,
        edges: &[f64],
        weights: Option<&Array>,
        density: bool,
        span: &Span,
    ) -> Option<R<Array>> {
        let bins = edges.len().checked_sub(1).filter(|&b| b > 0)?;
        let norm = bins as f64 / (edges[bins] - edges[0]);
        if !norm.is_finite() || xf.size() == 0 {
            return None;
        }
        let index = || -> R<(Array, Array)> {
            let bin = |op: BinOp, a: &Array, b: &Array| build::binary(op, a, b, (None, None), span);
            let num = |v: f64| build::scalar(DType::F64, v, true);
            let int = |v: i64| build::scalar_i64(v, true);
            let flat_x = build::reshape(xf, &[xf.size()], span);
            let e = self.adopt_array(HostData::F64(edges.to_vec()), &[edges.len()])?;
            let at = |i: &Array| {
                Array::pending(
                    Op::Take { axis: 0 },
                    vec![e.clone(), i.clone()],
                    DType::F64,
                    i.shape(),
                    None,
                )
            };
            let inside = bin(
                BinOp::And,
                &bin(BinOp::Ge, &flat_x, &num(edges[0]))?,
                &bin(BinOp::Le, &flat_x, &num(edges[bins]))?,
            )?;
            let scaled = bin(BinOp::Mul, &bin(BinOp::Sub, &flat_x, &num(edges[0]))?, &num(norm))?;
            let scaled = build::select(&inside, &scaled, &num(0.0), [None; 3], span)?;
            let capped = build::binary_fn(
                BinaryOp::Min,
                "minimum",
                &scaled,
                &num((bins - 1) as f64),
                (None, None),
                span,
            )?;
            let i0 = build::cast(
                &build::unary(UnaryOp::Floor, "floor", &capped, None, span)?,
                DType::I64,
                None,
            );
            let below = build::cast(&bin(BinOp::Lt, &flat_x, &at(&i0))?, DType::I64, None);
            let i1 = bin(BinOp::Sub, &i0, &below)?;
            let next = bin(BinOp::Add, &i1, &int(1))?;
            let above = bin(
                BinOp::And,
                &bin(BinOp::Ge, &flat_x, &at(&next))?,
                &bin(BinOp::Ne, &i1, &int(bins as i64 - 1))?,
            )?;
            let i2 = bin(BinOp::Add, &i1, &build::cast(&above, DType::I64, None))?;
            let idx = build::select(&inside, &i2, &int(bins as i64), [None; 3], span)?;
            let w = weights.map(|w| build::reshape(w, &[w.size()], span));
            Ok((idx, w.unwrap_or_else(|| num(0.0))))
        };
        let (idx, w) = match index() {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        };
        let counted = self.backend.bincount(&idx, weights.map(|_| &w), bins + 1)?;
        Some(counted.map_err(|d| d.or_span(span)).and_then(|all| {
            let mut view = all.view.clone();
            view.shape = smallvec::smallvec![bins];
            let counts = all.with_view(view);
            if !density {
                return Ok(counts);
            }
            let c = build::cast(&counts, DType::F64, None);
            let total = build::reduce(ReduceOp::Sum, &c, None, false, span)?;
            let widths: Vec<f64> = edges.windows(2).map(|p| p[1] - p[0]).collect();
            let widths = self.adopt_array(HostData::F64(widths), &[bins])?;
            let scale = build::binary(BinOp::Mul, &total, &widths, (None, None), span)?;
            build::binary(BinOp::Div, &c, &scale, (None, None), span)
        }))
    }

    /// Realizes `a` and reads its elements (row-major) to the host.
    pub(super) fn host_of(&self, a: &Array, span: &Span) -> R<HostData> {
        graph::to_host(&*self.backend, a).map_err(|d| d.or_span(span))
    }

    /// Runs the host kernel `f` (a sort) on `x`'s elements in row-major
    /// order, `f(data, range)` seeing them as `data[range]`: `x`'s own
    /// vector where `x` is a contiguous view of a host buffer, else a
    /// gathered copy. With the timer of the kernel for the profile, started
    /// after the realize (whose kernels the profile times already) while
    /// the profile records.
    fn on_host<T>(&self, x: &Array, span: &Span, f: impl FnOnce(&HostData, Range<usize>) -> T) -> R<(T, HostTimer)> {
        graph::realize(&*self.backend, &[x]).map_err(|d| d.or_span(span))?;
        let timer = HostTimer(self.backend.profiling().then(Instant::now));
        let buffer = x
            .node
            .buffer()
            .ok_or_else(|| Diagnostic::new("E0499", "internal: a realized array has no buffer", span.clone()))?;
        {
            let storage = buffer.storage();
            let (at, n) = (x.view.offset, x.size());
            if let Storage::Host(data) = &*storage
                && data.dtype() == x.dtype()
                && x.view.is_contiguous()
                && at + n <= data.len()
            {
                return Ok((f(data, at..at + n), timer));
            }
        }
        let data = self
            .backend
            .read(&buffer, &x.view, x.dtype())
            .map_err(|d| d.or_span(span))?;
        let all = 0..data.len();
        Ok((f(&data, all), timer))
    }

    /// Records the host kernel `name` timed by `timer`, which made `out`
    /// from `input`, as a row of the profile (`sort (host) -> f32[1000]`);
    /// nothing when not profiling.
    fn host_done(&self, timer: HostTimer, name: &str, out: &Array, input: &Array) {
        if let HostTimer(Some(start)) = timer {
            let elapsed = start.elapsed();
            let dims: Vec<String> = out.shape().iter().map(|d| d.to_string()).collect();
            let label = format!("{}[{}]", out.dtype(), dims.join(", "));
            let bytes = (input.size() * input.dtype().size_bytes() + out.size() * out.dtype().size_bytes()) as u64;
            self.backend.record_host(name, &label, elapsed, bytes);
        }
    }

    /// A realized array of `shape` holding `data` on this backend.
    pub(super) fn adopt_array(&self, data: HostData, shape: &[usize]) -> R<Array> {
        let dt = data.dtype();
        Ok(Array::from_buffer(self.backend.adopt(data)?, dt, shape))
    }

    /// `unique(x, axis=axis)`: the distinct slices along `axis` in
    /// lexicographic order, and the flags' arrays, as NumPy's (the inverse
    /// one position per slice).
    fn unique_along(&mut self, x: &Array, axis: usize, flags: [bool; 3], at: &Span, span: &Span) -> R<Value> {
        let n = x.shape()[axis];
        let width = x.size().checked_div(n).unwrap_or(0);
        let mut perm: Vec<usize> = (0..x.rank()).collect();
        perm.remove(axis);
        perm.insert(0, axis);
        let moved = x.with_view(x.view.permute(&perm));
        let (u, timer) = self.on_host(
            &moved,
            at,
            |host, range| with_data!(host, v => k::unique_rows(&v[range], n, width)),
        )?;
        let u_len = u.first.len();
        let first = self.adopt_array(HostData::I64(u.first), &[u_len])?;
        let values = self.take_along(x, &first, axis, at, span)?;
        let mut out = vec![Value::Array(values.clone())];
        if flags[0] {
            out.push(Value::Array(first));
        }
        for (want, (data, len)) in flags[1..].iter().zip([(u.inverse, n), (u.counts, u_len)]) {
            if *want {
                out.push(Value::Array(self.adopt_array(HostData::I64(data), &[len])?));
            }
        }
        self.host_done(timer, "unique", &values, x);
        Ok(if out.len() == 1 {
            out.remove(0)
        } else {
            Value::Tuple(out)
        })
    }

    /// An `axis` argument: the default when absent, `None` for `axis=none`.
    fn axis_arg(&self, slot: &Slot, rank: usize, default: Option<i64>) -> R<Option<usize>> {
        let ax = match slot {
            None => default,
            Some((Value::None, _)) => None,
            Some((v, vs)) => Some(self.static_int_named(v, vs, "an axis")?),
        };
        let span = slot.as_ref().map(|s| s.1.clone()).unwrap_or_default();
        ax.map(|a| shape::normalize_axis(a, rank, &span)).transpose()
    }

    pub(super) fn np_builtin(&mut self, name: &str, s: &[Slot], span: &Span) -> R<Value> {
        let sp = |k: usize| s[k].as_ref().map(|x| x.1.clone()).unwrap_or(span.clone());
        let arr = |k: usize| match &s[k] {
            Some((Value::Array(a), _)) => Some(a.clone()),
            _ => None,
        };
        let x = arr(0).ok_or_else(|| Diagnostic::new("E0105", "missing argument", span.clone()))?;
        let flat = |a: &Array| build::reshape(a, &[a.size()], span);
        match name {
            "sort" | "argsort" => {
                if let Some((v, vs)) = &s[2]
                    && !matches!(v, Value::None)
                {
                    let kind = self.static_str(v, vs, "`kind`")?;
                    if !matches!(kind.as_str(), "quicksort" | "mergesort" | "heapsort" | "stable") {
                        return Err(bad_value(
                            format!(
                                "`kind` must be \"quicksort\", \"mergesort\", \"heapsort\" or \"stable\", not \"{kind}\""
                            ),
                            vs,
                        ));
                    }
                }
                let axis = self.axis_arg(&s[1], x.rank(), Some(-1))?;
                let (x, axis) = match axis {
                    None => (flat(&x), 0),
                    Some(ax) => (x, ax),
                };
                if let Some(sorted) = self.device_sort(&x, axis, name == "argsort") {
                    return Ok(Value::Array(sorted.map_err(|d| d.or_span(span))?));
                }
                let lines = lines_of(x.shape(), axis);
                let (data, timer) = self.on_host(&x, &sp(0), |host, at| {
                    if name == "sort" {
                        with_data!(host, v => wrap(k::sort_lines(&v[at], lines)))
                    } else {
                        with_data!(host, v => HostData::I64(k::argsort_lines(&v[at], lines)))
                    }
                })?;
                let out = self.adopt_array(data, x.shape())?;
                self.host_done(timer, name, &out, &x);
                Ok(Value::Array(out))
            }
            "partition" | "argpartition" => {
                let axis = self.axis_arg(&s[2], x.rank(), Some(-1))?;
                let (x, axis) = match axis {
                    None => (flat(&x), 0),
                    Some(ax) => (x, ax),
                };
                let kth = arr(1).ok_or_else(|| Diagnostic::new("E0105", "missing argument `kth`", span.clone()))?;
                crate::check::npsort::kth_dtype(kth.dtype(), &sp(1))?;
                crate::check::npsort::kth_rank(kth.rank(), &sp(1))?;
                let kh = self.host_of(&kth, &sp(1))?;
                let kth: Vec<i64> = (0..kh.len()).map(|i| kh.get_i64(i)).collect();
                let argp = name == "argpartition";
                // NumPy does not look at `kth` when the array is empty
                if x.size() == 0 {
                    let dt = if argp { DType::I64 } else { x.dtype() };
                    let empty = HostData::zeros(dt, 0);
                    return Ok(Value::Array(self.adopt_array(empty, x.shape())?));
                }
                let kth = crate::check::npsort::kth_positions(&kth, x.shape()[axis], &sp(1))?;
                // a full sort is one partition: a device that sorts keeps the lines there
                if let Some(sorted) = self.device_sort(&x, axis, argp) {
                    return Ok(Value::Array(sorted.map_err(|d| d.or_span(span))?));
                }
                let lines = lines_of(x.shape(), axis);
                let (data, timer) = self.on_host(&x, &sp(0), |host, at| {
                    if argp {
                        with_data!(host, v => HostData::I64(k::argpartition_lines(&v[at], lines, &kth)))
                    } else {
                        with_data!(host, v => wrap(k::partition_lines(&v[at], lines, &kth)))
                    }
                })?;
                let out = self.adopt_array(data, x.shape())?;
                self.host_done(timer, name, &out, &x);
                Ok(Value::Array(out))
            }
            "unique" | "unique_counts" => {
                let flags = if name == "unique" {
                    [
                        self.static_bool(s[1].as_ref(), false)?,
                        self.static_bool(s[2].as_ref(), false)?,
                        self.static_bool(s[3].as_ref(), false)?,
                    ]
                } else {
                    [false, false, true]
                };
                let shape = x.shape().to_vec();
                if name == "unique"
                    && let Some(axis) = self.axis_arg(&s[4], x.rank(), None)?
                {
                    return self.unique_along(&x, axis, flags, &sp(0), span);
                }
                if flags == [false; 3] {
                    let (values, timer) = self.on_host(
                        &x,
                        &sp(0),
                        |host, at| with_data!(host, v => wrap(k::unique_values(&v[at]))),
                    )?;
                    let n = values.len();
                    let out = self.adopt_array(values, &[n])?;
                    self.host_done(timer, "unique", &out, &x);
                    return Ok(Value::Array(out));
                }
                let ((values, rest), timer) = self.on_host(&x, &sp(0), |host, at| {
                    with_data!(host, v => {
                        let u = k::unique(&v[at]);
                        (wrap(u.values), [u.first, u.inverse, u.counts])
                    })
                })?;
                let n = values.len();
                let first = self.adopt_array(values, &[n])?;
                let mut out = vec![Value::Array(first.clone())];
                for ((want, data), shape) in flags.iter().zip(rest).zip([vec![n], shape, vec![n]]) {
                    if *want {
                        out.push(Value::Array(self.adopt_array(HostData::I64(data), &shape)?));
                    }
                }
                self.host_done(timer, "unique", &first, &x);
                Ok(if out.len() == 1 {
                    out.remove(0)
                } else {
                    Value::Tuple(out)
                })
            }
            "searchsorted" => {
                let v = arr(1).ok_or_else(|| Diagnostic::new("E0105", "missing argument `v`", span.clone()))?;
                if x.rank() != 1 {
                    return Err(bad_shape(
                        format!("`searchsorted` needs a 1-D `a`, not one of shape {:?}", x.shape()),
                        &sp(0),
                    ));
                }
                let right = match &s[2] {
                    None | Some((Value::None, _)) => false,
                    Some((v, vs)) => match self.static_str(v, vs, "`side`")?.as_str() {
                        "left" => false,
                        "right" => true,
                        other => {
                            return Err(bad_value(
                                format!("`side` must be \"left\" or \"right\", not \"{other}\""),
                                vs,
                            ));
                        }
                    },
                };
                let a = match arr(3) {
                    None => x.clone(),
                    Some(sorter) => self.take_along(&x, &sorter, 0, &sp(3), span)?,
                };
                let (dt, _) = promote_weak(a.dtype(), a.weak, v.dtype(), v.weak);
                let a_host = self.host_of(&build::cast(&a, dt, Some(span)), &sp(0))?;
                let v_host = self.host_of(&build::cast(&v, dt, Some(span)), &sp(1))?;
                let found = with_data!(&a_host, av => {
                    let vv = crate::graph::data::HostData::clone(&v_host);
                    k::searchsorted(av, &same_type(av, vv), right)
                });
                Ok(Value::Array(self.adopt_array(HostData::I64(found), v.shape())?))
            }
            "interp" => {
                let missing = |what: &str| Diagnostic::new("E0105", format!("missing argument `{what}`"), span.clone());
                let (xp, fp) = (
                    arr(1).ok_or_else(|| missing("xp"))?,
                    arr(2).ok_or_else(|| missing("fp"))?,
                );
                for (a, k, what) in [(&xp, 1, "xp"), (&fp, 2, "fp")] {
                    if a.rank() != 1 {
                        return Err(bad_shape(
                            format!("`interp` needs a 1-D `{what}`, not one of shape {:?}", a.shape()),
                            &sp(k),
                        ));
                    }
                }
                let n = xp.size();
                if n == 0 {
                    return Err(bad_shape("`interp` needs at least one sample point in `xp`", &sp(1)));
                }
                if n != fp.size() {
                    return Err(bad_shape(
                        format!("`xp` has {n} points but `fp` has {} values", fp.size()),
                        &sp(2),
                    ));
                }
                let (dt, _) = [(x.dtype(), x.weak), (xp.dtype(), xp.weak), (fp.dtype(), fp.weak)]
                    .into_iter()
                    .reduce(|(a, aw), (b, bw)| promote_weak(a, aw, b, bw))
                    .unwrap_or((DType::F64, false));
                let dt = if dt.is_float() { dt } else { DType::F64 };
                let (x, xp, fp) = (
                    build::cast(&x, dt, Some(span)),
                    build::cast(&xp, dt, Some(span)),
                    build::cast(&fp, dt, Some(span)),
                );
                // the segment of each x: the last point at or before it, within 0..=n-2
                let xp_host = self.host_of(&xp, &sp(1))?;
                let x_host = self.host_of(&x, &sp(0))?;
                let found = with_data!(&xp_host, av => {
                    let xv = crate::graph::data::HostData::clone(&x_host);
                    k::searchsorted(av, &same_type(av, xv), true)
                });
                let last = n as i64 - 1;
                let lo: Vec<i64> = found.iter().map(|&p| (p - 1).clamp(0, (last - 1).max(0))).collect();
                let hi: Vec<i64> = lo.iter().map(|&j| (j + 1).min(last)).collect();
                let lo = self.adopt_array(HostData::I64(lo), x.shape())?;
                let hi = self.adopt_array(HostData::I64(hi), x.shape())?;
                let (x0, x1) = (
                    self.take_along(&xp, &lo, 0, span, span)?,
                    self.take_along(&xp, &hi, 0, span, span)?,
                );
                let (f0, f1) = (
                    self.take_along(&fp, &lo, 0, span, span)?,
                    self.take_along(&fp, &hi, 0, span, span)?,
                );
                let bin = |op, a: &Array, b: &Array| build::binary(op, a, b, (None, None), span);
                let slope = bin(BinOp::Div, &bin(BinOp::Sub, &f1, &f0)?, &bin(BinOp::Sub, &x1, &x0)?)?;
                let inside = bin(BinOp::Add, &bin(BinOp::Mul, &slope, &bin(BinOp::Sub, &x, &x0)?)?, &f0)?;
                let at = |a: &Array, i: usize| a.with_view(a.view.select_axis(0, i));
                let (first, end) = (at(&xp, 0), at(&xp, n - 1));
                let bound = |k: usize, default: Array| match arr(k) {
                    Some(v) => build::cast(&v, dt, Some(span)),
                    None => default,
                };
                let (left, right) = (bound(3, at(&fp, 0)), bound(4, at(&fp, n - 1)));
                let pick = |c: &Array, a: &Array, b: &Array| build::select(c, a, b, [None, None, None], span);
                // the last point exactly, then the two sides (NumPy's order of tests)
                let y = pick(&bin(BinOp::Eq, &x, &end)?, &at(&fp, n - 1), &inside)?;
                let y = pick(&bin(BinOp::Gt, &x, &end)?, &right, &y)?;
                Ok(Value::Array(pick(&bin(BinOp::Lt, &x, &first)?, &left, &y)?))
            }
            "median" | "percentile" | "quantile" => {
                let (q, rest) = if name == "median" {
                    (build::scalar(DType::F64, 0.5, true), 1)
                } else {
                    let q = arr(1).ok_or_else(|| Diagnostic::new("E0105", "missing argument `q`", span.clone()))?;
                    (q, 2)
                };
                let name_of_method = match s.get(rest + 2) {
                    None | Some(None) | Some(Some((Value::None, _))) => "linear".to_string(),
                    Some(Some((v, vs))) => self.static_str(v, vs, "`method`")?,
                };
                // the table's choices (`Builtin::check_choice`) admitted only the known names
                let method = match name {
                    "median" => k::QuantileMethod::Median,
                    _ => k::QuantileMethod::named(&name_of_method).unwrap_or(k::QuantileMethod::Linear),
                };
                let picks = npsort::quantile_picks(&name_of_method);
                let how = (&s[rest], s[rest + 1].as_ref(), method, picks);
                self.quantile(name, &x, &q, how, (&sp(0), &sp(1)), span)
            }
            "bincount" => {
                require_int(&x, "`x` of bincount", &sp(0))?;
                if x.rank() != 1 {
                    return Err(bad_shape(
                        format!("`bincount` needs a 1-D `x`, not one of shape {:?}", x.shape()),
                        &sp(0),
                    ));
                }
                let minlength = match &s[2] {
                    None | Some((Value::None, _)) => 0,
                    Some((v, vs)) => {
                        let m = self.static_int_named(v, vs, "`minlength`")?;
                        if m < 0 {
                            return Err(bad_value("`minlength` must not be negative", vs));
                        }
                        m as usize
                    }
                };
                if let Some(w) = arr(1) {
                    npsort::check_weights(x.shape(), w.shape(), "x", &sp(1))?;
                }
                if let Some(r) = self.backend.bincount(&x, arr(1).as_ref(), minlength) {
                    return Ok(Value::Array(r.map_err(|d| d.or_span(span))?));
                }
                let host = self.host_of(&x, &sp(0))?;
                let xs: std::borrow::Cow<[i64]> = match &host {
                    HostData::I64(v) => std::borrow::Cow::Borrowed(v),
                    other => (0..other.len()).map(|i| other.get_i64(i)).collect(),
                };
                // one pass for both bounds (it vectorises); the first negative is looked for only if there is one
                let (lo, hi) = xs.iter().fold((0i64, -1i64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
                if lo < 0
                    && let Some((at, &bad)) = xs.iter().enumerate().find(|(_, v)| **v < 0)
                {
                    return Err(bad_value(
                        format!("`bincount` counts non-negative integers; element {at} is {bad}"),
                        &sp(0),
                    ));
                }
                let n = ((hi + 1) as usize).max(minlength);
                shape::check_size(&[n], &sp(0))?;
                crate::backend::memory::check_bytes(n as u128 * 8, "bincount's counts", Some(span))?;
                match arr(1) {
                    None => {
                        let (c, _) = k::bincount(&xs, None, n);
                        Ok(Value::Array(self.adopt_array(HostData::I64(c), &[n])?))
                    }
                    Some(w) => {
                        npsort::check_weights(x.shape(), w.shape(), "x", &sp(1))?;
                        let wh = self.host_of(&build::cast(&w, DType::F64, Some(span)), &sp(1))?;
                        let HostData::F64(wv) = wh else {
                            return Err(Diagnostic::new("E0499", "internal: weights not f64", span.clone()));
                        };
                        let (_, c) = k::bincount(&xs, Some(&wv), n);
                        Ok(Value::Array(self.adopt_array(HostData::F64(c), &[n])?))
                    }
                }
            }
            "histogram" | "histogram_bin_edges" => self.histogram(name, &x, s, span),
            "nonzero" | "flatnonzero" | "argwhere" => {
                if x.rank() == 0 && name == "nonzero" {
                    return Err(
                        bad_shape("`nonzero` of a 0-d array is not defined (NumPy raises too)", &sp(0))
                            .with_hint("use `nonzero(reshape(x, [1]))`"),
                    );
                }
                let nz = build::binary(BinOp::Ne, &x, &build::scalar(x.dtype(), 0.0, true), (None, None), span)?;
                if name != "argwhere"
                    && let Some(positions) = self.backend.compress(None, &flat(&nz))
                {
                    let positions = positions.map_err(|d| d.or_span(span))?;
                    if name == "flatnonzero" {
                        return Ok(Value::Array(positions));
                    }
                    return Ok(Value::Tuple(unravel_lazy(&positions, x.shape(), span)?));
                }
                let host = self.host_of(&nz, &sp(0))?;
                let HostData::Bool(mask) = host else {
                    return Err(Diagnostic::new(
                        "E0499",
                        "internal: a comparison is not bool",
                        span.clone(),
                    ));
                };
                let flat_pos = k::true_positions(&mask);
                let count = flat_pos.len();
                if name == "flatnonzero" {
                    return Ok(Value::Array(self.adopt_array(HostData::I64(flat_pos), &[count])?));
                }
                let coords = unravel(&flat_pos, x.shape());
                if name == "argwhere" {
                    let r = x.rank();
                    let mut rows = vec![0i64; count * r];
                    for (d, c) in coords.iter().enumerate() {
                        for (i, &v) in c.iter().enumerate() {
                            rows[i * r + d] = v;
                        }
                    }
                    return Ok(Value::Array(self.adopt_array(HostData::I64(rows), &[count, r])?));
                }
                let mut out = Vec::with_capacity(coords.len());
                for c in coords {
                    out.push(Value::Array(self.adopt_array(HostData::I64(c), &[count])?));
                }
                Ok(Value::Tuple(out))
            }
            "count_nonzero" => {
                let axes = match self.static_axes(s[1].as_ref())? {
                    None => None,
                    Some(axes) => Some(shape::normalize_axes(&axes, x.rank(), &sp(1))?),
                };
                let keepdims = self.static_bool(s[2].as_ref(), false)?;
                let nz = build::binary(BinOp::Ne, &x, &build::scalar(x.dtype(), 0.0, true), (None, None), span)?;
                Ok(Value::Array(build::reduce(ReduceOp::Sum, &nz, axes, keepdims, span)?))
            }
            "unravel_index" => {
                let Some((dims_value, dims_span)) = &s[1] else {
                    return Err(Diagnostic::new("E0105", "missing argument `shape`", span.clone()));
                };
                let dims = self.static_shape(dims_value, dims_span)?;
                require_index_ints(&x, "indices", &sp(0))?;
                let size = shape::checked_size(&dims).map_or(i64::MAX, |n| n as i64);
                let host = self.host_of(&x, &sp(0))?;
                shape::check_flat_indices((0..host.len()).map(|i| host.get_i64(i)), size, &sp(0))?;
                let positions = build::cast(&x, DType::I64, Some(span));
                Ok(Value::Tuple(unravel_lazy(&positions, &dims, span)?))
            }
            "take" => {
                let idx = arr(1).ok_or_else(|| Diagnostic::new("E0105", "missing argument `indices`", span.clone()))?;
                let axis = self.axis_arg(&s[2], x.rank(), None)?;
                let (src, axis) = match axis {
                    None => (flat(&x), 0),
                    Some(ax) => (x, ax),
                };
                Ok(Value::Array(self.take_along(&src, &idx, axis, &sp(1), span)?))
            }
            _ => Err(Diagnostic::new(
                "E0101",
                format!("the builtin `{name}` is declared but not implemented"),
                span.clone(),
            )),
        }
    }

    /// Gathers `src` along `axis` at `idx` (any integer shape; negative
    /// indices count from the end; one out of range is E0204 at `idx_span`).
    /// The indices are read and checked on the host; the gather stays a lazy node.
    pub(super) fn take_along(&self, src: &Array, idx: &Array, axis: usize, idx_span: &Span, span: &Span) -> R<Array> {
        // no indices at all (`take(x, [])`, an empty list is f32) take nothing, as in NumPy
        let empty;
        let idx = if idx.size() == 0 && !idx.dtype().is_int() {
            empty = build::cast(idx, DType::I64, Some(idx_span));
            &empty
        } else {
            idx
        };
        require_index_ints(idx, "indices", idx_span)?;
        let n = src.shape()[axis] as i64;
        let host = self.host_of(idx, idx_span)?;
        let mut positions = crate::backend::memory::try_vec(host.len(), "indices", Some(span))?;
        for i in 0..host.len() {
            let v = host.get_i64(i);
            let j = if v < 0 { v + n } else { v };
            if j < 0 || j >= n {
                return Err(shape::index_out_of_range(v, n, idx_span));
            }
            positions.push(j);
        }
        let idx_shape = idx.shape().to_vec();
        let positions = self.adopt_array(HostData::I64(positions), &idx_shape)?;
        let mut out_shape = src.shape()[..axis].to_vec();
        out_shape.extend(&idx_shape);
        out_shape.extend(&src.shape()[axis + 1..]);
        Ok(Array::pending(
            Op::Take { axis },
            vec![src.clone(), positions],
            src.dtype(),
            &out_shape,
            Some(span.clone()),
        ))
    }

    #[allow(clippy::too_many_arguments)]
    fn quantile(
        &mut self,
        name: &str,
        x: &Array,
        q: &Array,
        (axis_slot, keep_slot, method, picks): (&Slot, Option<&(Value, Span)>, k::QuantileMethod, bool),
        (x_span, q_span): (&Span, &Span),
        span: &Span,
    ) -> R<Value> {
        if x.dtype() == DType::Bool {
            return Err(
                Diagnostic::new("E0300", format!("`{name}` of bools is not defined"), x_span.clone())
                    .with_hint("cast first: `x as f32`"),
            );
        }
        let keepdims = self.static_bool(keep_slot, false)?;
        let axes: Vec<usize> = match self.static_axes(axis_slot.as_ref())? {
            None => (0..x.rank()).collect(),
            Some(axes) => {
                let s = axis_slot.as_ref().map(|s| s.1.clone()).unwrap_or_default();
                shape::normalize_axes(&axes, x.rank(), &s)?
            }
        };
        // kept axes first, reduced ones last: every line is one contiguous run
        let kept: Vec<usize> = (0..x.rank()).filter(|a| !axes.contains(a)).collect();
        let perm: Vec<usize> = kept.iter().chain(&axes).copied().collect();
        let moved = x.with_view(x.view.permute(&perm));
        let outer: usize = kept.iter().map(|&a| x.shape()[a]).product();
        let len: usize = axes.iter().map(|&a| x.shape()[a]).product();
        let qh = self.host_of(&build::cast(q, DType::F64, Some(span)), q_span)?;
        let qs: Vec<f64> = (0..qh.len()).map(|i| qh.get_f64(i)).collect();
        let qs = crate::check::npsort::quantile_fractions(name, &qs, q_span)?;
        let (vals, timer) = self.on_host(
            &moved,
            x_span,
            |host, at| with_data!(host, v => k::quantile_lines(&v[at], (outer, len, 1), &qs, method)),
        )?;
        // a method that picks one of the values keeps their dtype, as NumPy's `take` does
        let (dt, _) = match picks {
            true => (x.dtype(), false),
            false => promote_weak(x.dtype().to_float(), false, q.dtype().to_float(), q.weak),
        };
        let mut shape: Vec<usize> = q.shape().to_vec();
        for a in 0..x.rank() {
            if !axes.contains(&a) {
                shape.push(x.shape()[a]);
            } else if keepdims {
                shape.push(1);
            }
        }
        let data = HostData::F64(vals);
        let out = self.adopt_array(data, &shape)?;
        self.host_done(timer, name, &out, &moved);
        Ok(Value::Array(if dt == DType::F64 {
            out
        } else {
            build::cast(&out, dt, Some(span))
        }))
    }

    fn histogram(&mut self, name: &str, x: &Array, s: &[Slot], span: &Span) -> R<Value> {
        let sp = |k: usize| s[k].as_ref().map(|x| x.1.clone()).unwrap_or(span.clone());
        if x.dtype() == DType::Bool {
            return Err(
                Diagnostic::new("E0300", format!("`{name}` of bools is not defined"), sp(0))
                    .with_hint("cast first: `x as i64`"),
            );
        }
        let edge_dt = if x.dtype().is_float() { x.dtype() } else { DType::F64 };
        let xf = build::cast(x, DType::F64, Some(span));
        let bins_arr = match &s[1] {
            Some((Value::Array(b), _)) => Some(b.clone()),
            _ => None,
        };
        let range = match &s[2] {
            None | Some((Value::None, _)) => None,
            Some((Value::Tuple(items), rs)) if items.len() == 2 => {
                let lo = self.static_f64(&items[0], rs, "the range's start")?;
                let hi = self.static_f64(&items[1], rs, "the range's end")?;
                Some(crate::check::npsort::histogram_range(lo, hi, rs)?)
            }
            Some((_, rs)) => {
                return Err(Diagnostic::new(
                    "E0303",
                    "`range` must be a tuple `(lo, hi)`",
                    rs.clone(),
                ));
            }
        };
        let (edges, uniform) = match bins_arr {
            Some(b) if b.rank() == 1 => {
                let eh = self.host_of(&build::cast(&b, DType::F64, Some(span)), &sp(1))?;
                let e: Vec<f64> = (0..eh.len()).map(|i| eh.get_f64(i)).collect();
                if e.len() < 2 || e.iter().any(|v| v.is_nan()) || e.windows(2).any(|w| w[0] > w[1]) {
                    return Err(bad_value(
                        "`bins` as edges must be at least two, increasing monotonically",
                        &sp(1),
                    ));
                }
                (e, false)
            }
            Some(b) if b.rank() > 1 => {
                return Err(crate::check::npsort::histogram_bins_rank(&sp(1)));
            }
            other => {
                let n = match other {
                    None => 10,
                    Some(b) => {
                        let v = Value::Array(b);
                        self.static_int_named(&v, &sp(1), "`bins`")?
                    }
                };
                crate::check::npsort::histogram_bins(n, &sp(1))?;
                shape::check_size(&[n as usize + 1], &sp(1))?;
                // the edges and the counts, before making them (`bins=10**12` was a hang)
                crate::backend::memory::check_bytes((n as u128 + 1) * 16, "the histogram", Some(&sp(1)))?;
                let (mut lo, mut hi) = match range {
                    Some(r) => r,
                    None if x.size() == 0 => (0.0, 1.0),
                    None => {
                        // NaN-propagating: a NaN or an infinity leaves one of them not finite
                        let lo = build::reduce(ReduceOp::Min, &xf, None, false, span)?;
                        let hi = build::reduce(ReduceOp::Max, &xf, None, false, span)?;
                        graph::realize(&*self.backend, &[&lo, &hi]).map_err(|d| d.or_span(&sp(0)))?;
                        let lo = self.host_of(&lo, &sp(0))?.get_f64(0);
                        let hi = self.host_of(&hi, &sp(0))?.get_f64(0);
                        if !lo.is_finite() || !hi.is_finite() {
                            return Err(bad_value(
                                "the range of values with NaN or inf is not finite: give `range`",
                                &sp(0),
                            ));
                        }
                        (lo, hi)
                    }
                };
                if lo == hi {
                    lo -= 0.5;
                    hi += 0.5;
                }
                let n = n as usize;
                // NumPy's linspace in f64, then the edges' dtype
                let step = (hi - lo) / n as f64;
                let mut e: Vec<f64> = (0..=n).map(|i| lo + i as f64 * step).collect();
                e[n] = hi;
                if edge_dt == DType::F32 {
                    e.iter_mut().for_each(|v| *v = *v as f32 as f64);
                }
                (e, true)
            }
        };
        let edges_arr = {
            let n = edges.len();
            let a = self.adopt_array(HostData::F64(edges.clone()), &[n])?;
            if edge_dt == DType::F64 {
                a
            } else {
                build::cast(&a, edge_dt, Some(span))
            }
        };
        if name == "histogram_bin_edges" {
            return Ok(Value::Array(edges_arr));
        }
        let weights = match &s[3] {
            Some((Value::Array(w), ws)) => {
                npsort::check_weights(x.shape(), w.shape(), "a", ws)?;
                Some(build::cast(w, DType::F64, Some(span)))
            }
            _ => None,
        };
        let density = self.static_bool(s[4].as_ref(), false)?;
        let bins = edges.len() - 1;
        if uniform && let Some(counts) = self.device_histogram(&xf, &edges, weights.as_ref(), density, span) {
            return Ok(Value::Tuple(vec![Value::Array(counts?), Value::Array(edges_arr)]));
        }
        let weights = match weights {
            Some(w) => {
                let wh = self.host_of(&w, span)?;
                Some((0..wh.len()).map(|i| wh.get_f64(i)).collect::<Vec<f64>>())
            }
            None => None,
        };
        let HostData::F64(xs) = self.host_of(&xf, &sp(0))? else {
            return Err(Diagnostic::new("E0499", "internal: not f64", span.clone()));
        };
        let counts = k::histogram(&xs, &edges, uniform);
        let counts = match (&weights, density) {
            (None, false) => self.adopt_array(HostData::I64(counts), &[bins])?,
            _ => {
                let mut c = vec![0f64; bins];
                match &weights {
                    None => c.iter_mut().zip(&counts).for_each(|(o, &n)| *o = n as f64),
                    Some(w) => {
                        let bins = k::Bins::new(&edges, uniform);
                        for (&v, &wt) in xs.iter().zip(w) {
                            if let Some(b) = bins.of(v) {
                                c[b] += wt;
                            }
                        }
                    }
                }
                if density {
                    let total: f64 = c.iter().sum();
                    for (b, v) in c.iter_mut().enumerate() {
                        *v /= total * (edges[b + 1] - edges[b]);
                    }
                }
                self.adopt_array(HostData::F64(c), &[bins])?
            }
        };
        Ok(Value::Tuple(vec![Value::Array(counts), Value::Array(edges_arr)]))
    }
}

/// The elements of `v` (read to the host in the same dtype as `like`).
fn same_type<T: Key>(_like: &[T], v: HostData) -> Vec<T> {
    let any: Box<dyn std::any::Any> = with_data!(v, x => Box::new(x));
    any.downcast::<Vec<T>>().map(|b| *b).unwrap_or_default()
}

/// One coordinate vector per axis of `shape` for each flat position.
fn unravel(flat: &[i64], shape: &[usize]) -> Vec<Vec<i64>> {
    let mut coords = vec![Vec::with_capacity(flat.len()); shape.len()];
    for &p in flat {
        let mut rem = p as usize;
        for d in (0..shape.len()).rev() {
            let n = shape[d].max(1);
            coords[d].push((rem % n) as i64);
            rem /= n;
        }
    }
    coords
}
