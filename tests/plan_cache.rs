//! The plan cache without a GPU: a loop that rebuilds the same graph plans
//! once, and every plan it hands out is the plan the planner makes for the
//! new graph (node ids, view offsets and random keys re-bound).

use arr::check::dtype::DType;
use arr::graph::data::HostData;
use arr::graph::op::{BinaryOp, Distribution, Op};
use arr::graph::{Array, Buffer, NodeState, pending_in_order};
use arr::plan::cache::PlanCache;
use arr::plan::{DeviceInfo, Plan, Source, plan};

fn leaf(shape: &[usize]) -> Array {
    let n: usize = shape.iter().product();
    Array::from_host(HostData::F32((0..n).map(|i| i as f32).collect()), shape)
}

fn bin(op: BinaryOp, a: &Array, b: &Array) -> Array {
    let shape = a.shape().to_vec();
    let b2 = b.with_view(b.view.broadcast_to(&shape));
    Array::pending(Op::Binary(op), vec![a.clone(), b2], DType::F32, &shape, None)
}

fn scalar(x: f32) -> Array {
    Array::from_host(HostData::F32(vec![x]), &[])
}

/// The cached plan for `out`'s graph, and the planner's own plan for it.
fn both(cache: &mut PlanCache<()>, out: &Array) -> (Plan, Plan, bool) {
    let outputs = vec![out.node.clone()];
    let order = pending_in_order(&outputs);
    let fresh = plan(&order, &outputs, &DeviceInfo::reference());
    let got = cache.get_or_plan(&order, &outputs, || plan(&order, &outputs, &DeviceInfo::reference()));
    (got.plan, fresh, got.hit)
}

/// Stands in for a backend's realize: the node becomes a ready buffer.
fn realize(a: &Array) {
    let n = a.shape().iter().product();
    *a.node.state.borrow_mut() = NodeState::Ready(Buffer::host(HostData::F32(vec![0.0; n])));
}

#[test]
fn a_loop_plans_once() {
    // x = x + 1.0, realized each iteration: a new leaf and a new node every time
    let mut cache = PlanCache::new();
    let mut x = leaf(&[1000]);
    for i in 0..20 {
        let y = bin(BinaryOp::Add, &x, &scalar(1.0));
        let (got, fresh, hit) = both(&mut cache, &y);
        assert_eq!(got, fresh, "iteration {i}");
        assert_eq!(hit, i > 0);
        assert_eq!(got.kernels[0].output, y.node.id);
        realize(&y);
        x = y;
    }
    assert_eq!(cache.stats.plans, 1);
    assert_eq!(cache.stats.hits, 19);
    assert_eq!(cache.len(), 1);
}

#[test]
fn a_stencil_loop_plans_once() {
    // heat-equation step: 0.25 * (up + down + left + right) over interior slices of one leaf
    let mut cache = PlanCache::new();
    let (n, m) = (34, 66);
    let mut a = leaf(&[n, m]);
    for i in 0..5 {
        let s = |r: usize, c: usize| a.with_view(a.view.slice_axis(0, r, n - 2, 1).slice_axis(1, c, m - 2, 1));
        let sum = bin(
            BinaryOp::Add,
            &bin(BinaryOp::Add, &s(0, 1), &s(2, 1)),
            &bin(BinaryOp::Add, &s(1, 0), &s(1, 2)),
        );
        let out = bin(BinaryOp::Mul, &sum, &scalar(0.25));
        let (got, fresh, hit) = both(&mut cache, &out);
        assert_eq!(got, fresh, "iteration {i}");
        assert_eq!(hit, i > 0);
        realize(&out);
        // the next iteration reads a fresh (n, m) leaf
        a = leaf(&[n, m]);
    }
    assert_eq!((cache.stats.plans, cache.stats.hits), (1, 4));
}

#[test]
fn moving_windows_rebind_their_offsets() {
    // x[16 i : 16 i + 64] * 2: the window's offset is a run-time parameter
    let mut cache = PlanCache::new();
    let x = leaf(&[1024]);
    for i in 0..6 {
        let w = x.with_view(x.view.slice_axis(0, 16 * i, 64, 1));
        let y = bin(BinaryOp::Mul, &w, &scalar(2.0));
        let (got, fresh, hit) = both(&mut cache, &y);
        assert_eq!(got, fresh, "window {i}");
        assert_eq!(got.kernels[0].operands[0].view.offset, 16 * i);
        assert_eq!(hit, i > 0);
    }
    assert_eq!(cache.stats.plans, 1);
}

#[test]
fn a_misaligned_window_is_replanned_for_a_vectorised_kernel() {
    let mut cache = PlanCache::new();
    let x = leaf(&[1024]);
    let mut hits = Vec::new();
    for start in [0, 1, 2, 3] {
        let w = x.with_view(x.view.slice_axis(0, start, 64, 1));
        let y = bin(BinaryOp::Mul, &w, &scalar(2.0));
        let (got, fresh, hit) = both(&mut cache, &y);
        // offsets 1, 2, 3 are unaligned: the planner drops to scalar loads there
        assert_eq!(got, fresh, "window at {start}");
        hits.push(hit);
    }
    // 0 -> 1 breaks 4-wide alignment (re-plan); 1 -> 2 -> 3 reuse the scalar plan
    assert_eq!(hits, vec![false, false, true, true]);
    assert_eq!(cache.stats.plans, 2);
}

#[test]
fn two_views_of_one_leaf_moving_apart_is_a_miss() {
    let mut cache = PlanCache::new();
    let x = leaf(&[256]);
    let mut hits = Vec::new();
    for (i, j) in [(0usize, 64usize), (0, 128), (32, 160)] {
        let a = x.with_view(x.view.slice_axis(0, i, 32, 1));
        let b = x.with_view(x.view.slice_axis(0, j, 32, 1));
        let y = bin(BinaryOp::Add, &a, &b);
        let (got, fresh, hit) = both(&mut cache, &y);
        assert_eq!(got, fresh, "views at {i} and {j}");
        hits.push(hit);
    }
    // (0, 64) -> (0, 128): one view moved, the other not; (0, 128) -> (32, 160): both by 32
    assert_eq!(hits, vec![false, false, true]);
}

#[test]
fn random_keys_are_rebound() {
    let mut cache = PlanCache::new();
    for key in [7u64, 8, 99] {
        let r = Array::pending(
            Op::Random {
                key,
                dist: Distribution::Uniform,
            },
            vec![],
            DType::F32,
            &[100],
            None,
        );
        let y = bin(BinaryOp::Mul, &r, &scalar(3.0));
        let (got, fresh, _) = both(&mut cache, &y);
        assert_eq!(got, fresh);
        let keys: Vec<u64> = got.kernels[0]
            .operands
            .iter()
            .filter_map(|o| match o.source {
                Source::Random { key, .. } => Some(key),
                _ => None,
            })
            .collect();
        assert_eq!(keys, vec![key]);
    }
    assert_eq!((cache.stats.plans, cache.stats.hits), (1, 2));
}

#[test]
fn other_shapes_dtypes_and_ops_are_misses() {
    let mut cache = PlanCache::new();
    let graphs = [
        bin(BinaryOp::Add, &leaf(&[10]), &scalar(1.0)),
        bin(BinaryOp::Add, &leaf(&[11]), &scalar(1.0)),
        bin(BinaryOp::Sub, &leaf(&[11]), &scalar(1.0)),
        bin(BinaryOp::Sub, &leaf(&[11, 1]), &scalar(1.0)),
        Array::pending(
            Op::Binary(BinaryOp::Sub),
            vec![
                Array::from_host(HostData::F64(vec![0.0; 11]), &[11]),
                Array::from_host(HostData::F64(vec![1.0]), &[]).with_view(arr::graph::view::View {
                    shape: smallvec::smallvec![11],
                    strides: smallvec::smallvec![0],
                    offset: 0,
                }),
            ],
            DType::F64,
            &[11],
            None,
        ),
    ];
    for g in &graphs {
        let (got, fresh, hit) = both(&mut cache, g);
        assert_eq!(got, fresh);
        assert!(!hit);
    }
    assert_eq!(cache.stats.plans, graphs.len() as u64);
    // and each of them hits the second time
    for g in &graphs {
        let outputs = vec![g.node.clone()];
        let order = pending_in_order(&outputs);
        assert!(cache.get_or_plan(&order, &outputs, || unreachable!("cached")).hit);
    }
}

#[test]
fn payloads_stay_with_their_kernels() {
    let mut cache: PlanCache<&'static str> = PlanCache::new();
    let x = leaf(&[64]);
    let y = bin(BinaryOp::Add, &x, &scalar(1.0));
    let outputs = vec![y.node.clone()];
    let order = pending_in_order(&outputs);
    let first = cache.get_or_plan(&order, &outputs, || plan(&order, &outputs, &DeviceInfo::reference()));
    assert_eq!(cache.payload(&first, 0), None);
    cache.set_payload(&first, 0, "module");
    let y2 = bin(BinaryOp::Add, &leaf(&[64]), &scalar(1.0));
    let outputs = vec![y2.node.clone()];
    let order = pending_in_order(&outputs);
    let second = cache.get_or_plan(&order, &outputs, || unreachable!("cached"));
    assert_eq!(cache.payload(&second, 0), Some(&"module"));
}

#[test]
fn a_shape_generic_hit_carries_no_payload() {
    // a module made for one size must not be launched for another: the
    // generic entry's index is not an exact entry's
    let mut cache: PlanCache<&'static str> = PlanCache::admit_on_repeat().shape_generic(DeviceInfo::for_cpu());
    let a = leaf(&[64, 64]);
    let mut last = None;
    // width 8 twice: its exact entry (index 0) is kept and gets a module
    for w in [8, 8, 9, 10, 11] {
        let y = bin(BinaryOp::Mul, &a.with_view(a.view.slice_axis(1, 0, w, 1)), &scalar(2.0));
        let outputs = vec![y.node.clone()];
        let order = pending_in_order(&outputs);
        let got = cache.get_or_plan(&order, &outputs, || plan(&order, &outputs, &DeviceInfo::for_cpu()));
        cache.set_payload(&got, 0, "module");
        last = Some(got);
    }
    let last = last.expect("five lookups");
    assert!(last.generic && last.hit);
    assert_eq!(cache.payload(&last, 0), None);
}

#[test]
fn admit_on_repeat_caches_a_graph_the_second_time() {
    // the fused CPU executor's cache: a graph seen once is planned, not kept;
    // the second time it is planned and kept; from the third on it hits, and
    // every plan handed out is still the planner's own
    let mut cache = PlanCache::admit_on_repeat();
    let mut x = leaf(&[1000]);
    for i in 0..6 {
        let y = bin(BinaryOp::Add, &x, &scalar(1.0));
        let (got, fresh, hit) = both(&mut cache, &y);
        assert_eq!(got, fresh, "iteration {i}");
        assert_eq!(hit, i > 1, "iteration {i}");
        assert_eq!(cache.len(), usize::from(i > 0), "iteration {i}");
        realize(&y);
        x = y;
    }
    assert_eq!((cache.stats.plans, cache.stats.hits), (2, 4));
    // a loop whose graph changes shape every step (LU's trailing slice) keeps nothing
    let mut cache = PlanCache::admit_on_repeat();
    for n in (1..40).rev() {
        let y = bin(BinaryOp::Mul, &leaf(&[n, n]), &scalar(2.0));
        let (got, fresh, hit) = both(&mut cache, &y);
        assert_eq!(got, fresh, "n = {n}");
        assert!(!hit);
    }
    assert!(cache.is_empty());
    // a graph of more than a few pending nodes is kept the first time
    let mut cache = PlanCache::admit_on_repeat();
    let x = leaf(&[64]);
    for i in 0..3 {
        let mut y = bin(BinaryOp::Add, &x, &scalar(1.0));
        for _ in 0..12 {
            y = bin(BinaryOp::Mul, &y, &scalar(0.5));
        }
        let (got, fresh, hit) = both(&mut cache, &y);
        assert_eq!(got, fresh, "iteration {i}");
        assert_eq!(hit, i > 0, "iteration {i}");
    }
}

/// As `both`, and the cached plan handed back to the cache after use (as the
/// CPU executor does), so that the next hit re-binds it in place.
fn both_recycled(cache: &mut PlanCache<()>, out: &Array) -> (Plan, Plan, bool) {
    let outputs = vec![out.node.clone()];
    let order = pending_in_order(&outputs);
    let fresh = plan(&order, &outputs, &DeviceInfo::reference());
    let got = cache.get_or_plan(&order, &outputs, || plan(&order, &outputs, &DeviceInfo::reference()));
    let (copy, hit) = (got.plan.clone(), got.hit);
    cache.recycle(got);
    (copy, fresh, hit)
}

#[test]
fn a_recycled_plan_is_rebound_in_place_as_a_fresh_one_would_be() {
    // a moving window times a random array: ids, offsets and keys all change
    let mut cache = PlanCache::new();
    let x = leaf(&[1024]);
    for i in 0..6u64 {
        let w = x.with_view(x.view.slice_axis(0, 16 * i as usize, 64, 1));
        let r = Array::pending(
            Op::Random {
                key: 100 + i,
                dist: Distribution::Uniform,
            },
            vec![],
            DType::F32,
            &[64],
            None,
        );
        let y = bin(BinaryOp::Mul, &w, &r);
        let (got, fresh, hit) = both_recycled(&mut cache, &y);
        assert_eq!(got, fresh, "iteration {i}");
        assert_eq!(hit, i > 0);
    }
    assert_eq!((cache.stats.plans, cache.stats.hits), (1, 5));
}

#[test]
fn a_plan_handed_back_after_its_entry_was_replaced_is_not_reused() {
    let mut cache = PlanCache::new();
    let x = leaf(&[1024]);
    let window = |start: usize| {
        bin(
            BinaryOp::Mul,
            &x.with_view(x.view.slice_axis(0, start, 64, 1)),
            &scalar(2.0),
        )
    };
    // the aligned window's plan (4-wide), kept back while the entry is replaced
    let y0 = window(0);
    let outputs = vec![y0.node.clone()];
    let order = pending_in_order(&outputs);
    let aligned = cache.get_or_plan(&order, &outputs, || plan(&order, &outputs, &DeviceInfo::reference()));
    // offset 1 breaks the alignment: re-planned, the entry replaced by the scalar plan
    let (got, fresh, hit) = both_recycled(&mut cache, &window(1));
    assert!(!hit);
    assert_eq!(got, fresh);
    // the stale 4-wide plan comes back now; the next hit must not take it
    cache.recycle(aligned);
    let (got, fresh, hit) = both_recycled(&mut cache, &window(2));
    assert!(hit);
    assert_eq!(got, fresh, "the scalar plan, re-bound");
}

/// A shape-generic cache for the fused CPU executor's device, the cached
/// plan for `out`'s graph (handed back after), and the planner's own plan for it.
fn both_generic(cache: &mut PlanCache<()>, out: &Array) -> (Plan, Plan, bool) {
    let outputs = vec![out.node.clone()];
    let order = pending_in_order(&outputs);
    let fresh = plan(&order, &outputs, &DeviceInfo::for_cpu());
    let got = cache.get_or_plan(&order, &outputs, || plan(&order, &outputs, &DeviceInfo::for_cpu()));
    // handed back as the CPU executor does: the next generic hit re-binds it in place
    let (copy, hit) = (got.plan.clone(), got.hit);
    cache.recycle(got);
    (copy, fresh, hit)
}

fn generic_cache() -> PlanCache<()> {
    PlanCache::admit_on_repeat().shape_generic(DeviceInfo::for_cpu())
}

#[test]
fn a_shrinking_slice_plans_twice() {
    // LU's update, a[k+1:, k+1:] - a[k+1:, k:k+1] * a[k:k+1, k+1:], on one leaf: a new size every step
    let mut cache = generic_cache();
    let n = 40;
    let a = leaf(&[n, n]);
    let mut hits = Vec::new();
    for k in 0..20 {
        let v = |r0: usize, r1: usize, c0: usize, c1: usize| {
            a.with_view(a.view.slice_axis(0, r0, r1 - r0, 1).slice_axis(1, c0, c1 - c0, 1))
        };
        let col = v(k + 1, n, k, k + 1);
        let row = v(k, k + 1, k + 1, n);
        let out = bin(BinaryOp::Sub, &v(k + 1, n, k + 1, n), &bin(BinaryOp::Mul, &col, &row));
        let (got, fresh, hit) = both_generic(&mut cache, &out);
        assert_eq!(got, fresh, "step {k}");
        hits.push(hit);
    }
    // the first size plans; the second plans and keeps the plan by its generic key; the rest are served
    assert_eq!(hits[..2], [false, false]);
    assert!(hits[2..].iter().all(|&h| h));
    assert_eq!((cache.stats.plans, cache.stats.generic_hits), (2, 18));
}

#[test]
fn a_generic_plan_collapses_for_its_new_sizes() {
    // a[:, :w] * 2 of an (r, 64) leaf: rows apart while w < 64, one run of elements at w = 64
    let mut cache = generic_cache();
    let a = leaf(&[48, 64]);
    for (r, w) in [(8, 16), (9, 17), (10, 64), (11, 30)] {
        let x = a.with_view(a.view.slice_axis(0, 0, r, 1).slice_axis(1, 0, w, 1));
        let y = bin(BinaryOp::Mul, &x, &scalar(2.0));
        let (got, fresh, _) = both_generic(&mut cache, &y);
        assert_eq!(got, fresh, "({r}, {w})");
        let rank = if w == 64 { 1 } else { 2 };
        assert_eq!(got.kernels[0].shape.len(), rank, "({r}, {w})");
    }
    assert_eq!(cache.stats.generic_hits, 2);
}

#[test]
fn equal_sizes_stay_equal_in_a_generic_key() {
    // a square slice and an oblong one are different graphs to a generic key
    let mut cache = generic_cache();
    let a = leaf(&[32, 32]);
    for (r, c) in [(5, 5), (6, 6), (7, 9), (8, 8), (9, 11)] {
        let x = a.with_view(a.view.slice_axis(0, 0, r, 1).slice_axis(1, 0, c, 1));
        let y = bin(BinaryOp::Add, &x, &scalar(1.0));
        let (got, fresh, _) = both_generic(&mut cache, &y);
        assert_eq!(got, fresh, "({r}, {c})");
    }
    // (8, 8) is served by the square entry; (9, 11) is the oblong key's second sight
    assert_eq!(cache.stats.generic_hits, 1);
}

#[test]
fn a_view_between_pending_nodes_that_is_not_aligned_has_no_generic_key() {
    // (x + 1)[1:] * 2: the inner view starts one element in, so composing it depends on sizes
    let mut cache = generic_cache();
    let x = leaf(&[64]);
    for m in [10, 11, 12, 13] {
        let xs = x.with_view(x.view.slice_axis(0, 0, m, 1));
        let y = bin(BinaryOp::Add, &xs, &scalar(1.0));
        let tail = y.with_view(y.view.slice_axis(0, 1, m - 1, 1));
        let z = bin(BinaryOp::Mul, &tail, &scalar(2.0));
        let (got, fresh, hit) = both_generic(&mut cache, &z);
        assert_eq!(got, fresh, "m = {m}");
        assert!(!hit);
    }
    assert_eq!((cache.stats.plans, cache.stats.generic_hits), (4, 0));
}

#[test]
fn a_reduction_is_never_served_by_size() {
    // sum over the rows of a growing slice: a reduction's plan depends on its sizes
    let mut cache = generic_cache();
    let a = leaf(&[16, 64]);
    for w in [8, 9, 10, 11] {
        let x = a.with_view(a.view.slice_axis(1, 0, w, 1));
        let s = Array::pending(
            Op::Reduce {
                op: arr::graph::op::ReduceOp::Sum,
                axes: vec![1],
            },
            vec![x],
            DType::F32,
            &[16],
            None,
        );
        let (got, fresh, _) = both_generic(&mut cache, &s);
        assert_eq!(got, fresh, "w = {w}");
    }
    assert_eq!(cache.stats.generic_hits, 0);
}
