//! Planner tests that need no GPU: kernel counts and strategies for
//! representative graphs, `explain` snapshots, generated CUDA source
//! snapshots, and a check that each plan computes what the graph means
//! (a small interpreter of `KernelPlan`s against a naive graph evaluator).

use arr::backend::cuda::codegen;
use arr::check::dtype::DType;
use arr::graph::data::HostData;
use arr::graph::op::{BinaryOp, Distribution, Op, ReduceOp, ScanOp, UnaryOp};
use arr::graph::view::View;
use arr::graph::{Array, NodeState, pending_in_order};
use arr::plan::{DeviceInfo, Inst, KernelPlan, Plan, Source, Strategy, explain, plan};
use std::collections::HashMap;

fn input(shape: &[usize]) -> Array {
    let n: usize = shape.iter().product();
    // distinct, irregular values so a wrong index shows
    let data: Vec<f64> = (0..n).map(|i| ((i * 7919) % 1013) as f64 / 97.0 - 3.0).collect();
    Array::from_host(HostData::F64(data), shape)
}

fn input_f32(shape: &[usize]) -> Array {
    let n: usize = shape.iter().product();
    Array::from_host(HostData::F32((0..n).map(|i| (i % 17) as f32).collect()), shape)
}

fn broadcast_shape(a: &[usize], b: &[usize]) -> Vec<usize> {
    let r = a.len().max(b.len());
    (0..r)
        .map(|k| {
            let da = if k + a.len() >= r { a[k + a.len() - r] } else { 1 };
            let db = if k + b.len() >= r { b[k + b.len() - r] } else { 1 };
            da.max(db)
        })
        .collect()
}

fn bin(op: BinaryOp, a: &Array, b: &Array) -> Array {
    let shape = broadcast_shape(a.shape(), b.shape());
    let a2 = a.with_view(a.view.broadcast_to(&shape));
    let b2 = b.with_view(b.view.broadcast_to(&shape));
    Array::pending(Op::Binary(op), vec![a2, b2], a.dtype(), &shape, None)
}

fn un(op: UnaryOp, a: &Array) -> Array {
    Array::pending(Op::Unary(op), vec![a.clone()], a.dtype(), a.shape(), None)
}

fn scalar(x: f64, dtype: DType) -> Array {
    Array::from_host(HostData::scalar(dtype, x), &[])
}

fn reduce(op: ReduceOp, a: &Array, axes: &[usize]) -> Array {
    let shape: Vec<usize> = a
        .shape()
        .iter()
        .enumerate()
        .filter(|(k, _)| !axes.contains(k))
        .map(|(_, &d)| d)
        .collect();
    Array::pending(
        Op::Reduce {
            op,
            axes: axes.to_vec(),
        },
        vec![a.clone()],
        a.dtype(),
        &shape,
        None,
    )
}

/// `a[::-1]` of a 1-D array.
fn flip(a: &Array) -> Array {
    let n = a.shape()[0];
    a.with_view(a.view.slice_axis(0, n - 1, n, -1))
}

fn newaxis(a: &Array, axis: usize) -> Array {
    a.with_view(a.view.insert_axis(axis))
}

fn plan_of(arrays: &[&Array]) -> Plan {
    let outputs: Vec<_> = arrays.iter().map(|a| a.node.clone()).collect();
    let order = pending_in_order(&outputs);
    plan(&order, &outputs, &DeviceInfo::reference())
}

// ---- an independent evaluation of the graph (the oracle) ----

fn host_f64(a: &Array) -> Vec<f64> {
    match &*a.node.state.borrow() {
        NodeState::Ready(b) => match &*b.storage() {
            arr::graph::Storage::Host(HostData::F64(v)) => v.clone(),
            arr::graph::Storage::Host(HostData::F32(v)) => v.iter().map(|&x| x as f64).collect(),
            _ => panic!("test inputs are f32/f64 host data"),
        },
        NodeState::Pending { .. } => panic!("not a leaf"),
    }
}

fn apply_bin(op: BinaryOp, x: f64, y: f64) -> f64 {
    match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x * y,
        BinaryOp::Div => x / y,
        BinaryOp::Pow => x.powf(y),
        BinaryOp::Max => x.max(y),
        other => panic!("oracle lacks {other:?}"),
    }
}

fn apply_un(op: UnaryOp, x: f64) -> f64 {
    match op {
        UnaryOp::Exp => x.exp(),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Neg => -x,
        UnaryOp::Abs => x.abs(),
        other => panic!("oracle lacks {other:?}"),
    }
}

/// The node's contiguous output, computed op by op through views.
fn oracle(a: &Array, memo: &mut HashMap<u64, Vec<f64>>) -> Vec<f64> {
    if let Some(v) = memo.get(&a.node.id) {
        return v.clone();
    }
    let (op, inputs) = match &*a.node.state.borrow() {
        NodeState::Ready(_) => (None, Vec::new()),
        NodeState::Pending { op, inputs } => (Some(op.clone()), inputs.clone()),
    };
    let out = match op {
        None => host_f64(a),
        Some(op) => {
            let args: Vec<Vec<f64>> = inputs
                .iter()
                .map(|x| {
                    let buf = oracle(&x.with_view(View::contiguous(&x.node.shape)), memo);
                    x.view.offsets().iter().map(|&o| buf[o]).collect()
                })
                .collect();
            match op {
                Op::Binary(b) => args[0]
                    .iter()
                    .zip(&args[1])
                    .map(|(&x, &y)| apply_bin(b, x, y))
                    .collect(),
                Op::Unary(u) => args[0].iter().map(|&x| apply_un(u, x)).collect(),
                // f32 to f64 is exact, as the inputs' f64 values are
                Op::Copy | Op::Cast => args[0].clone(),
                Op::Reduce { op, axes } => {
                    let shape = &inputs[0].view.shape;
                    let outs: usize = a.node.shape.iter().product();
                    let mut acc = vec![ident(op); outs];
                    let kept: Vec<usize> = (0..shape.len()).filter(|k| !axes.contains(k)).collect();
                    let out_view = View::contiguous(&a.node.shape);
                    for (lin, &x) in args[0].iter().enumerate() {
                        let mut rem = lin;
                        let mut idx = vec![0; shape.len()];
                        for k in (0..shape.len()).rev() {
                            idx[k] = rem % shape[k];
                            rem /= shape[k];
                        }
                        let kidx: Vec<usize> = kept.iter().map(|&k| idx[k]).collect();
                        let o = out_view.offset_of(&kidx);
                        acc[o] = comb(op, acc[o], x);
                    }
                    acc
                }
                Op::Concat { axis } => {
                    let out_view = View::contiguous(&a.node.shape);
                    let mut out = vec![f64::NAN; a.node.shape.iter().product()];
                    let mut start = 0;
                    for (x, values) in inputs.iter().zip(&args) {
                        for (lin, &v) in values.iter().enumerate() {
                            let mut c = coords(lin, &x.view.shape);
                            c[axis] += start;
                            out[out_view.offset_of(&c)] = v;
                        }
                        start += x.view.shape[axis];
                    }
                    out
                }
                other => panic!("oracle lacks {other:?}"),
            }
        }
    };
    memo.insert(a.node.id, out.clone());
    out
}

// ---- a host interpreter of plans ----

fn coords(mut lin: usize, shape: &[usize]) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        c[k] = lin % shape[k].max(1);
        lin /= shape[k].max(1);
    }
    c
}

fn at(view: &View, c: &[usize]) -> usize {
    let mut o = view.offset as isize;
    for (&i, &s) in c.iter().zip(&view.strides) {
        o += i as isize * s;
    }
    o as usize
}

fn eval_steps(kp_steps: &[arr::plan::Step], loads: &dyn Fn(usize) -> f64, acc: f64) -> f64 {
    eval_upto(kp_steps, kp_steps.len() - 1, loads, acc, &[])
}

/// Evaluates steps up to `target`; `rows` are a row-resident kernel's stage results.
fn eval_upto(kp_steps: &[arr::plan::Step], target: usize, loads: &dyn Fn(usize) -> f64, acc: f64, rows: &[f64]) -> f64 {
    let mut vals: Vec<f64> = Vec::new();
    for st in &kp_steps[..=target] {
        let v = match &st.inst {
            Inst::Load(k) => loads(*k),
            Inst::Acc => acc,
            Inst::Row(k) => rows[*k],
            Inst::Cast(a) => vals[*a],
            Inst::Unary(u, a) => apply_un(*u, vals[*a]),
            Inst::Binary(b, x, y) => apply_bin(*b, vals[*x], vals[*y]),
            Inst::Where(c, x, y) => {
                if vals[*c] != 0.0 {
                    vals[*x]
                } else {
                    vals[*y]
                }
            }
        };
        vals.push(v);
    }
    vals[target]
}

/// A reduction's identity and combine, for the oracle and the plan interpreter.
fn ident(op: ReduceOp) -> f64 {
    match op {
        ReduceOp::Max => f64::NEG_INFINITY,
        ReduceOp::Min => f64::INFINITY,
        ReduceOp::Sum => 0.0,
        other => panic!("tests lack {other:?}"),
    }
}

fn comb(op: ReduceOp, a: f64, x: f64) -> f64 {
    match op {
        ReduceOp::Max => a.max(x),
        ReduceOp::Min => a.min(x),
        _ => a + x,
    }
}

fn run_plan(p: &Plan, leaves: &[&Array]) -> HashMap<u64, Vec<f64>> {
    let mut bufs: HashMap<u64, Vec<f64>> = HashMap::new();
    for l in leaves {
        bufs.insert(l.node.id, host_f64(l));
    }
    for kp in &p.kernels {
        let read = |o: &arr::plan::Operand, c: &[usize], bufs: &HashMap<u64, Vec<f64>>| -> f64 {
            assert_eq!(o.source, Source::Buffer, "tests use buffers only");
            bufs[&o.node][at(&o.view, c)]
        };
        if let Strategy::RowResident {
            stages,
            out,
            per_row,
            extra,
            ..
        } = &kp.strategy
        {
            // stage by stage over each row, as the kernel does
            let (rows, cols) = (kp.shape[0], kp.shape[1]);
            let mut result = Vec::new();
            let mut extras: Vec<Vec<f64>> = vec![Vec::new(); extra.len()];
            for r in 0..rows {
                let mut reds: Vec<f64> = Vec::new();
                for st in stages {
                    let mut acc = if st.op == ReduceOp::Max { f64::NEG_INFINITY } else { 0.0 };
                    for c in 0..cols {
                        let v = eval_upto(
                            &kp.body,
                            st.value,
                            &|k| read(&kp.operands[k], &[r, c], &bufs),
                            0.0,
                            &reds,
                        );
                        acc = if st.op == ReduceOp::Max { acc.max(v) } else { acc + v };
                    }
                    reds.push(acc);
                }
                // a per-row value reads no element of the row: column 0 stands for all
                for (e, o) in extras.iter_mut().zip(extra) {
                    e.push(eval_upto(
                        &kp.body,
                        o.value,
                        &|k| read(&kp.operands[k], &[r, 0], &bufs),
                        0.0,
                        &reds,
                    ));
                }
                let cs = if *per_row { 1 } else { cols };
                for c in 0..cs {
                    result.push(eval_upto(
                        &kp.body,
                        *out,
                        &|k| read(&kp.operands[k], &[r, c], &bufs),
                        0.0,
                        &reds,
                    ));
                }
            }
            assert_eq!(result.len(), kp.out_size(), "kernel covers its output");
            bufs.insert(kp.output, result);
            for (o, e) in extra.iter().zip(extras) {
                bufs.insert(kp.nodes[o.node], e);
            }
            continue;
        }
        if let Strategy::ReduceAllMulti { outs, .. } = &kp.strategy {
            // each output reduced over the whole space, then its own epilogue
            for o in outs {
                let mut acc = ident(o.op);
                for j in 0..kp.work() {
                    let c = coords(j, &kp.shape);
                    let v = eval_upto(&kp.body, o.value, &|k| read(&kp.operands[k], &c, &bufs), 0.0, &[]);
                    acc = comb(o.op, acc, v);
                }
                let r = if o.epilogue.is_empty() {
                    acc
                } else {
                    eval_steps(&o.epilogue, &|k| read(&kp.epi_operands[k], &[], &bufs), acc)
                };
                bufs.insert(kp.nodes[o.node], vec![r]);
            }
            continue;
        }
        if let Strategy::MapMulti { extra } = &kp.strategy {
            // each extra output is its body step at every element
            for o in extra {
                let values: Vec<f64> = (0..kp.work())
                    .map(|i| {
                        let c = coords(i, &kp.shape);
                        eval_upto(&kp.body, o.value, &|k| read(&kp.operands[k], &c, &bufs), 0.0, &[])
                    })
                    .collect();
                assert_eq!(
                    values.len(),
                    o.shape.iter().product::<usize>(),
                    "kernel covers its extra output"
                );
                bufs.insert(kp.nodes[o.node], values);
            }
        }
        if let Some(window) = &kp.window {
            // a part: its values go through the window into the node's buffer
            let values: Vec<(usize, f64)> = (0..kp.work())
                .map(|i| {
                    let c = coords(i, &kp.shape);
                    let v = eval_steps(&kp.body, &|k| read(&kp.operands[k], &c, &bufs), 0.0);
                    (at(window, &c), v)
                })
                .collect();
            let buf = bufs.entry(kp.output).or_default();
            for (o, v) in values {
                if buf.len() <= o {
                    buf.resize(o + 1, f64::NAN);
                }
                assert!(buf[o].is_nan(), "two parts write element {o}");
                buf[o] = v;
            }
            continue;
        }
        let out: Vec<f64> = match kp.reduce {
            None => (0..kp.work())
                .map(|i| {
                    let c = coords(i, &kp.shape);
                    eval_steps(&kp.body, &|k| read(&kp.operands[k], &c, &bufs), 0.0)
                })
                .collect(),
            Some(op) => {
                let kept = &kp.shape[..kp.kept];
                let red = &kp.shape[kp.kept..];
                let outs: usize = kept.iter().product();
                let n: usize = red.iter().product();
                (0..outs)
                    .map(|q| {
                        let kc = coords(q, kept);
                        let mut acc = ident(op);
                        for j in 0..n {
                            let mut c = kc.clone();
                            c.extend(coords(j, red));
                            let v = eval_steps(&kp.body, &|k| read(&kp.operands[k], &c, &bufs), 0.0);
                            acc = comb(op, acc, v);
                        }
                        if kp.epilogue.is_empty() {
                            acc
                        } else {
                            eval_steps(&kp.epilogue, &|k| read(&kp.epi_operands[k], &kc, &bufs), acc)
                        }
                    })
                    .collect()
            }
        };
        assert_eq!(out.len(), kp.out_size(), "kernel covers its output");
        bufs.insert(kp.output, out);
    }
    bufs
}

/// Plans `out`, runs the plan on the host and compares with the oracle.
fn check(out: &Array, leaves: &[&Array]) -> Plan {
    let p = plan_of(&[out]);
    let got = run_plan(&p, leaves);
    let want = oracle(out, &mut HashMap::new());
    let got = &got[&out.node.id];
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-9 * w.abs().max(1.0),
            "element {i}: plan gives {g}, graph means {w}"
        );
    }
    p
}

fn strategies(p: &Plan) -> Vec<&'static str> {
    p.kernels.iter().map(|k| k.strategy.name()).collect()
}

// ---- the representative graphs ----

#[test]
fn fused_chain_is_one_map_kernel() {
    // exp(a*b+c) - 0.5*tanh(a)
    let (a, b, c) = (input(&[64, 33]), input(&[64, 33]), input(&[64, 33]));
    let half = scalar(0.5, DType::F64);
    let e = bin(
        BinaryOp::Sub,
        &un(UnaryOp::Exp, &bin(BinaryOp::Add, &bin(BinaryOp::Mul, &a, &b), &c)),
        &bin(BinaryOp::Mul, &half, &un(UnaryOp::Tanh, &a)),
    );
    let p = check(&e, &[&a, &b, &c, &half]);
    assert_eq!(strategies(&p), vec!["map"]);
    assert_eq!(p.kernels[0].shape, vec![64 * 33], "collapsed to rank 1");
    assert_eq!(p.kernels[0].bytes_read, (3 * 64 * 33 + 1) * 8, "each input read once");
    insta::assert_snapshot!("fused_chain", explain(&[&e], &DeviceInfo::reference()));
}

#[test]
fn row_broadcast_slides() {
    let (a, b) = (input(&[1000, 512]), input(&[512]));
    let c = bin(BinaryOp::Add, &a, &b);
    let p = check(&c, &[&a, &b]);
    assert_eq!(strategies(&p), vec!["sliding"]);
    assert_eq!(p.kernels[0].vec, 2, "f64: two per 16-byte access");
    insta::assert_snapshot!("row_broadcast", explain(&[&c], &DeviceInfo::reference()));
}

#[test]
fn column_broadcast_vectorises_rows() {
    let (a, b) = (input_f32(&[300, 256]), input_f32(&[300, 1]));
    let c = bin(BinaryOp::Add, &a, &b);
    let p = plan_of(&[&c]);
    assert_eq!(strategies(&p), vec!["broadcast"]);
    assert_eq!(p.kernels[0].vec, 4);
    assert_eq!(p.kernels[0].operands[1].view.strides[..], [1, 0]);
    insta::assert_snapshot!("column_broadcast", explain(&[&c], &DeviceInfo::reference()));
}

#[test]
fn outer_broadcast() {
    let (a, b) = (input(&[37]), input(&[41]));
    let c = bin(BinaryOp::Sub, &newaxis(&a, 1), &b);
    let p = check(&c, &[&a, &b]);
    assert_eq!(p.kernels.len(), 1);
    insta::assert_snapshot!("outer_broadcast", explain(&[&c], &DeviceInfo::reference()));
}

#[test]
fn sum_all_axis0_axis1() {
    let a = input(&[123, 77]);
    let all = reduce(ReduceOp::Sum, &a, &[0, 1]);
    let p = check(&all, &[&a]);
    assert_eq!(strategies(&p), vec!["reduce-all"]);
    assert_eq!(p.kernels[0].shape, vec![123 * 77]);
    insta::assert_snapshot!("sum_all", explain(&[&all], &DeviceInfo::reference()));

    let ax0 = reduce(ReduceOp::Sum, &a, &[0]);
    let p = check(&ax0, &[&a]);
    assert_eq!(strategies(&p), vec!["reduce-cols"]);
    insta::assert_snapshot!("sum_axis0", explain(&[&ax0], &DeviceInfo::reference()));

    let ax1 = reduce(ReduceOp::Sum, &a, &[1]);
    let p = check(&ax1, &[&a]);
    assert_eq!(strategies(&p), vec!["reduce-rows"]);
    insta::assert_snapshot!("sum_axis1", explain(&[&ax1], &DeviceInfo::reference()));
}

#[test]
fn middle_axis_and_transposed_sums() {
    let a = input(&[5, 6, 7]);
    let m = reduce(ReduceOp::Max, &a, &[1]);
    let p = check(&m, &[&a]);
    assert_eq!(p.kernels.len(), 1);
    let t = a.with_view(a.view.permute(&[2, 0, 1]));
    let s = reduce(ReduceOp::Sum, &t, &[0, 2]);
    let p = check(&s, &[&a]);
    assert_eq!(p.kernels.len(), 1);
}

#[test]
fn streamed_nbody_reduction_is_one_kernel() {
    // sum over j of (a_i - b_j)^2: the n x n temporary is never stored
    let (a, b) = (input(&[300]), input(&[300]));
    let d = bin(BinaryOp::Sub, &newaxis(&a, 1), &b);
    let two = scalar(2.0, DType::F64);
    let s = reduce(ReduceOp::Sum, &bin(BinaryOp::Pow, &d, &two), &[1]);
    let p = check(&s, &[&a, &b, &two]);
    assert_eq!(strategies(&p), vec!["reduce-rows"]);
    assert_eq!(p.kernels[0].bytes_written, 300 * 8, "only the result is written");
    insta::assert_snapshot!("nbody", explain(&[&s], &DeviceInfo::reference()));
}

#[test]
fn stencil_of_slices_is_one_kernel() {
    let x = input(&[34, 34]);
    let sl = |r0: usize, c0: usize| x.with_view(x.view.slice_axis(0, r0, 32, 1).slice_axis(1, c0, 32, 1));
    let s = bin(
        BinaryOp::Add,
        &bin(BinaryOp::Add, &sl(0, 1), &sl(2, 1)),
        &bin(BinaryOp::Add, &sl(1, 0), &bin(BinaryOp::Add, &sl(1, 2), &sl(1, 1))),
    );
    let fifth = scalar(0.2, DType::F64);
    let out = bin(BinaryOp::Mul, &fifth, &s);
    let p = check(&out, &[&x, &fifth]);
    assert_eq!(strategies(&p), vec!["broadcast"]);
    assert_eq!(
        p.kernels[0].operands.len(),
        6,
        "five slices of one buffer and the scalar"
    );
    insta::assert_snapshot!("stencil", explain(&[&out], &DeviceInfo::reference()));
}

#[test]
fn reduction_epilogue_fuses() {
    // sqrt(sum(x*x, axis=1)) / n
    let x = input(&[50, 40]);
    let ss = reduce(ReduceOp::Sum, &bin(BinaryOp::Mul, &x, &x), &[1]);
    let n = scalar(40.0, DType::F64);
    let out = bin(BinaryOp::Div, &un(UnaryOp::Sqrt, &ss), &n);
    let p = check(&out, &[&x, &n]);
    assert_eq!(p.kernels.len(), 1);
    assert_eq!(p.kernels[0].nodes.len(), 4, "mul, sum, sqrt, div in one kernel");
    insta::assert_snapshot!("epilogue", explain(&[&out], &DeviceInfo::reference()));
}

#[test]
fn softmax_style_broadcast_of_a_reduction_materialises_it() {
    // x - max(x, axis=1)[:, newaxis]: the max is read through a broadcast; a GPU
    // and the CPU read the row once and do both in one kernel
    let x = input(&[20, 30]);
    let m = reduce(ReduceOp::Max, &x, &[1]);
    let out = bin(BinaryOp::Sub, &x, &newaxis(&m, 1));
    let p = check(&out, &[&x]);
    assert_eq!(strategies(&p), vec!["row-resident"]);
    let outputs = vec![out.node.clone()];
    let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
    assert_eq!(strategies(&cpu), vec!["row-resident"]);
    // rows too long for the CPU's registers stay separate kernels there
    let long = input(&[2, 1 << 17]);
    let long_max = reduce(ReduceOp::Max, &long, &[1]);
    let shifted = bin(BinaryOp::Sub, &long, &newaxis(&long_max, 1));
    let outputs = vec![shifted.node.clone()];
    let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
    assert!(!strategies(&cpu).contains(&"row-resident"), "{:?}", strategies(&cpu));
    insta::assert_snapshot!("softmax_shift", explain(&[&out], &DeviceInfo::reference()));
}

#[test]
fn sibling_maps_are_one_kernel_on_the_cpu() {
    // a stencil step: two fields from the same shifted rows, a third from
    // both at the same position (so the second is never stored), and a
    // difference of the first at shifted rows, which must wait for it
    let x = input(&[34, 30]);
    let y32 = input_f32(&[34, 30]);
    let y = Array::pending(Op::Cast, vec![y32.clone()], DType::F64, y32.shape(), None);
    let rows = |a: &Array, r0: usize, n: usize| a.with_view(a.view.slice_axis(0, r0, n, 1));
    let a = bin(
        BinaryOp::Mul,
        &bin(BinaryOp::Add, &rows(&x, 1, 33), &rows(&x, 0, 33)),
        &bin(BinaryOp::Sub, &rows(&x, 1, 33), &rows(&y, 0, 33)),
    );
    let b = bin(BinaryOp::Mul, &rows(&y, 1, 33), &rows(&x, 0, 33));
    let forty = scalar(40.0, DType::F64);
    let c = bin(BinaryOp::Div, &un(UnaryOp::Exp, &a), &bin(BinaryOp::Add, &b, &forty));
    let d = bin(BinaryOp::Sub, &rows(&a, 1, 32), &rows(&a, 0, 32));
    let outputs = vec![c.node.clone(), d.node.clone()];
    let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
    assert_eq!(strategies(&cpu), vec!["map-multi", "map"]);
    let Strategy::MapMulti { extra } = &cpu.kernels[0].strategy else {
        unreachable!()
    };
    assert_eq!(cpu.kernels[0].output, c.node.id);
    assert_eq!(
        cpu.kernels[0].extra_outputs(),
        vec![(a.node.id, DType::F64, vec![33, 30])]
    );
    assert_eq!(extra.len(), 1, "b is read only inside the kernel, so never stored");
    let got = run_plan(&cpu, &[&x, &y32, &forty]);
    for out in [&c, &d] {
        let want = oracle(out, &mut HashMap::new());
        let got = &got[&out.node.id];
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= 1e-9 * w.abs().max(1.0),
                "element {i}: plan gives {g}, graph means {w}"
            );
        }
    }
    // a GPU keeps them separate (it has no multi-output map)
    assert!(!strategies(&plan_of(&[&c, &d])).contains(&"map-multi"));
    insta::assert_snapshot!("sibling_maps_cpu", explain(&[&c, &d], &DeviceInfo::for_cpu()));
}

#[test]
fn rolls_of_an_expression_are_parts_on_the_cpu() {
    // north(east(x * 2 + 1)) as lattice Boltzmann writes it: on the CPU each
    // of the four boxes of the result is one map over x; the inner roll is
    // never stored, and neither is the expression
    let x = input(&[6, 5]);
    let (two, one) = (scalar(2.0, DType::F64), scalar(1.0, DType::F64));
    let y = bin(BinaryOp::Add, &bin(BinaryOp::Mul, &x, &two), &one);
    let leaves = [&x, &two, &one];
    let cat = |parts: Vec<Array>, axis: usize| {
        let mut shape = parts[0].shape().to_vec();
        shape[axis] = parts.iter().map(|p| p.shape()[axis]).sum();
        Array::pending(Op::Concat { axis }, parts, DType::F64, &shape, None)
    };
    let cols = |a: &Array, c0: usize, n: usize| a.with_view(a.view.slice_axis(1, c0, n, 1));
    let rows = |a: &Array, r0: usize, n: usize| a.with_view(a.view.slice_axis(0, r0, n, 1));
    let east = cat(vec![cols(&y, 4, 1), cols(&y, 0, 4)], 1);
    let north = cat(vec![rows(&east, 5, 1), rows(&east, 0, 5)], 0);
    let outputs = vec![north.node.clone()];
    let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
    assert_eq!(cpu.kernels.len(), 4, "{cpu}");
    for kp in &cpu.kernels {
        assert!(kp.window.is_some() && kp.output == north.node.id, "{kp}");
        assert!(
            kp.operands
                .iter()
                .all(|o| o.node != y.node.id && o.node != east.node.id),
            "{kp}"
        );
    }
    let got = run_plan(&cpu, &leaves);
    let want = oracle(&north, &mut HashMap::new());
    assert_eq!(got[&north.node.id], want);
    // a GPU stores the expression and copies it twice
    assert_eq!(strategies(&plan_of(&[&north])), vec!["map", "concat", "concat"]);
    insta::assert_snapshot!("roll_of_roll_cpu", explain(&[&north], &DeviceInfo::for_cpu()));

    // an expression that shares what it reads with another output is stored
    // by a kernel of its own (beside its siblings), and its parts copy it
    let z = bin(BinaryOp::Mul, &x, &x);
    let rolled = cat(vec![cols(&y, 4, 1), cols(&y, 0, 4)], 1);
    let outputs = vec![rolled.node.clone(), z.node.clone()];
    let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
    let parts: Vec<&KernelPlan> = cpu.kernels.iter().filter(|k| k.window.is_some()).collect();
    assert_eq!(parts.len(), 2, "{cpu}");
    assert!(
        parts
            .iter()
            .all(|k| k.body.len() == 1 && k.operands[0].node == y.node.id),
        "{cpu}"
    );
    let got = run_plan(&cpu, &leaves);
    assert_eq!(got[&rolled.node.id], oracle(&rolled, &mut HashMap::new()));
    assert_eq!(got[&z.node.id], oracle(&z, &mut HashMap::new()));

    // a strided slice of a concatenation is no box: the inner one is stored
    let every_other = east.with_view(east.view.slice_axis(0, 0, 3, 2));
    let outer = cat(vec![every_other, rows(&east, 0, 2)], 0);
    let outputs = vec![outer.node.clone()];
    let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
    assert!(cpu.kernels.iter().any(|k| k.output == east.node.id), "{cpu}");
    let got = run_plan(&cpu, &leaves);
    assert_eq!(got[&outer.node.id], oracle(&outer, &mut HashMap::new()));
}

#[test]
fn a_map_reads_rolls_in_boxes_on_the_cpu() {
    // u + roll(u, 1, axis=0) + roll(u, -2, axis=1) - 2 * u: on the CPU the map
    // is cut into boxes where a roll's read crosses from one part into the
    // next (rows at 1, columns at 3: four boxes), each reading u in place
    let u = input(&[6, 5]);
    let two = scalar(2.0, DType::F64);
    let cat = |parts: Vec<Array>, axis: usize| {
        let mut shape = parts[0].shape().to_vec();
        shape[axis] = parts.iter().map(|p| p.shape()[axis]).sum();
        Array::pending(Op::Concat { axis }, parts, DType::F64, &shape, None)
    };
    let along = |a: &Array, axis: usize, at: usize, n: usize| a.with_view(a.view.slice_axis(axis, at, n, 1));
    let down = cat(vec![along(&u, 0, 5, 1), along(&u, 0, 0, 5)], 0);
    let left = cat(vec![along(&u, 1, 2, 3), along(&u, 1, 0, 2)], 1);
    let sum = bin(BinaryOp::Add, &bin(BinaryOp::Add, &u, &down), &left);
    let out = bin(BinaryOp::Sub, &sum, &bin(BinaryOp::Mul, &two, &u));
    let outputs = vec![out.node.clone()];
    let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
    assert_eq!(cpu.kernels.len(), 4, "{cpu}");
    for kp in &cpu.kernels {
        assert!(kp.window.is_some() && kp.output == out.node.id, "{kp}");
        assert!(
            kp.operands.iter().all(|o| o.node == u.node.id || o.node == two.node.id),
            "{kp}"
        );
    }
    let got = run_plan(&cpu, &[&u, &two]);
    assert_eq!(got[&out.node.id], oracle(&out, &mut HashMap::new()));
    insta::assert_snapshot!("rolls_in_boxes_cpu", explain(&[&out], &DeviceInfo::for_cpu()));

    // a reduction of a roll reads it stored: its kernel is not cut
    let total = reduce(ReduceOp::Sum, &bin(BinaryOp::Mul, &down, &two), &[0, 1]);
    let outputs = vec![total.node.clone()];
    let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
    assert!(
        cpu.kernels.iter().any(|k| k.reduce.is_some() && k.window.is_none()),
        "{cpu}"
    );
    let got = run_plan(&cpu, &[&u, &two]);
    assert_eq!(got[&total.node.id], oracle(&total, &mut HashMap::new()));
}

fn keep(a: &Array, axis: usize) -> Array {
    newaxis(a, axis)
}

/// softmax(x) along axis 1, as the standard library writes it.
fn softmax_rows(x: &Array) -> Array {
    let m = reduce(ReduceOp::Max, x, &[1]);
    let e = un(UnaryOp::Exp, &bin(BinaryOp::Sub, x, &keep(&m, 1)));
    let s = reduce(ReduceOp::Sum, &e, &[1]);
    bin(BinaryOp::Div, &e, &keep(&s, 1))
}

fn row_resident(p: &Plan, k: usize) -> (usize, bool, u32) {
    match &p.kernels[k].strategy {
        Strategy::RowResident {
            stages, per_row, units, ..
        } => (stages.len(), *per_row, *units),
        other => panic!("kernel {k} is {other:?}, not row-resident"),
    }
}

#[test]
fn softmax_is_one_row_resident_kernel() {
    for shape in [[20, 30], [7, 1000], [3, 5000], [1100, 16000]] {
        let x = input(&shape);
        let out = softmax_rows(&x);
        // the interpreter is slow on the largest: its plan differs only in `units`
        let p = if shape[1] < 10000 {
            check(&out, &[&x])
        } else {
            plan_of(&[&out])
        };
        assert_eq!(strategies(&p), vec!["row-resident"], "{shape:?}");
        let (stages, per_row, units) = row_resident(&p, 0);
        assert_eq!((stages, per_row), (2, false));
        // long rows no longer fit the registers: re-read per pass
        assert_eq!(units == 0, shape[1] == 16000, "{shape:?}: {units}");
        assert_eq!(
            p.kernels[0].bytes_read,
            (shape[0] * shape[1] * 8) as u64,
            "one read of x"
        );
    }
    // few long rows keep the split reductions, which spread a row over many blocks
    let x = input(&[9, 40000]);
    assert!(!strategies(&plan_of(&[&softmax_rows(&x)])).contains(&"row-resident"));
    let x = input(&[20, 30]);
    insta::assert_snapshot!("softmax_rows", explain(&[&softmax_rows(&x)], &DeviceInfo::reference()));
}

#[test]
fn softmax_of_a_shared_temporary_starts_the_run() {
    // y = 2 * x is stored (two consumers), then the softmax of y is one kernel
    let x = input(&[16, 64]);
    let two = scalar(2.0, DType::F64);
    let y = bin(BinaryOp::Mul, &x, &two);
    let out = softmax_rows(&y);
    let p = check(&out, &[&x, &two]);
    assert_eq!(strategies(&p), vec!["row-resident"]);
}

#[test]
fn layer_norm_is_one_kernel_and_reads_gamma_beta_along_the_row() {
    let (x, g, b) = (input(&[12, 256]), input(&[256]), input(&[256]));
    let n = scalar(256.0, DType::F64);
    let m = bin(BinaryOp::Div, &reduce(ReduceOp::Sum, &x, &[1]), &n);
    let d = bin(BinaryOp::Sub, &x, &keep(&m, 1));
    let v = bin(
        BinaryOp::Div,
        &reduce(ReduceOp::Sum, &bin(BinaryOp::Mul, &d, &d), &[1]),
        &n,
    );
    let eps = scalar(1e-5, DType::F64);
    let r = un(UnaryOp::Sqrt, &bin(BinaryOp::Add, &v, &eps));
    let y = bin(
        BinaryOp::Add,
        &bin(BinaryOp::Mul, &bin(BinaryOp::Div, &d, &keep(&r, 1)), &g),
        &b,
    );
    let p = check(&y, &[&x, &g, &b, &n, &eps]);
    assert_eq!(strategies(&p), vec!["row-resident"]);
    assert_eq!(row_resident(&p, 0).0, 2, "mean and centred variance");
    let kp = &p.kernels[0];
    let gv = kp.operands.iter().find(|o| o.node == g.node.id).expect("gamma read");
    assert_eq!(gv.view.strides[..], [0, 1], "gamma moves along the row, not down it");
}

#[test]
fn variance_and_norm_write_one_value_per_row() {
    let x = input(&[33, 70]);
    let n = scalar(70.0, DType::F64);
    let m = bin(BinaryOp::Div, &reduce(ReduceOp::Sum, &x, &[1]), &n);
    let d = bin(BinaryOp::Sub, &x, &keep(&m, 1));
    let var = bin(
        BinaryOp::Div,
        &reduce(ReduceOp::Sum, &bin(BinaryOp::Mul, &d, &d), &[1]),
        &n,
    );
    let p = check(&var, &[&x, &n]);
    assert_eq!(strategies(&p), vec!["row-resident"]);
    assert!(row_resident(&p, 0).1, "written per row");
    // x / norm(x): a reduction and a broadcast
    let nrm = un(UnaryOp::Sqrt, &reduce(ReduceOp::Sum, &bin(BinaryOp::Mul, &x, &x), &[1]));
    let unit = bin(BinaryOp::Div, &x, &keep(&nrm, 1));
    let p = check(&unit, &[&x]);
    assert_eq!(strategies(&p), vec!["row-resident"]);
}

#[test]
fn log_softmax_with_a_per_row_shift_is_one_kernel() {
    // the standard library's logsumexp shape: a map of the row maxima (the
    // shift), a reduction over the kept size-1 axis, then x - (f(sum) + shift)
    let x = input(&[24, 50]);
    let m = reduce(ReduceOp::Max, &x, &[1]);
    let one = scalar(1.0, DType::F64);
    let shift = bin(BinaryOp::Mul, &keep(&m, 1), &one);
    let z = reduce(ReduceOp::Sum, &un(UnaryOp::Exp, &bin(BinaryOp::Sub, &x, &shift)), &[1]);
    let back = reduce(ReduceOp::Max, &shift, &[1]);
    let lse = bin(BinaryOp::Add, &un(UnaryOp::Sqrt, &z), &back);
    let out = bin(BinaryOp::Sub, &x, &keep(&lse, 1));
    let p = check(&out, &[&x, &one]);
    assert_eq!(strategies(&p), vec!["row-resident"]);
    assert_eq!(row_resident(&p, 0).0, 2, "max and sum; the size-1 reduction is per row");
}

#[test]
fn transposed_operands_go_through_shared_tiles() {
    // transpose(a) + a, and a permuted view plus a row-major one
    for shape in [[64, 64], [100, 37], [1, 50]] {
        let a = input(&[shape[1], shape[0]]);
        let t = a.with_view(a.view.permute(&[1, 0]));
        let b = input(&shape);
        let out = bin(BinaryOp::Add, &t, &b);
        let p = check(&out, &[&a, &b]);
        let want = if shape[0] >= 2 { "transpose-tiled" } else { "broadcast" };
        assert!(
            strategies(&p) == vec![want] || (shape[0] < 2 && strategies(&p) != vec!["transpose-tiled"]),
            "{shape:?}: {:?}",
            strategies(&p)
        );
        let outputs = vec![out.node.clone()];
        let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
        assert!(!strategies(&cpu).contains(&"transpose-tiled"));
    }
    // transpose(b) + a: b staged through its own tile, a read directly
    let (a, b) = (input(&[48, 40]), input(&[40, 48]));
    let out = bin(BinaryOp::Add, &b.with_view(b.view.permute(&[1, 0])), &a);
    let p = check(&out, &[&a, &b]);
    assert_eq!(
        p.kernels[0].strategy,
        Strategy::TransposeTiled { axis: 0, paired: false }
    );
    let src = codegen::generate(&p.kernels[0]).source;
    assert!(src.contains("tile0[32][33]"), "the transposed read is staged, padded");
    assert!(
        !src.contains("tile1") && !src.contains("pa0"),
        "the row-major read is not"
    );
    dump("tiles.cu", &src);
}

fn dump(name: &str, src: &str) {
    if let Some(dir) = std::env::var_os("ARR_DUMP_CUDA") {
        std::fs::write(std::path::Path::new(&dir).join(name), src).expect("dump");
    }
}

#[test]
fn a_buffer_read_both_ways_is_read_once_through_paired_tiles() {
    // transpose(a) + a: one read of a per element, not two
    let a = input(&[48, 48]);
    let out = bin(BinaryOp::Add, &a.with_view(a.view.permute(&[1, 0])), &a);
    let p = check(&out, &[&a]);
    assert_eq!(
        p.kernels[0].strategy,
        Strategy::TransposeTiled { axis: 0, paired: true }
    );
    assert_eq!(
        p.kernels[0].bytes_read,
        48 * 48 * 8,
        "the pair's second read is not counted"
    );
    let src = codegen::generate(&p.kernels[0]).source;
    assert!(src.contains("pa0[32][33]") && src.contains("pb0[32][33]"));
    assert!(
        !src.contains("tile0") && !src.contains("tile1"),
        "no per-operand tile beside the pair"
    );
    dump("tiles_paired.cu", &src);

    // a - transpose(a) * 2 + transpose(b): a pair and an unpaired transposed operand
    let b = input(&[40, 40]);
    let (a, bt) = (input(&[40, 40]), b.with_view(b.view.permute(&[1, 0])));
    let at = a.with_view(a.view.permute(&[1, 0]));
    let two = scalar(2.0, DType::F64);
    let out = bin(
        BinaryOp::Add,
        &bin(BinaryOp::Sub, &a, &bin(BinaryOp::Mul, &at, &two)),
        &bt,
    );
    let p = check(&out, &[&a, &b, &two]);
    assert_eq!(strategies(&p), vec!["transpose-tiled"]);
    let src = codegen::generate(&p.kernels[0]).source;
    assert!(src.contains("pa0") && src.contains("tile"), "{src}");
    dump("tiles_paired_mixed.cu", &src);

    // offsets differ (a[1:, :-1] + transpose(a)[1:, :-1]): not a pair
    let a = input(&[41, 41]);
    let v = a.with_view(a.view.slice_axis(0, 1, 40, 1).slice_axis(1, 0, 40, 1));
    let t = a.with_view(a.view.permute(&[1, 0]).slice_axis(0, 1, 40, 1).slice_axis(1, 0, 40, 1));
    let p = check(&bin(BinaryOp::Add, &t, &v), &[&a]);
    assert_eq!(
        p.kernels[0].strategy,
        Strategy::TransposeTiled { axis: 0, paired: false }
    );

    // a non-square transpose cannot pair
    let a = input(&[30, 50]);
    let b = input(&[50, 30]);
    let out = bin(BinaryOp::Add, &a.with_view(a.view.permute(&[1, 0])), &b);
    let p = check(&out, &[&a, &b]);
    assert_eq!(
        p.kernels[0].strategy,
        Strategy::TransposeTiled { axis: 0, paired: false }
    );
}

#[test]
fn permuted_rank3_operands_tile_over_their_contiguous_axis() {
    // x (B, N, M) + permute(y (B, M, N), [0, 2, 1]): tiles over axes 1 and 2, batches over 0
    let x = input(&[3, 40, 36]);
    let y = input(&[3, 36, 40]);
    let out = bin(BinaryOp::Add, &y.with_view(y.view.permute(&[0, 2, 1])), &x);
    let p = check(&out, &[&x, &y]);
    assert_eq!(
        p.kernels[0].strategy,
        Strategy::TransposeTiled { axis: 1, paired: false }
    );
    let src = codegen::generate(&p.kernels[0]).source;
    assert!(
        src.contains("tile0[32][33]") && src.contains("b0 * "),
        "batch axis 0 in the base offsets"
    );
    dump("tiles_rank3.cu", &src);
    // permute(w (M, B, N), [1, 2, 0]): axes 0 and 1 of the output (B, N, M) collapse, so a rank-2 tile
    let w = input(&[36, 3, 40]);
    let out = bin(BinaryOp::Mul, &w.with_view(w.view.permute(&[1, 2, 0])), &x);
    let p = check(&out, &[&x, &w]);
    assert_eq!(
        p.kernels[0].strategy,
        Strategy::TransposeTiled { axis: 0, paired: false }
    );
    assert_eq!(p.kernels[0].shape, vec![120, 36]);
    // a batched a + transpose(a) over the last two axes pairs
    let s = input(&[4, 33, 33]);
    let out = bin(BinaryOp::Add, &s, &s.with_view(s.view.permute(&[0, 2, 1])));
    let p = check(&out, &[&s]);
    assert_eq!(
        p.kernels[0].strategy,
        Strategy::TransposeTiled { axis: 1, paired: true }
    );
    dump("tiles_rank3_paired.cu", &codegen::generate(&p.kernels[0]).source);
    // the transposed axis first (permute [2, 1, 0] of a (M, N, B) array): tile axis 0, batch axis 1
    let u = input(&[36, 40, 3]);
    let out = bin(BinaryOp::Sub, &x, &u.with_view(u.view.permute(&[2, 1, 0])));
    let p = check(&out, &[&x, &u]);
    assert_eq!(
        p.kernels[0].strategy,
        Strategy::TransposeTiled { axis: 0, paired: false }
    );
}

#[test]
fn a_reduction_used_outside_the_run_is_written_too_on_a_gpu() {
    // the max is an output too: a GPU's row kernel writes it beside the
    // result; the CPU keeps both kernels
    let x = input(&[20, 30]);
    let m = reduce(ReduceOp::Max, &x, &[1]);
    let out = bin(BinaryOp::Sub, &x, &keep(&m, 1));
    let p = check_many(&[&out, &m]);
    assert_eq!(strategies(&p), vec!["row-resident"]);
    let outputs = vec![out.node.clone(), m.node.clone()];
    let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
    assert_eq!(strategies(&cpu), vec!["reduce-rows", "broadcast"]);
    // a column reduction does not start a row run
    let c = reduce(ReduceOp::Sum, &x, &[0]);
    let out = bin(BinaryOp::Sub, &x, &newaxis(&c, 0));
    let p = check(&out, &[&x]);
    assert!(!strategies(&p).contains(&"row-resident"), "{:?}", strategies(&p));
}

#[test]
fn shared_temporary_is_computed_once_inside_its_one_kernel() {
    let (a, b) = (input(&[100]), input(&[100]));
    let t = bin(BinaryOp::Add, &a, &b);
    let u = un(UnaryOp::Exp, &t);
    let v = un(UnaryOp::Tanh, &t);
    let w = bin(BinaryOp::Mul, &u, &v);
    let p = check(&w, &[&a, &b]);
    assert_eq!(
        p.kernels.len(),
        1,
        "exp(t) * tanh(t) with t = a + b, t neither stored nor computed twice"
    );
    assert_eq!(p.kernels[0].ops.iter().filter(|o| o.starts_with("add")).count(), 1);
    // shared inside a reduction's input: sum(exp(t) * tanh(t)) is one kernel
    let s = reduce(ReduceOp::Sum, &w, &[0]);
    let p = check(&s, &[&a, &b]);
    assert_eq!(strategies(&p), vec!["reduce-all"]);
    // and through a chain of shared nodes (t feeds u and v, u feeds two nodes)
    let x = bin(BinaryOp::Add, &un(UnaryOp::Tanh, &u), &bin(BinaryOp::Mul, &u, &v));
    let p = check(&x, &[&a, &b]);
    assert_eq!(p.kernels.len(), 1);
    insta::assert_snapshot!("shared_temporary", explain(&[&x], &DeviceInfo::reference()));
}

#[test]
fn shared_temporary_read_by_a_reduction_and_through_its_epilogue() {
    // t feeds sum(t, axis=1) and exp(t), whose first column the epilogue adds:
    // t is computed in both spaces of the one kernel, and the result is right
    let x = input(&[16, 24]);
    let t = bin(BinaryOp::Mul, &x, &x);
    let s = reduce(ReduceOp::Sum, &t, &[1]);
    let y = un(UnaryOp::Exp, &t);
    let col = y.with_view(y.view.select_axis(1, 0));
    let e = bin(BinaryOp::Add, &s, &col);
    let p = check(&e, &[&x]);
    assert_eq!(
        strategies(&p),
        vec!["reduce-rows"],
        "{}",
        explain(&[&e], &DeviceInfo::reference())
    );
}

#[test]
fn shared_temporary_is_stored_when_its_uses_are_apart() {
    let (a, b) = (input(&[100]), input(&[100]));
    let t = un(UnaryOp::Exp, &bin(BinaryOp::Add, &a, &b));
    // two consumers reading it through two views: stored once rather than computed twice
    let r = bin(BinaryOp::Mul, &un(UnaryOp::Sqrt, &t), &un(UnaryOp::Tanh, &flip(&t)));
    let p = check(&r, &[&a, &b]);
    assert_eq!(p.kernels.len(), 2, "t, then sqrt(t) * tanh(t[::-1])");
    // one binary op on stored arrays is cheaper read twice than stored:
    // computed in each consumer, through each one's view
    let d = bin(BinaryOp::Sub, &a, &b);
    let r = bin(BinaryOp::Mul, &un(UnaryOp::Abs, &d), &un(UnaryOp::Tanh, &flip(&d)));
    let p = check(&r, &[&a, &b]);
    assert_eq!(p.kernels.len(), 1, "{}", explain(&[&r], &DeviceInfo::reference()));
    // used by a reduction's input and by its epilogue: two spaces of one kernel
    let s = reduce(ReduceOp::Sum, &t, &[0]);
    let e = bin(BinaryOp::Div, &t, &s);
    let p = check(&e, &[&a, &b]);
    assert!(p.kernels.len() >= 2, "{}", explain(&[&e], &DeviceInfo::reference()));
    // consumed by two whole-array reductions: a GPU computes it inside the one
    // kernel that takes both; the CPU inside each of its two reduction kernels
    let m = reduce(ReduceOp::Max, &t, &[0]);
    let n = reduce(ReduceOp::Min, &t, &[0]);
    let outputs = vec![m.node.clone(), n.node.clone()];
    let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
    assert_eq!(strategies(&cpu), vec!["reduce-all", "reduce-all"], "max, min");
    let p = check_many(&[&m, &n]);
    assert_eq!(strategies(&p), vec!["reduce-all-multi"]);
}

#[test]
fn tiny_segments_pack_into_sub_warps() {
    let a = input_f32(&[1 << 16, 8]);
    let s = reduce(ReduceOp::Sum, &a, &[1]);
    let p = plan_of(&[&s]);
    assert_eq!(
        p.kernels[0].strategy,
        Strategy::ReduceRows { lanes: 2, split: 1 },
        "8 f32 = two float4 per row"
    );
    insta::assert_snapshot!("tiny_segments", explain(&[&s], &DeviceInfo::reference()));
}

#[test]
fn generators_fuse_and_matmul_stands_alone() {
    let r = Array::pending(
        Op::Random {
            key: 42,
            dist: Distribution::Uniform,
        },
        vec![],
        DType::F32,
        &[64, 64],
        None,
    );
    let ar = Array::pending(Op::Arange { start: 0.0, step: 1.0 }, vec![], DType::F32, &[64], None);
    let x = bin(BinaryOp::Mul, &r, &ar);
    let m = Array::pending(Op::MatMul, vec![x.clone(), x.clone()], DType::F32, &[64, 64], None);
    let one = Array::from_host(HostData::F32(vec![1.0]), &[]);
    let out = bin(BinaryOp::Add, &m, &one);
    let p = plan_of(&[&out]);
    assert_eq!(strategies(&p), vec!["sliding", "matmul", "map"]);
    assert!(
        p.kernels[0].operands.iter().all(|o| o.source != Source::Buffer),
        "random and arange are generated in place"
    );
    insta::assert_snapshot!("generators_matmul", explain(&[&out], &DeviceInfo::reference()));
}

#[test]
fn plans_of_independent_outputs_are_separate() {
    let a = input(&[10]);
    let x = un(UnaryOp::Exp, &a);
    let y = un(UnaryOp::Neg, &x);
    let p = plan_of(&[&x, &y]);
    assert_eq!(p.kernels.len(), 2, "x is an output, so y reads it");
}

// ---- generated CUDA source ----

fn source_of(p: &Plan, k: usize) -> String {
    let kp: &KernelPlan = &p.kernels[k];
    let s = codegen::generate(kp).source;
    // drop the shared prelude (kernels/prelude.cu): snapshot what is generated
    let i = s
        .find("typedef int IDX")
        .or_else(|| s.find("typedef long long IDX"))
        .expect("IDX typedef");
    s[i..].to_string()
}

#[test]
fn generated_sources() {
    let (a, b, c) = (input_f32(&[1 << 20]), input_f32(&[1 << 20]), input_f32(&[1 << 20]));
    let e = un(UnaryOp::Exp, &bin(BinaryOp::Add, &bin(BinaryOp::Mul, &a, &b), &c));
    insta::assert_snapshot!("cuda_map", source_of(&plan_of(&[&e]), 0));

    let (m, v) = (input_f32(&[4096, 4096]), input_f32(&[4096]));
    let s = bin(BinaryOp::Add, &m, &v);
    insta::assert_snapshot!("cuda_sliding", source_of(&plan_of(&[&s]), 0));

    let (x, y) = (input_f32(&[16384]), input_f32(&[16384]));
    let d = bin(BinaryOp::Sub, &newaxis(&x, 1), &y);
    let n = reduce(ReduceOp::Sum, &bin(BinaryOp::Mul, &d, &d), &[1]);
    let src = source_of(&plan_of(&[&n]), 0);
    assert!(src.contains("arr_shfl_xor"), "warp reduction");
    insta::assert_snapshot!("cuda_nbody", src);

    let ls = lengths(3000, |r| 1 + r % 63);
    let seg = segment_of(ReduceOp::Sum, &input_f32(&[ls.iter().sum()]), &ls);
    insta::assert_snapshot!("cuda_segment_stream", source_of(&plan_of(&[&seg]), 0));

    let line = scan_of(ScanOp::Sum, &input_f32(&[1 << 20]), 0);
    insta::assert_snapshot!("cuda_scan_lookback", source_of(&plan_of(&[&line]), 0));
}

/// The bitwise primitives' CUDA expressions come from their table lines
/// (`check::prim::for_each_binary!`), with the shift helpers of the prelude;
/// `~` of a bool never reaches a kernel (the builder makes it `logical_not`).
#[test]
fn generated_bitwise_sources() {
    use arr::graph::op::BitOp;
    let n = 1 << 16;
    let ints = |dtype: DType| {
        let data = HostData::I64((0..n as i64).map(|i| i * 37 - 9000).collect());
        let a = Array::from_host(data, &[n]);
        arr::graph::build::cast(&a, dtype, None)
    };
    for dtype in [DType::I32, DType::I64] {
        let (a, b) = (ints(dtype), ints(dtype));
        let e = bin(BinaryOp::Bit(BitOp::BitAnd), &a, &b);
        let e = bin(BinaryOp::Bit(BitOp::BitOr), &e, &bin(BinaryOp::Bit(BitOp::Shl), &a, &b));
        let e = bin(
            BinaryOp::Bit(BitOp::BitXor),
            &e,
            &bin(BinaryOp::Bit(BitOp::Shr), &b, &a),
        );
        let e = un(UnaryOp::Invert, &e);
        let p = plan_of(&[&e]);
        assert_eq!(p.kernels.len(), 1, "{dtype}: one fused map");
        let full = codegen::generate(&p.kernels[0]).source;
        let src = source_of(&p, 0);
        for want in ["arr_shl(", "arr_shr(", " & ", " | ", " ^ ", "(~"] {
            assert!(src.contains(want), "{dtype}: {want} in\n{src}");
        }
        // the prelude defines the shifts for both widths
        assert!(full.contains("i64 arr_shl(i64 a, i64 b)") && full.contains("int arr_shr(int a, int b)"));
    }
}

/// Row-resident sources for warp and block rows, held and re-read. With
/// ARR_DUMP_CUDA=dir they are written there too, for an offline NVRTC check
/// (scripts/nvrtc_check.py).
#[test]
fn row_resident_sources() {
    let dump = std::env::var_os("ARR_DUMP_CUDA");
    for (name, rows, cols) in [("warp", 64, 100), ("block", 64, 4096), ("reread", 2000, 40000)] {
        let x = input_f32(&[rows, cols]);
        let out = softmax_rows(&x);
        let p = plan_of(&[&out]);
        let src = codegen::generate(&p.kernels[0]).source;
        assert_eq!(
            src.matches('{').count(),
            src.matches('}').count(),
            "{name}: braces balance"
        );
        assert_eq!(src.matches("arr_main").count(), 1, "{name}");
        assert!(
            src.contains("comb0") && src.contains("comb1") && src.contains("f_out"),
            "{name}"
        );
        assert_eq!(
            src.contains("__syncthreads"),
            name != "warp",
            "{name}: block rows combine warps"
        );
        if let Some(dir) = &dump {
            std::fs::write(std::path::Path::new(dir).join(format!("rows_{name}.cu")), &src).expect("dump");
        }
    }
    let x = input_f32(&[64, 100]);
    let n = scalar(100.0, DType::F32);
    let m = bin(BinaryOp::Div, &reduce(ReduceOp::Sum, &x, &[1]), &n);
    let d = bin(BinaryOp::Sub, &x, &keep(&m, 1));
    let var = bin(
        BinaryOp::Div,
        &reduce(ReduceOp::Sum, &bin(BinaryOp::Mul, &d, &d), &[1]),
        &n,
    );
    let src = codegen::generate(&plan_of(&[&var]).kernels[0]).source;
    if let Some(dir) = &dump {
        std::fs::write(std::path::Path::new(dir).join("rows_var.cu"), &src).expect("dump");
    }
    insta::assert_snapshot!("cuda_rows_var", source_of(&plan_of(&[&var]), 0));
}

#[test]
fn cuda_backend_without_a_gpu_is_a_diagnostic_not_a_panic() {
    // CI and the build machine have no GPU; on the device machine this succeeds
    match arr::backend::cuda::CudaBackend::new() {
        Ok(gpu) => assert!(arr::graph::Backend::describe(&gpu).starts_with("cuda")),
        Err(d) => assert_eq!(d.code, "E0404", "{d}"),
    }
}

fn rand_f32(shape: &[usize]) -> Array {
    Array::pending(
        Op::Random {
            key: 7,
            dist: Distribution::Uniform,
        },
        vec![],
        DType::F32,
        shape,
        None,
    )
}

fn scan_of(op: ScanOp, a: &Array, axis: usize) -> Array {
    Array::pending(Op::Scan { op, axis }, vec![a.clone()], a.dtype(), a.shape(), None)
}

/// The plan of `out`'s last kernel (after any generator kernels).
fn last_kernel(out: &Array) -> KernelPlan {
    plan_of(&[out]).kernels.pop().expect("a kernel")
}

#[test]
fn contiguous_scans_take_a_warp_per_line_or_look_back() {
    // many long rows: a warp per row, 16-byte accesses
    let rows = scan_of(ScanOp::Sum, &rand_f32(&[16384, 16384]), 1);
    let k = last_kernel(&rows);
    assert_eq!(
        k.strategy,
        Strategy::ScanRows {
            op: ScanOp::Sum,
            axis: 1
        }
    );
    assert_eq!((k.vec, k.block, k.index32), (4, 256, true));
    insta::assert_snapshot!("scan_rows", explain(&[&rows], &DeviceInfo::reference()));
    // one line of 2^28: 16384-element tiles (256 threads x 16 accesses of 4), a block each
    let all = scan_of(ScanOp::Sum, &rand_f32(&[1 << 28]), 0);
    let k = last_kernel(&all);
    assert_eq!(
        k.strategy,
        Strategy::ScanLookback {
            op: ScanOp::Sum,
            axis: 0,
            tiles: 16384
        }
    );
    assert_eq!((k.grid, k.block, k.vec), ((16384, 1), 256, 4));
    insta::assert_snapshot!("scan_lookback", explain(&[&all], &DeviceInfo::reference()));
    let src = codegen::generate(&k).source;
    assert!(src.contains("atomicAdd(&arr_ticket"), "tiles in launch order");
    assert!(
        src.contains("#if 1\n__device__ unsigned long long arr_word[16384];"),
        "f32: one packed status word per tile"
    );
    // few long rows of f64 (2 per access, 8192 per tile): look-back within each row, separate flags
    let few = scan_of(ScanOp::Max, &input(&[3, 50_000]), 1);
    let k = last_kernel(&few);
    assert_eq!(
        k.strategy,
        Strategy::ScanLookback {
            op: ScanOp::Max,
            axis: 1,
            tiles: 7
        }
    );
    assert_eq!(k.grid, (21, 1));
    let src = codegen::generate(&k).source;
    assert!(src.contains("#if 0\n") && src.contains("__device__ unsigned arr_flag[21];"));
    // many medium rows: a warp each
    let med = scan_of(ScanOp::Prod, &input(&[10000, 100]), 1);
    assert_eq!(
        last_kernel(&med).strategy,
        Strategy::ScanRows {
            op: ScanOp::Prod,
            axis: 1
        }
    );
    // a line starting off a vector boundary: scalar (still coalesced) accesses
    let x = input(&[1, 40001]);
    let shifted = x.with_view(x.view.slice_axis(1, 1, 40000, 1));
    let k = last_kernel(&scan_of(ScanOp::Sum, &shifted, 1));
    assert_eq!((k.strategy.name(), k.vec), ("scan-lookback", 1));
    // short lines stay a thread each; a strided axis keeps the thread-per-line or chunked scan
    let short = scan_of(ScanOp::Max, &input(&[10000, 16]), 1);
    assert_eq!(
        last_kernel(&short).strategy,
        Strategy::Scan {
            op: ScanOp::Max,
            axis: 1,
            chunks: 1
        }
    );
    let cols = scan_of(ScanOp::Sum, &input(&[20000, 4]), 0);
    assert_eq!(
        last_kernel(&cols).strategy,
        Strategy::Scan {
            op: ScanOp::Sum,
            axis: 0,
            chunks: 5
        }
    );
}

#[test]
fn few_long_rows_are_split_over_blocks() {
    // 64 rows of 2^22: 32 blocks per row (2048 blocks), the last of each row finishes it
    let s = reduce(ReduceOp::Sum, &rand_f32(&[64, 1 << 22]), &[1]);
    let k = last_kernel(&s);
    assert_eq!(k.strategy, Strategy::ReduceRows { lanes: 256, split: 32 });
    assert_eq!((k.grid, k.block, k.vec), ((32, 64), 256, 4));
    let g = codegen::generate(&k);
    assert!(!g.finish, "no second launch");
    assert_eq!(g.part_bytes, 64 * 32 * 4);
    assert!(g.source.contains("atomicAdd(&arr_done[row], 1u)"));
    // f64 rows read from a buffer: 16 rows of 2^18, 32 blocks of 8192 each
    let x = input(&[16, 1 << 18]);
    let s = reduce(ReduceOp::Sum, &x, &[1]);
    assert_eq!(last_kernel(&s).strategy, Strategy::ReduceRows { lanes: 256, split: 32 });
    insta::assert_snapshot!("sum_long_rows", explain(&[&s], &DeviceInfo::reference()));
    // enough rows to fill the GPU: a block per row, no split
    let s = reduce(ReduceOp::Sum, &rand_f32(&[2048, 1 << 14]), &[1]);
    assert_eq!(last_kernel(&s).strategy, Strategy::ReduceRows { lanes: 32, split: 1 });
    // the split stops while each block still gets at least 8192 elements
    let x = input(&[4, 40_000]);
    let s = reduce(ReduceOp::Sum, &x, &[1]);
    assert_eq!(last_kernel(&s).strategy, Strategy::ReduceRows { lanes: 256, split: 4 });
    assert_eq!(check(&s, &[&x]).kernels.len(), 1);
}

fn arg(op: ReduceOp, a: &Array, axes: &[usize]) -> Array {
    let r = reduce(op, a, axes);
    Array::pending(
        Op::Reduce {
            op,
            axes: axes.to_vec(),
        },
        vec![a.clone()],
        DType::I64,
        r.shape(),
        None,
    )
}

#[test]
fn argmin_argmax_take_the_fast_reductions() {
    let rows = arg(ReduceOp::ArgMax, &input(&[1000, 64]), &[1]);
    let k = last_kernel(&rows);
    assert_eq!(k.strategy.name(), "reduce-rows");
    let src = codegen::generate(&k).source;
    assert!(
        src.contains("struct ArgAcc { double v; i64 i; }"),
        "(value, index) pairs"
    );
    assert!(src.contains("arr_arg(r[l], (i64)(j + l))"), "index of each vector lane");
    assert!(src.contains("out[row] = a.i;"), "stores the index");
    let all = arg(ReduceOp::ArgMin, &input(&[1 << 16]), &[0]);
    let k = last_kernel(&all);
    assert_eq!(k.strategy.name(), "reduce-all");
    let g = codegen::generate(&k);
    assert!(g.finish);
    let Strategy::ReduceAll { blocks } = k.strategy else {
        unreachable!()
    };
    assert_eq!(g.part_bytes, blocks as usize * 16, "16-byte pairs");
    let cols = arg(ReduceOp::ArgMin, &input(&[300, 200]), &[0]);
    assert_eq!(last_kernel(&cols).strategy.name(), "reduce-cols");
    let long = arg(ReduceOp::ArgMax, &rand_f32(&[8, 1 << 20]), &[1]);
    assert_eq!(
        last_kernel(&long).strategy,
        Strategy::ReduceRows { lanes: 256, split: 128 }
    );
    insta::assert_snapshot!("argmax_rows", explain(&[&rows], &DeviceInfo::reference()));
}

// ---- ragged segmented reductions ----

/// Offsets for `lengths`, and a segmented reduction of `values` over them.
fn segment_of(op: ReduceOp, values: &Array, lengths: &[usize]) -> Array {
    let mut offsets = vec![0i64];
    for &l in lengths {
        offsets.push(offsets[offsets.len() - 1] + l as i64);
    }
    let index = arr::graph::segment_index::SegmentIndex::from_offsets(offsets);
    arr::graph::build::segment(op, values, &index, None, &(0..0)).expect("valid segments")
}

/// Lengths from a fixed pseudo-random sequence (the planner's choice depends on them only).
fn lengths(n: usize, f: impl Fn(usize) -> usize) -> Vec<usize> {
    (0..n).map(|i| f((i * 2_654_435_761) % 1_000_003)).collect()
}

fn segment_plan(values_len_of: &[usize], op: ReduceOp, fuse: bool) -> (Plan, String) {
    let n: usize = values_len_of.iter().sum();
    let x = input_f32(&[n]);
    let v = if fuse {
        bin(BinaryOp::Mul, &x, &bin(BinaryOp::Add, &x, &scalar(1.0, DType::F32)))
    } else {
        x
    };
    let s = segment_of(op, &v, values_len_of);
    let p = plan_of(&[&s]);
    (p, explain(&[&s], &DeviceInfo::reference()))
}

fn segment_strategy(p: &Plan) -> (arr::graph::op::SegLayout, u32) {
    match &p.kernels[0].strategy {
        Strategy::Segmented { layout, lanes, .. } => (*layout, *lanes),
        other => panic!("expected a segmented kernel, got {other:?}"),
    }
}

fn segment_tile(p: &Plan) -> u32 {
    match &p.kernels[0].strategy {
        Strategy::Segmented { tile, .. } => *tile,
        other => panic!("expected a segmented kernel, got {other:?}"),
    }
}

/// The stream kernel's generated source, with its launches checked: one entry, no second pass.
fn stream_source(p: &Plan) -> String {
    let g = codegen::generate(&p.kernels[0]);
    assert!(!g.source.contains("arr_block(") && !g.finish && g.part_bytes == 0);
    let launches: Vec<&str> = codegen::segment_launches(&p.kernels[0]).iter().map(|l| l.0).collect();
    assert_eq!(launches, vec!["arr_main"]);
    g.source
}

#[test]
fn segments_tiny_by_the_stream_kernel() {
    // lengths 1..3: tiles of values in shared memory, a thread per segment
    let ls = lengths(1000, |r| 1 + r % 3);
    let (p, text) = segment_plan(&ls, ReduceOp::Sum, false);
    assert_eq!(strategies(&p), vec!["segmented"]);
    let (layout, lanes) = segment_strategy(&p);
    assert_eq!((layout.short, layout.block, layout.split, lanes), (1000, 0, 0, 1));
    assert_eq!(segment_tile(&p), 4096);
    let n: usize = ls.iter().sum();
    assert_eq!(layout.tiles, n.div_ceil(4096));
    assert_eq!(p.kernels[0].grid, (layout.tiles as u32, 1));
    let src = stream_source(&p);
    assert!(src.contains("#define ARR_EXT 4\n"));
    insta::assert_snapshot!("segment_tiny", text);
}

#[test]
fn segments_ragged_short_by_the_stream_kernel_with_a_fused_producer() {
    // lengths 1..63 (mean about 32), a producer fused: the loads compute it
    let (p, text) = segment_plan(&lengths(3000, |r| 1 + r % 63), ReduceOp::Sum, true);
    assert_eq!(
        strategies(&p),
        vec!["segmented"],
        "the producer streams into the reduction"
    );
    let (layout, lanes) = segment_strategy(&p);
    assert_eq!((layout.short, layout.block, layout.split), (3000, 0, 0));
    assert_eq!((lanes, segment_tile(&p)), (1, 4096));
    assert!(text.contains("fused ops: add, mul, segsum"), "{text}");
    let src = stream_source(&p);
    assert!(src.contains("#define ARR_EXT 64\n"));
    insta::assert_snapshot!("segment_ragged_fused", text);
}

#[test]
fn uneven_short_segments_by_the_stream_kernel() {
    // all short but uneven (mostly 0..3, some 1000): the 1000-long ones by a warp each
    let ls = lengths(3000, |r| if r % 50 == 0 { 1000 } else { r % 4 });
    let (p, text) = segment_plan(&ls, ReduceOp::Sum, false);
    assert_eq!(strategies(&p), vec!["segmented"]);
    let (layout, lanes) = segment_strategy(&p);
    assert_eq!((layout.short, layout.block, layout.split, lanes), (3000, 0, 0, 1));
    assert_eq!(segment_tile(&p), 4096);
    let n: usize = ls.iter().sum();
    assert_eq!(layout.tiles, n.div_ceil(4096));
    let src = stream_source(&p);
    assert!(src.contains("#define ARR_EXT 1024\n") && src.contains("#define ARR_LONG 64\n"));
    insta::assert_snapshot!("segment_uneven_tiles", text);
}

#[test]
fn segments_of_f64_keep_the_stream_kernel_under_the_static_shared_memory_limit() {
    // f64 values and the longest short segment: (4096 + 1024) * 8 bytes plus the long list < 48 KiB
    let mut ls = vec![40usize; 200_000];
    ls[7] = arr::graph::op::SEG_SHORT_MAX;
    let n: usize = ls.iter().sum();
    let x = input(&[n]);
    let s = segment_of(ReduceOp::Max, &x, &ls);
    let p = plan_of(&[&s]);
    assert_eq!(segment_tile(&p), 4096);
    assert_eq!(p.kernels[0].out_dtype, DType::F64);
    let src = stream_source(&p);
    assert!(src.contains("#define ARR_EXT 1024\n"));
    let (tile, ext, long) = (4096, 1024, arr::graph::op::SEG_STREAM_LONG);
    assert!((tile + ext) * 8 + ((tile + ext) / (long + 1) + 2) * 4 <= 48 * 1024);
}

#[test]
fn segments_long_by_a_warp_each() {
    // 1000-long segments beside a longer one (classes): a full warp each
    let mut ls = vec![1000; 64];
    ls.push(5000);
    let (p, _) = segment_plan(&ls, ReduceOp::Max, false);
    let (layout, lanes) = segment_strategy(&p);
    assert_eq!((layout.short, layout.block, lanes, segment_tile(&p)), (64, 1, 32, 0));
}

#[test]
fn segments_skewed_are_binned_by_length() {
    // mostly short, some medium (a block each), two huge (split across blocks), some empty
    let mut ls = lengths(500, |r| r % 9);
    ls[17] = 5000;
    ls[300] = 20_000;
    ls[100] = 1 << 20;
    ls[400] = 100_000;
    let (p, text) = segment_plan(&ls, ReduceOp::Min, false);
    let (layout, _) = segment_strategy(&p);
    assert_eq!((layout.short, layout.block, layout.split), (496, 2, 2));
    let chunk = arr::graph::op::SEG_CHUNK;
    assert_eq!(
        layout.chunks,
        (1usize << 20).div_ceil(chunk) + 100_000usize.div_ceil(chunk)
    );
    let g = codegen::generate(&p.kernels[0]);
    for entry in ["arr_main", "arr_block", "arr_split", "arr_finish"] {
        assert!(
            g.source.contains(&format!("void __launch_bounds__(256) {entry}(")),
            "{entry}"
        );
    }
    assert!(g.finish && g.part_bytes == layout.chunks * 4);
    let launches: Vec<&str> = codegen::segment_launches(&p.kernels[0]).iter().map(|l| l.0).collect();
    assert_eq!(launches, vec!["arr_main", "arr_block", "arr_split", "arr_finish"]);
    insta::assert_snapshot!("segment_skewed", text);
}

#[test]
fn segment_layout_lists_ids_by_class() {
    use arr::graph::op::SegLayout;
    // lengths 2, 40000 (split: 5 chunks), 0, 2000 (block), 1
    let (layout, lay) = SegLayout::from_offsets(&[0, 2, 40_002, 40_002, 42_002, 42_003]);
    assert_eq!((layout.short, layout.block, layout.split, layout.chunks), (3, 1, 1, 5));
    assert_eq!(layout.max_len, 40_000);
    // ids: short 0, 2, 4; block 3; split 1; then the chunk prefix 0, 5
    assert_eq!(lay, vec![0, 2, 4, 3, 1, 0, 5]);
    // all short: one tile owning all three segments, its region ending at offset 10
    let (all_short, lay) = SegLayout::from_offsets(&[0, 3, 3, 10]);
    assert!(!all_short.ordered());
    assert_eq!((all_short.tiles, all_short.short_mean, lay), (1, 4, vec![0, 3, 10]));
    let (uneven, lay) = SegLayout::from_offsets(&[0, 1, 1, 2, 3, 4, 5, 45]);
    assert_eq!((uneven.tiles, uneven.max_len, lay), (1, 40, vec![0, 7, 45]));
    // no values at all: one tile, every segment empty
    let (empty, lay) = SegLayout::from_offsets(&[0, 0, 0]);
    assert_eq!((empty.tiles, lay), (1, vec![0, 2, 0]));
}

#[test]
fn segment_tiles_own_the_segments_starting_in_them() {
    use arr::graph::op::{SEG_TILE, SegLayout};
    // ragged lengths with runs of empty segments, checked against a plain linear scan
    let ls = lengths(20_000, |r| {
        if r % 7 == 0 {
            0
        } else if r % 5 == 0 {
            1024
        } else {
            r % 9
        }
    });
    let mut offs = vec![0i64];
    for &l in &ls {
        offs.push(offs[offs.len() - 1] + l as i64);
    }
    let total = offs[offs.len() - 1] as usize;
    let (layout, lay) = SegLayout::from_offsets(&offs);
    let tiles = layout.tiles;
    assert_eq!(tiles, total.div_ceil(SEG_TILE));
    assert_eq!(lay.len(), 2 * tiles + 1);
    let n = ls.len();
    for (k, &first) in lay[..=tiles].iter().enumerate() {
        let want = if k == tiles {
            n
        } else {
            (0..n).find(|&s| offs[s] >= (k * SEG_TILE) as i64).unwrap_or(n)
        };
        assert_eq!(first as usize, want, "first segment of tile {k}");
    }
    for t in 0..tiles {
        // a region ends where the next tile's first segment starts, at most one segment past the tile
        let end = lay[tiles + 1 + t];
        assert_eq!(end, offs[lay[t + 1] as usize], "region end of tile {t}");
        let tile_end = ((t + 1) * SEG_TILE).min(total) as i64;
        assert!(end >= tile_end && end <= tile_end + layout.max_len as i64, "tile {t}");
    }
}

#[test]
fn middle_axis_reduction_without_transpose() {
    // (64, 4096, 64) over axis 1: kept axes in parallel (a thread each), the middle axis looped
    let x = input(&[64, 4096, 64]);
    let s = reduce(ReduceOp::Sum, &x, &[1]);
    let p = plan_of(&[&s]);
    assert_eq!(strategies(&p), vec!["reduce-cols"]);
    // over axes (0, 2) of a rank-3 array: the innermost reduced axis is contiguous
    let t = input(&[6, 5, 7]);
    let r = reduce(ReduceOp::Sum, &t, &[0, 2]);
    assert_eq!(strategies(&check(&r, &[&t])), vec!["reduce-rows"]);
    // over axes (0, 1) of a rank-3 array: kept axis contiguous, two reduced axes looped
    let r = reduce(ReduceOp::Max, &t, &[0, 1]);
    assert_eq!(strategies(&check(&r, &[&t])), vec!["reduce-cols"]);
    insta::assert_snapshot!("sum_middle_axis", explain(&[&s], &DeviceInfo::reference()));
}

#[test]
fn reducing_only_size_one_axes_is_general() {
    // the reduced axes collapse away: no axis for the row or column templates to walk
    let t = input(&[1, 7, 16]);
    assert_eq!(
        strategies(&check(&reduce(ReduceOp::Sum, &t, &[0]), &[&t])),
        vec!["reduce-general"]
    );
    let u = input(&[64, 1]);
    assert_eq!(
        strategies(&check(&reduce(ReduceOp::Sum, &u, &[1]), &[&u])),
        vec!["reduce-general"]
    );
}

#[test]
#[ignore = "writes the generated sources of the issue 4 kernels for bench/proto"]
fn dump_issue4_sources() {
    let ls = lengths(3000, |r| 1 + r % 63);
    let seg = segment_of(ReduceOp::Sum, &input_f32(&[ls.iter().sum()]), &ls);
    let full = |p: &Plan| codegen::generate(&p.kernels[0]).source;
    std::fs::write("bench/proto/arr_src/segsum.cu", full(&plan_of(&[&seg]))).unwrap();
    let line = scan_of(ScanOp::Sum, &input_f32(&[1 << 28]), 0);
    let p = plan_of(&[&line]);
    std::fs::write("bench/proto/arr_src/cumsum.cu", full(&p)).unwrap();
}

// ---- multi-output reductions (gpu-fusion2) ----

/// Plans `outs` together, runs the plan on the host (over every ready input
/// of the graph) and compares each with the oracle.
fn check_many(outs: &[&Array]) -> Plan {
    let p = plan_of(outs);
    let roots: Vec<_> = outs.iter().map(|a| a.node.clone()).collect();
    let mut leaves: Vec<Array> = Vec::new();
    for n in pending_in_order(&roots) {
        if let NodeState::Pending { inputs, .. } = &*n.state.borrow() {
            leaves.extend(inputs.iter().filter(|a| a.is_ready()).cloned());
        }
    }
    let got = run_plan(&p, &leaves.iter().collect::<Vec<_>>());
    for out in outs {
        let want = oracle(out, &mut HashMap::new());
        let got = &got[&out.node.id];
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() <= 1e-9 * w.abs().max(1.0),
                "element {i}: plan gives {g}, graph means {w}"
            );
        }
    }
    p
}

/// A two-dimensional n-body step of bodies at `x`, `y`: the row sums of the
/// pairwise differences times their table `w`, the moved positions, and `w`.
fn pair_sums(x: &Array, y: &Array) -> [Array; 5] {
    let pair = |p: &Array| bin(BinaryOp::Sub, &newaxis(p, 0), &newaxis(p, 1));
    let (dx, dy) = (pair(x), pair(y));
    let r2 = bin(
        BinaryOp::Add,
        &bin(BinaryOp::Mul, &dx, &dx),
        &bin(BinaryOp::Mul, &dy, &dy),
    );
    let w = un(UnaryOp::Sqrt, &bin(BinaryOp::Add, &r2, &scalar(0.5, DType::F64)));
    let vx = reduce(ReduceOp::Sum, &bin(BinaryOp::Mul, &dx, &w), &[1]);
    let vy = reduce(ReduceOp::Sum, &bin(BinaryOp::Mul, &dy, &w), &[1]);
    let x2 = bin(BinaryOp::Add, x, &vx);
    let y2 = bin(BinaryOp::Add, y, &vy);
    [vx, vy, x2, y2, w]
}

/// An n-body step's shape: three sums over the rows of one pairwise table,
/// each read again after them (the velocities, then the positions).
#[test]
fn sibling_row_sums_read_later_are_one_row_resident_kernel_on_a_gpu() {
    let (x, y) = (input(&[40]), input(&[40]));
    let [vx, vy, x2, y2, w] = pair_sums(&x, &y);
    let top = reduce(ReduceOp::Max, &w, &[1]);
    let p = check_many(&[&vx, &vy, &x2, &y2, &top]);
    assert_eq!(strategies(&p), vec!["row-resident"]);
    let Strategy::RowResident { stages, extra, .. } = &p.kernels[0].strategy else {
        unreachable!()
    };
    assert_eq!((stages.len(), extra.len()), (3, 4));
    assert!(p.kernels[0].bytes_read < 40 * 40 * 8, "x and y read, no table");
    // the CPU executor runs a row-resident body a row at a time: not for this
    let outputs: Vec<_> = [&vx, &vy, &x2, &y2, &top].iter().map(|a| a.node.clone()).collect();
    let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
    assert!(!strategies(&cpu).contains(&"row-resident"), "{:?}", strategies(&cpu));
    // a value per element read later ends the run there, as before
    let e = un(UnaryOp::Exp, &bin(BinaryOp::Sub, &newaxis(&x, 0), &newaxis(&x, 1)));
    let s = reduce(ReduceOp::Sum, &e, &[1]);
    let p = check_many(&[&e, &s]);
    assert!(!strategies(&p).contains(&"row-resident"), "{:?}", strategies(&p));
}

/// The same step with rows longer than the CPU keeps in registers: one
/// row-resident kernel there too, its rows streamed (`rows_stream`), with no
/// n x n table; a softmax's rows, whose second pass reads the first's
/// result per element, are not streamed.
#[test]
fn long_sibling_row_sums_stream_on_the_cpu() {
    let n = 3000;
    let (x, y) = (input(&[n]), input(&[n]));
    let [vx, vy, x2, y2, _] = pair_sums(&x, &y);
    let outputs: Vec<_> = [&vx, &vy, &x2, &y2].iter().map(|a| a.node.clone()).collect();
    let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
    assert_eq!(strategies(&cpu), vec!["row-resident"]);
    assert!(arr::plan::rows_stream(&cpu.kernels[0]));
    assert!(cpu.kernels[0].bytes_read < (n * 8 * 8) as u64, "x and y read, no table");
    let x = input(&[4, n]);
    let soft = vec![softmax_rows(&x).node];
    let soft = plan(&pending_in_order(&soft), &soft, &DeviceInfo::for_cpu());
    assert_eq!(strategies(&soft), vec!["row-resident"]);
    assert!(!arr::plan::rows_stream(&soft.kernels[0]));
}

fn mean_all(x: &Array) -> Array {
    let n = scalar(x.shape().iter().product::<usize>() as f64, DType::F64);
    let axes: Vec<usize> = (0..x.shape().len()).collect();
    bin(BinaryOp::Div, &reduce(ReduceOp::Sum, x, &axes), &n)
}

/// Black-Scholes's shape: two means of expressions over shared temporaries.
fn two_means(x: &Array) -> (Array, Array) {
    let t = un(UnaryOp::Exp, x);
    let y = bin(BinaryOp::Mul, x, x);
    let call = bin(BinaryOp::Sub, &bin(BinaryOp::Mul, &t, x), &y);
    let put = bin(BinaryOp::Sub, &y, &un(UnaryOp::Tanh, &t));
    (mean_all(&call), mean_all(&put))
}

#[test]
fn sibling_means_share_one_pass_over_their_inputs() {
    let x = input(&[1000]);
    let (a, b) = two_means(&x);
    let p = check_many(&[&a, &b]);
    assert_eq!(strategies(&p), vec!["reduce-all-multi"]);
    let kp = &p.kernels[0];
    // the shared temporaries stream: x is the one buffer the body reads, once
    assert_eq!(kp.operands.len(), 1, "{kp}");
    assert_eq!(kp.bytes_read - 16, 1000 * 8, "x once, plus the two counts");
    assert_eq!(kp.extra_outputs(), vec![(b.node.id, DType::F64, vec![])]);
    // exp(x) is computed once for both outputs
    let exps = kp
        .body
        .iter()
        .filter(|s| matches!(s.inst, Inst::Unary(UnaryOp::Exp, _)))
        .count();
    assert_eq!(exps, 1);
    // the CPU executor plans each reduction on its own
    let outputs = vec![a.node.clone(), b.node.clone()];
    let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
    assert!(!strategies(&cpu).contains(&"reduce-all-multi"), "{cpu}");
    let (a, b) = two_means(&input(&[24]));
    insta::assert_snapshot!("two_means", explain(&[&a, &b], &DeviceInfo::reference()));
}

#[test]
fn min_and_max_of_one_array_are_one_kernel() {
    for shape in [vec![7], vec![33, 65], vec![4, 5, 6]] {
        let x = input(&shape);
        let axes: Vec<usize> = (0..shape.len()).collect();
        let lo = reduce(ReduceOp::Min, &x, &axes);
        let hi = reduce(ReduceOp::Max, &x, &axes);
        let s = reduce(ReduceOp::Sum, &bin(BinaryOp::Mul, &x, &x), &axes);
        let p = check_many(&[&lo, &hi, &s]);
        assert_eq!(strategies(&p), vec!["reduce-all-multi"], "{shape:?}");
        // a transposed view of the same array is the same iteration space once collapsed
        let t = x.with_view(x.view.permute(&(0..shape.len()).rev().collect::<Vec<_>>()));
        let lo_t = reduce(ReduceOp::Min, &t, &axes);
        let p = check_many(&[&lo_t, &hi]);
        assert_eq!(p.kernels.len(), if shape.len() == 1 { 1 } else { 2 }, "{p}");
    }
}

#[test]
fn a_reduction_that_needs_another_is_not_its_sibling() {
    // var = mean((x - mean(x))^2) with the mean an output too: two passes
    let x = input(&[500]);
    let m = mean_all(&x);
    let d = bin(BinaryOp::Sub, &x, &m);
    let v = mean_all(&bin(BinaryOp::Mul, &d, &d));
    let p = check_many(&[&m, &v]);
    assert_eq!(strategies(&p), vec!["reduce-all", "reduce-all"]);
    // the standard library's var computes its own mean: that one pairs with the output mean
    let m2 = mean_all(&x);
    let d2 = bin(BinaryOp::Sub, &x, &m2);
    let v2 = mean_all(&bin(BinaryOp::Mul, &d2, &d2));
    let p = check_many(&[&m, &v2]);
    assert_eq!(strategies(&p), vec!["reduce-all-multi", "reduce-all"]);
}

#[test]
fn a_kernel_reading_a_sibling_runs_after_the_merged_kernel() {
    let x = input(&[300]);
    let z = un(UnaryOp::Tanh, &x);
    let a = reduce(ReduceOp::Sum, &x, &[0]);
    // read between the two reductions in graph order
    let b = bin(BinaryOp::Mul, &un(UnaryOp::Abs, &x), &a);
    let c = reduce(ReduceOp::Max, &bin(BinaryOp::Add, &z, &x), &[0]);
    let p = check_many(&[&a, &b, &c]);
    assert_eq!(strategies(&p), vec!["reduce-all-multi", "map"]);
    let g = codegen::generate(&p.kernels[0]);
    assert!(g.problems.is_empty(), "{:?}", g.problems);
    assert!(g.finish);
    assert!(g.params.contains(&codegen::Param::OutN(1)));
    assert!(!g.params.contains(&codegen::Param::OutN(2)));
    assert_eq!(
        g.source.matches("f_body(").count(),
        3,
        "declared once, called in the vector and tail loops"
    );
}

// ---- half floats on the GPU: the kernels store 16 bits and compute in float ----

fn input_half(shape: &[usize], dtype: DType) -> Array {
    let n: usize = shape.iter().product();
    let vals = (0..n).map(|i| (i % 29) as f64 / 8.0 - 1.5);
    let data = match dtype {
        DType::F16 => HostData::F16(vals.map(half::f16::from_f64).collect()),
        _ => HostData::BF16(vals.map(half::bf16::from_f64).collect()),
    };
    Array::from_host(data, shape)
}

fn cast(a: &Array, dtype: DType) -> Array {
    Array::pending(Op::Cast, vec![a.clone()], dtype, a.shape(), None)
}

fn typed(op: Op, inputs: Vec<Array>, dtype: DType, shape: &[usize]) -> Array {
    Array::pending(op, inputs, dtype, shape, None)
}

/// Every strategy a half-float graph reaches generates a module that names
/// the 16-bit types, accumulates in float, and has no host-only leftovers.
/// With ARR_DUMP_CUDA=dir the sources are written there for an offline NVRTC
/// check (scripts/nvrtc_check.py); the GPU suite runs them against the CPU.
#[test]
fn half_float_sources() {
    let mut cases: Vec<(String, Vec<Array>)> = Vec::new();
    for dt in [DType::F16, DType::BF16] {
        let (a, b) = (input_half(&[1 << 16], dt), input_half(&[1 << 16], dt));
        let half_of = |x: f64| cast(&scalar(x, DType::F64), dt);
        // a fused chain with a scalar operand, unary and binary ops of every kind
        let e = un(
            UnaryOp::Exp,
            &bin(BinaryOp::Add, &bin(BinaryOp::Mul, &a, &b), &half_of(0.5)),
        );
        let w = typed(
            Op::Where,
            vec![
                typed(
                    Op::Binary(BinaryOp::Gt),
                    vec![a.clone(), b.clone()],
                    DType::Bool,
                    &[1 << 16],
                ),
                un(UnaryOp::Abs, &a),
                un(UnaryOp::Sign, &b),
            ],
            dt,
            &[1 << 16],
        );
        let mixed = bin(
            BinaryOp::Add,
            &bin(BinaryOp::Rem, &e, &half_of(0.75)),
            &bin(BinaryOp::Max, &w, &bin(BinaryOp::Pow, &a, &half_of(2.0))),
        );
        let mixed = bin(
            BinaryOp::Sub,
            &mixed,
            &un(UnaryOp::Floor, &un(UnaryOp::Sqrt, &un(UnaryOp::Abs, &a))),
        );
        let is_nan = typed(Op::Unary(UnaryOp::IsNan), vec![a.clone()], DType::Bool, &[1 << 16]);
        cases.push((format!("map_{dt}"), vec![mixed, is_nan]));
        // casts both ways, random and arange sources
        let other = if dt == DType::F16 { DType::BF16 } else { DType::F16 };
        let ints = typed(
            Op::Arange {
                start: -3.0,
                step: 0.37,
            },
            vec![],
            DType::I64,
            &[4096],
        );
        let casts = bin(
            BinaryOp::Add,
            &cast(&cast(&input_half(&[4096], other), DType::I32), dt),
            &cast(&cast(&ints, DType::F64), dt),
        );
        let negative = typed(
            Op::Binary(BinaryOp::Lt),
            vec![
                ints.clone(),
                scalar(0.0, DType::I64).with_view(View::contiguous(&[]).broadcast_to(&[4096])),
            ],
            DType::Bool,
            &[4096],
        );
        let casts = bin(BinaryOp::Add, &casts, &cast(&negative, dt));
        let to_other = cast(&casts, other);
        let uniform = typed(
            Op::Random {
                key: 3,
                dist: Distribution::Uniform,
            },
            vec![],
            dt,
            &[4096],
        );
        let normal = typed(
            Op::Random {
                key: 4,
                dist: Distribution::Normal,
            },
            vec![],
            dt,
            &[4096],
        );
        let arange = typed(Op::Arange { start: 0.5, step: 0.1 }, vec![], dt, &[4096]);
        let sources = bin(BinaryOp::Add, &bin(BinaryOp::Add, &uniform, &normal), &arange);
        cases.push((format!("casts_{dt}"), vec![to_other, sources]));
        // reductions: whole array, rows, columns, general, argmax, two outputs of one input
        let m = input_half(&[300, 512], dt);
        let r3 = input_half(&[8, 16, 32], dt);
        cases.push((format!("sum_all_{dt}"), vec![reduce(ReduceOp::Sum, &a, &[0])]));
        cases.push((format!("sum_rows_{dt}"), vec![reduce(ReduceOp::Sum, &m, &[1])]));
        cases.push((format!("max_cols_{dt}"), vec![reduce(ReduceOp::Max, &m, &[0])]));
        cases.push((format!("general_{dt}"), vec![reduce(ReduceOp::Sum, &r3, &[0, 2])]));
        let arg = typed(
            Op::Reduce {
                op: ReduceOp::ArgMax,
                axes: vec![1],
            },
            vec![m.clone()],
            DType::I64,
            &[300],
        );
        cases.push((format!("argmax_{dt}"), vec![arg]));
        let sq = bin(BinaryOp::Mul, &a, &a);
        cases.push((
            format!("multi_{dt}"),
            vec![reduce(ReduceOp::Sum, &a, &[0]), reduce(ReduceOp::Sum, &sq, &[0])],
        ));
        // a row normalisation and a transposed read
        cases.push((
            format!("softmax_{dt}"),
            vec![softmax_rows(&input_half(&[64, 1000], dt))],
        ));
        let t = input_half(&[64, 96], dt);
        let tt = bin(
            BinaryOp::Add,
            &t.with_view(t.view.permute(&[1, 0])),
            &input_half(&[96, 64], dt),
        );
        cases.push((format!("transpose_{dt}"), vec![tt]));
    }
    let mut strategies_seen = std::collections::BTreeSet::new();
    for (name, outs) in &cases {
        let p = plan_of(&outs.iter().collect::<Vec<_>>());
        for (k, kp) in p.kernels.iter().enumerate() {
            let src = codegen::generate(kp).source;
            strategies_seen.insert(kp.strategy.name());
            assert!(src.contains("arr_f16") || src.contains("arr_bf16"), "{name} kernel {k}");
            assert!(!src.contains("has_no_kernels"), "{name} kernel {k}");
            if kp
                .reduce
                .is_some_and(|r| !matches!(r, ReduceOp::ArgMin | ReduceOp::ArgMax))
            {
                assert!(
                    src.contains("(float a, float b)"),
                    "{name} kernel {k}: a half-float reduction accumulates in float"
                );
            }
            dump(&format!("half_{name}_{k}.cu"), &src);
        }
    }
    for want in [
        "map",
        "reduce-all",
        "reduce-rows",
        "reduce-cols",
        "row-resident",
        "transpose-tiled",
    ] {
        assert!(
            strategies_seen.iter().any(|s| s.starts_with(want)),
            "{want} not reached: {strategies_seen:?}"
        );
    }
}

/// The first iteration of an n-body loop whose positions are still pending
/// (`x = rand([n])`): the pairwise table reads a value the plan stores (the
/// positions are read again after it), and is recomputed in each of its two
/// consumers rather than stored as an n x n table, as when the positions
/// are a buffer (later iterations).
#[test]
fn a_pairwise_table_over_a_stored_pending_value_is_recomputed() {
    let x = un(UnaryOp::Exp, &input(&[40]));
    let dx = bin(BinaryOp::Sub, &newaxis(&x, 0), &newaxis(&x, 1));
    let r2 = bin(BinaryOp::Add, &bin(BinaryOp::Mul, &dx, &dx), &scalar(0.5, DType::F64));
    let force = reduce(ReduceOp::Sum, &bin(BinaryOp::Div, &dx, &r2), &[1]);
    let x2 = bin(BinaryOp::Add, &x, &force);
    check_many(&[&x2]);
    let outputs = vec![x2.node.clone()];
    let cpu = plan(&pending_in_order(&outputs), &outputs, &DeviceInfo::for_cpu());
    let shapes: Vec<_> = cpu.kernels.iter().map(|k| k.out_shape.clone()).collect();
    assert!(
        !shapes.contains(&vec![40, 40]),
        "{shapes:?}\n{}",
        explain(&[&x2], &DeviceInfo::for_cpu())
    );
}

/// A costly expression (random numbers, a real function) read through a
/// broadcast is stored once rather than computed again for every read (the
/// first step of n-body reads `rand([n])` masses from every row of an n x n
/// table); a cheap one stays fused, and so does a costly one read element
/// for element.
#[test]
fn a_costly_expression_read_through_a_broadcast_is_stored_once() {
    let n = 40;
    let x = input(&[n]);
    let row = |a: &Array| newaxis(a, 0);
    let col = newaxis(&x, 1);
    // random masses down every row: one kernel draws them, the table reads a buffer
    let m = rand_f32(&[n]);
    let xf = input_f32(&[n]);
    let table = bin(BinaryOp::Mul, &row(&m), &newaxis(&xf, 1));
    let p = plan_of(&[&table]);
    assert_eq!(p.kernels.len(), 2, "{p}");
    assert_eq!(p.kernels[0].out_shape, vec![n], "{p}");
    assert!(p.kernels[1].operands.iter().all(|o| o.source == Source::Buffer), "{p}");
    // exp(x) down every row, through a cheap op: stored once, and still right
    let one = scalar(1.0, DType::F64);
    let e = bin(BinaryOp::Add, &un(UnaryOp::Exp, &x), &one);
    let p = check(&bin(BinaryOp::Mul, &row(&e), &col), &[&x, &one]);
    assert_eq!(p.kernels.len(), 2, "{p}");
    // cheap ops down every row stay fused
    let cheap = bin(BinaryOp::Add, &x, &one);
    let p = check(&bin(BinaryOp::Mul, &row(&cheap), &col), &[&x, &one]);
    assert_eq!(p.kernels.len(), 1, "{p}");
    // exp read element for element stays fused
    let p = check(&bin(BinaryOp::Mul, &un(UnaryOp::Exp, &x), &x), &[&x]);
    assert_eq!(p.kernels.len(), 1, "{p}");
    // summed over the broadcast axis: the reduction reads the stored values
    let s = reduce(ReduceOp::Sum, &bin(BinaryOp::Mul, &row(&e), &col), &[1]);
    let p = check(&s, &[&x, &one]);
    assert_eq!(p.kernels.len(), 2, "{p}");
}

/// Two reads of one costly broadcast in one kernel (`w * m[newaxis, :] + m[newaxis, :]`)
/// still store it once rather than share it inside the kernel.
#[test]
fn a_costly_broadcast_read_twice_in_one_kernel_stays_stored() {
    let n = 24;
    let x = input(&[n]);
    let one = scalar(1.0, DType::F64);
    let e = bin(BinaryOp::Add, &un(UnaryOp::Exp, &x), &one);
    let col = newaxis(&x, 1);
    let row = newaxis(&e, 0);
    let out = bin(BinaryOp::Add, &bin(BinaryOp::Mul, &row, &col), &row);
    let p = check(&out, &[&x, &one]);
    assert_eq!(p.kernels.len(), 2, "{p}");
    assert_eq!(p.kernels[0].out_shape, vec![n], "{p}");
}

/// `mean(x, axis=1)` and `var(x, axis=1)` of one array: the row-resident
/// kernel sums each row once for both (the sum both take is one stage), then
/// the centred squares: two reductions a row, not three.
#[test]
fn mean_and_var_of_rows_share_their_sum() {
    let x = input(&[30, 700]);
    let n = scalar(700.0, DType::F64);
    let mean_rows = || bin(BinaryOp::Div, &reduce(ReduceOp::Sum, &x, &[1]), &n);
    let m = mean_rows();
    let d = bin(BinaryOp::Sub, &x, &keep(&mean_rows(), 1));
    let v = bin(
        BinaryOp::Div,
        &reduce(ReduceOp::Sum, &bin(BinaryOp::Mul, &d, &d), &[1]),
        &n,
    );
    for device in [DeviceInfo::reference(), DeviceInfo::for_cpu()] {
        let outputs = vec![m.node.clone(), v.node.clone()];
        let p = plan(&pending_in_order(&outputs), &outputs, &device);
        assert_eq!(strategies(&p), vec!["row-resident"], "{p}");
        let Strategy::RowResident { stages, .. } = &p.kernels[0].strategy else {
            unreachable!()
        };
        assert_eq!(stages.len(), 2, "{p}");
    }
    check_many(&[&m, &v]);
}

/// A CUDA kernel with an integer `%`, `//` or power can set the division
/// flag, so its module is marked as raising (the host checks the flag after
/// it runs); float ones cannot. `//` was unmarked, and `arange(3) // 0` ran
/// on a GPU without E0400.
#[test]
fn integer_division_kernels_raise_and_float_ones_do_not() {
    let n = 4096;
    let ints = || Array::from_host(HostData::I64((0..n as i64).collect()), &[n]);
    for op in [BinaryOp::FloorDiv, BinaryOp::Rem, BinaryOp::Pow] {
        let e = bin(op, &ints(), &ints());
        assert!(codegen::generate(&plan_of(&[&e]).kernels[0]).raises, "{op:?} of i64");
        let f = bin(op, &input(&[n]), &input(&[n]));
        assert!(!codegen::generate(&plan_of(&[&f]).kernels[0]).raises, "{op:?} of f64");
    }
}
