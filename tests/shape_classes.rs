//! Shape classes without a GPU: a kernel that meets many shapes (LU's
//! shrinking trailing slices) costs at most two modules, a specialised one
//! for its first shape and a shape-generic one for every later shape; a
//! kernel that meets one shape stays specialised. Counts the distinct module
//! sources the CUDA backend would compile (`ShapeClasses` is what it asks).

use arr::backend::cuda::classes::ShapeClasses;
use arr::backend::cuda::codegen::{self, Generated, Kind, Param};
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
        let dims: Vec<i64> = gen_
            .params
            .iter()
            .filter_map(|p| if let Param::Dim(v) = p { Some(*v) } else { None })
            .collect();
        assert!(dims.contains(&34) || dims.contains(&(34 * 34)), "{dims:?}");
        assert!(!gen_.source.contains("(IDX)34"), "{}", gen_.source);
        assert!(!gen_.source.contains("(IDX)40"), "{}", gen_.source);
        assert!(spec.source.contains("(IDX)34") || spec.source.contains("(IDX)1156"));
        // the same class at another shape: the same text, other values
        let (ks2, _) = lu_step(&a, 40, 9);
        let other = ks2
            .iter()
            .map(|k| codegen::generate_kind(k, Kind::Generic))
            .find(|g| g.source == gen_.source);
        if let Some(o) = other {
            assert_ne!(o.params, gen_.params);
        }
    }
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
