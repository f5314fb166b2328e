//! Shape classes without a GPU: a kernel that meets many shapes (LU's
//! shrinking trailing slices) costs at most two modules, a specialised one
//! for its first shape and a shape-generic one for every later shape; a
//! kernel that meets one shape stays specialised. Counts the distinct module
//! sources the CUDA backend would compile (`ShapeClasses` is what it asks).

use arr::backend::cuda::classes::ShapeClasses;
use arr::backend::cuda::codegen::{self, Generated, Kind, Param, Sizes};
use arr::check::dtype::DType;
use arr::graph::data::HostData;
use arr::graph::op::{BinaryOp, Op, ReduceOp};
use arr::graph::view::View;
use arr::graph::{Array, pending_in_order};
use arr::plan::{DeviceInfo, KernelPlan, plan};
use std::collections::{HashMap, HashSet};

fn matrix(n: usize) -> Array {
    let data: Vec<f64> = (0..n * n).map(|i| (i % 13) as f64 + 1.0).collect();
    Array::from_host(HostData::F64(data), &[n, n])
}

fn view(a: &Array, v: View) -> Array {
    a.with_view(v)
}

fn bin(op: BinaryOp, a: &Array, b: &Array, shape: &[usize]) -> Array {
    let a2 = a.with_view(a.view.broadcast_to(shape));
    let b2 = b.with_view(b.view.broadcast_to(shape));
    Array::pending(Op::Binary(op), vec![a2, b2], a.dtype(), shape, None)
}

fn kernels(out: &Array) -> Vec<KernelPlan> {
    let outputs = vec![out.node.clone()];
    let order = pending_in_order(&outputs);
    plan(&order, &outputs, &DeviceInfo::reference()).kernels
}

/// The kernels of LU step `k` on an n x n matrix: the column divided by the
/// pivot, the trailing update, and a row sum of the update (a reduction).
fn lu_step(a: &Array, n: usize, k: usize) -> (Vec<KernelPlan>, View) {
    let m = n - k - 1;
    let col = view(a, a.view.slice_axis(0, k + 1, m, 1).slice_axis(1, k, 1, 1));
    let pivot = view(a, a.view.slice_axis(0, k, 1, 1).slice_axis(1, k, 1, 1));
    let row = view(a, a.view.slice_axis(0, k, 1, 1).slice_axis(1, k + 1, m, 1));
    let trail_view = a.view.slice_axis(0, k + 1, m, 1).slice_axis(1, k + 1, m, 1);
    let trail = view(a, trail_view.clone());
    let l = bin(BinaryOp::Div, &col, &pivot, &[m, 1]);
    let outer = bin(BinaryOp::Mul, &col, &row, &[m, m]);
    let update = bin(BinaryOp::Sub, &trail, &outer, &[m, m]);
    let sums = Array::pending(
        Op::Reduce {
            op: ReduceOp::Sum,
            axes: vec![1],
        },
        vec![update.clone()],
        DType::F64,
        &[m],
        None,
    );
    let mut ks = kernels(&l);
    ks.extend(kernels(&update));
    ks.extend(kernels(&sums));
    (ks, trail_view)
}

/// Modules by class (the generic source names the class), over a sweep.
fn modules_by_class(n: usize, first_k: usize) -> (HashMap<String, HashSet<String>>, usize) {
    let a = matrix(n);
    let mut classes = ShapeClasses::new();
    let mut by_class: HashMap<String, HashSet<String>> = HashMap::new();
    let mut generic = 0;
    for k in first_k..n - 1 {
        let (ks, trail) = lu_step(&a, n, k);
        let mut gens: Vec<(String, Generated)> = ks
            .iter()
            .map(|kp| (codegen::generate_kind(kp, Kind::Generic).source, classes.kernel(kp)))
            .collect();
        gens.push((
            codegen::scatter(DType::F64, &trail, Kind::Generic).source,
            classes.scatter(DType::F64, &trail),
        ));
        for (class, g) in gens {
            assert!(g.problems.is_empty(), "{:?}", g.problems);
            if g.kind == Kind::Generic {
                generic += 1;
            }
            by_class.entry(class).or_default().insert(g.source);
        }
    }
    (by_class, generic)
}

#[test]
fn a_kernel_meeting_many_shapes_compiles_at_most_two_modules() {
    let (by_class, generic) = modules_by_class(64, 0);
    let modules: usize = by_class.values().map(|s| s.len()).sum();
    for (class, sources) in &by_class {
        assert!(sources.len() <= 2, "{} modules for one class:\n{class}", sources.len());
    }
    // 63 steps of 4 kernels: without shape-generic modules nearly every step compiles anew
    assert!(
        modules <= 2 * by_class.len(),
        "{modules} modules for {} classes",
        by_class.len()
    );
    assert!(modules < 63, "{modules} modules for 63 steps");
    assert!(generic > 100, "only {generic} launches used shape-generic modules");
}

#[test]
fn a_kernel_meeting_one_shape_stays_specialised() {
    let a = matrix(16);
    let mut classes = ShapeClasses::new();
    for _ in 0..3 {
        let (ks, trail) = lu_step(&a, 16, 3);
        for kp in &ks {
            let g = classes.kernel(kp);
            assert_eq!(g.kind, Kind::Specialised);
            assert!(!g.params.iter().any(|p| matches!(p, Param::Dim(_))));
        }
        assert_eq!(classes.scatter(DType::F64, &trail).kind, Kind::Specialised);
    }
}

#[test]
fn generic_modules_take_the_sizes_and_strides_as_parameters() {
    let mut partners = 0;
    let a = matrix(40);
    let (ks, _) = lu_step(&a, 40, 5);
    for kp in &ks {
        let spec = codegen::generate_kind(kp, Kind::Specialised);
        let gen_ = codegen::generate_kind(kp, Kind::Generic);
        if gen_.kind != Kind::Generic {
            continue;
        }
        // the trailing block is 34 x 34 with row stride 40: neither size
        // nor stride may be a constant of the generic source
        let dims = dim_values(&gen_, kp);
        assert!(dims.contains(&34) || dims.contains(&(34 * 34)), "{dims:?}");
        assert!(!gen_.source.contains("(IDX)34"), "{}", gen_.source);
        assert!(!gen_.source.contains("(IDX)40"), "{}", gen_.source);
        assert!(spec.source.contains("(IDX)34") || spec.source.contains("(IDX)1156"));
        // the same class at another shape: the same text and parameter
        // list, whose values come from that shape's plan
        let (ks2, _) = lu_step(&a, 40, 9);
        let other = ks2
            .iter()
            .find(|k| codegen::generate_kind(k, Kind::Generic).source == gen_.source);
        if let Some(other) = other {
            assert_eq!(codegen::generate_kind(other, Kind::Generic).params, gen_.params);
            assert_ne!(dim_values(&gen_, other), dims);
            partners += 1;
        }
    }
    assert!(partners > 0, "no kernel of step 5 has its class at step 9");
}

/// The values `subject` gives `g`'s dimension parameters, in order.
fn dim_values(g: &Generated, subject: &dyn Sizes) -> Vec<i64> {
    g.params
        .iter()
        .filter_map(|p| {
            if let Param::Dim(d) = p {
                Some(subject.dim(*d))
            } else {
                None
            }
        })
        .collect()
}

/// Kernels of many strategies (maps, broadcasts, sliding rows, reductions
/// of every shape with and without epilogues, random and arange operands)
/// and slice scatters, at a sweep of shapes: LU's steps, then a loop over
/// sizes, as `arr explain` plans them for a GPU.
const SWEEP: &str = "for i in 1..7 {
    let m = 3 * i * i + 1
    let n = 5 * i + 2
    let x = rand([m, n])
    let y = rand([m, n], dtype=f64)
    let r = arange(n) * 0.5
    print(sum(x), sum(x, axis=0)[0], sum(x, axis=1)[0], max(y, axis=0)[1], argmax(y, axis=1)[0])
    print(mean(x * r, axis=1)[0], sum(exp(y - max(y, axis=1, keepdims=true)), axis=1)[0])
    let z = x[1:, ::2] * 2.0 + x[:-1, ::2]
    print(sum(z), sum(where(y > 0.5, y, 0.0)[::2, :], axis=0)[0])
    let t = rand([m, 3, n])
    print(sum(t, axis=1)[0, 0], min(t, axis=0)[1, 1], sum(t[:, :, ::2], axis=(0, 2))[0])
    y[1:, 1:] = y[1:, 1:] - y[1:, :1] * y[:1, 1:]
    print(sum(y), sum(transpose(y) * 2.0, axis=1)[0])
    let s = i % 2 + 1
    print(sum(x[:, ::s] * 3.0, axis=1)[0], sum(t[:, :, ::s] + 1.0, axis=1)[0, 0], (t[::s, 1:, :] * t[::s, :2, :])[0, 0, 0])
}
";

/// A module met again is taken from memory, not generated: every module
/// handed out from memory is checked against generation (`CHECK_MEMO`), for
/// every kernel of an LU sweep and of `SWEEP`, under `arr explain` for a GPU
/// (which asks `ShapeClasses` exactly as the CUDA backend does).
#[test]
fn a_remembered_module_is_the_one_generation_gives_at_every_shape() {
    use std::sync::atomic::Ordering;
    arr::backend::cuda::classes::CHECK_MEMO.store(true, Ordering::Relaxed);
    for source in [SWEEP, include_str!("../examples/lu.arr")] {
        let source = source.replace("let n = 1000", "let n = 40");
        let mut s = arr::session::Session::cpu();
        s.start_explaining(Some(DeviceInfo::reference()));
        s.run_source("t.arr", &source).expect("the program runs");
        let report = s.explain_report();
        assert!(report.contains("module: shape-generic"), "{report}");
    }
    // kernels alike but for a stride of 1 against 2 (`offset` writes a unit
    // stride without a multiplication): one key must not serve both
    let x = matrix(9);
    let other = matrix(8);
    let other = view(&other, other.view.slice_axis(1, 0, 4, 1));
    let mut classes = ShapeClasses::new();
    let mut sources = HashSet::new();
    for (first, step) in [(1, 1), (1, 2), (0, 1), (3, 1), (0, 2)] {
        let cols = view(&x, x.view.slice_axis(0, 1, 8, 1).slice_axis(1, first, 4, step));
        for kp in kernels(&bin(BinaryOp::Add, &cols, &other, &[8, 4])) {
            sources.insert(classes.kernel(&kp).source);
        }
    }
    // two classes, each met at one shape (offsets are launch parameters)
    assert_eq!(sources.len(), 2);
    // directly: LU's kernels at every step, and their scatters
    let n = 48;
    let a = matrix(n);
    let mut classes = ShapeClasses::new();
    let mut seen = HashSet::new();
    let mut after_first_pass = 0;
    for pass in 0..2 {
        for k in 0..n - 1 {
            let (ks, trail) = lu_step(&a, n, k);
            for kp in &ks {
                let g = classes.kernel(kp);
                assert!(g.problems.is_empty(), "{:?}", g.problems);
                seen.insert(g.source);
            }
            seen.insert(classes.scatter(DType::F64, &trail).source);
        }
        // a class's first meeting generates its generic source (the class's
        // name) and its specialised one; nothing else is generated
        let generated = classes.sources_generated();
        assert!(
            generated <= 2 * seen.len(),
            "{generated} sources for {} modules",
            seen.len()
        );
        if pass == 0 {
            assert!(seen.len() < 40, "{} modules for {} steps", seen.len(), n - 1);
            after_first_pass = generated;
        } else {
            // every shape met before: all from memory
            assert_eq!(generated, after_first_pass);
        }
    }
}

/// The `Dim` values a launch passes are the sizes and strides a specialised
/// source writes as constants: the specialised source is the generic one
/// with each `dimN` replaced by its value, over LU's steps and the
/// reductions of a [m, 3, n] array along every axis and axis pair.
#[test]
fn a_specialised_source_is_its_generic_one_with_the_dimensions_written_in() {
    let mut checked = 0;
    for (m, n) in [(5, 7), (33, 64), (300, 17), (1000, 3)] {
        let a = matrix(m.max(n) + 2);
        let (mut ks, _) = lu_step(&a, m.max(n) + 2, 1);
        let t = Array::from_host(HostData::F64(vec![1.5; m * 3 * n]), &[m, 3, n]);
        let t = view(&t, t.view.slice_axis(2, 0, n.div_ceil(2), 2));
        for axes in [
            vec![0],
            vec![1],
            vec![2],
            vec![0, 1],
            vec![0, 2],
            vec![1, 2],
            vec![0, 1, 2],
        ] {
            let shape: Vec<usize> = (0..3).filter(|d| !axes.contains(d)).map(|d| t.shape()[d]).collect();
            let r = Array::pending(
                Op::Reduce {
                    op: ReduceOp::Max,
                    axes,
                },
                vec![t.clone()],
                DType::F64,
                &shape,
                None,
            );
            ks.extend(kernels(&r));
        }
        for kp in &ks {
            let generic = codegen::generate_kind(kp, Kind::Generic);
            if generic.kind != Kind::Generic {
                continue;
            }
            let values = dim_values(&generic, kp);
            let mut text = generic.source.clone();
            // highest first, so that dim1 does not eat into dim10
            for (i, v) in values.iter().enumerate().rev() {
                text = text.replace(&format!(", i64 dim{i}"), "");
                text = text.replace(&format!("dim{i}"), &v.to_string());
            }
            assert_eq!(text, codegen::generate_kind(kp, Kind::Specialised).source, "{kp}");
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} generic kernels checked");
}

/// Every strategy's source fills every template hole it names and no other:
/// scans of several lengths (one chunk, chunked, warp-per-line, look-back)
/// over both axes, on the reference device.
#[test]
fn scan_modules_have_no_template_problems() {
    use arr::graph::op::ScanOp;
    for (rows, cols) in [(3, 5), (64, 33), (4500, 131), (1, 100_000), (100_000, 2)] {
        let a = Array::from_host(HostData::F32(vec![1.0; rows * cols]), &[rows, cols]);
        for axis in 0..2 {
            for op in [ScanOp::Sum, ScanOp::Max] {
                let s = Array::pending(Op::Scan { op, axis }, vec![a.clone()], DType::F32, &[rows, cols], None);
                for kp in kernels(&s) {
                    for kind in [Kind::Specialised, Kind::Generic] {
                        let g = codegen::generate_kind(&kp, kind);
                        assert!(
                            g.problems.is_empty(),
                            "{:?} {rows}x{cols}: {:?}",
                            kp.strategy,
                            g.problems
                        );
                    }
                }
            }
        }
    }
}
