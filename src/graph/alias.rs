//! Alias analysis for slice assignment: may `a[region] = expr` compute
//! `expr` straight into the region, with no temporary? It may when no
//! element of the region is read after it has been written: every read of
//! the destination's buffer either touches no element of the region
//! ([`disjoint`]), or reads exactly the element being written, through
//! elementwise operations only ([`direct_ok`]). A backend that writes the
//! last kernel's values in place relies on that; anything the analysis
//! cannot prove keeps the realize-then-copy path.

use super::op::{BinaryOp, Op};
use super::view::View;
use super::{Array, Buffer, Node, NodeState};
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// Splits of the recursive overlap search before `disjoint` gives up and
/// answers "may overlap" (conservative): a few per row of a large matrix.
const WORK: usize = 1 << 16;

/// A view's element set as offset plus positive strides (largest first):
/// size-1 and broadcast axes change nothing, a negative stride is the same
/// set walked from the other end.
#[derive(Clone, Debug)]
struct Set {
    offset: i128,
    axes: Vec<(i128, i128)>, // (len, stride > 0)
}

impl Set {
    fn of(v: &View) -> Option<Set> {
        if v.size() == 0 {
            return None;
        }
        let mut offset = v.offset as i128;
        let mut axes = Vec::new();
        for (&d, &s) in v.shape.iter().zip(&v.strides) {
            if d <= 1 || s == 0 {
                continue;
            }
            let (d, s) = (d as i128, s as i128);
            if s < 0 {
                offset += (d - 1) * s;
            }
            axes.push((d, s.abs()));
        }
        axes.sort_by_key(|a| std::cmp::Reverse(a.1));
        Some(Set { offset, axes })
    }

    /// The last element's offset past the first (the span of the inner axes).
    fn extent(&self) -> i128 {
        self.axes.iter().map(|&(d, s)| (d - 1) * s).sum()
    }
}

/// True only when no element of the buffer is reached by both views (a
/// `false` may mean "could not tell"). Exact for views of up to one
/// non-trivial axis each; larger views are split along their outer axis,
/// only where the bounding ranges meet, within a fixed amount of work.
pub fn disjoint(a: &View, b: &View) -> bool {
    let (Some(a), Some(b)) = (Set::of(a), Set::of(b)) else {
        return true; // an empty view reaches nothing
    };
    let mut work = WORK;
    sets_disjoint(&a, &b, &mut work).unwrap_or(false)
}

fn sets_disjoint(a: &Set, b: &Set, work: &mut usize) -> Option<bool> {
    let (alo, ahi) = (a.offset, a.offset + a.extent());
    let (blo, bhi) = (b.offset, b.offset + b.extent());
    if ahi < blo || bhi < alo {
        return Some(true);
    }
    if a.axes.len() <= 1 && b.axes.len() <= 1 {
        let (an, as_) = a.axes.first().copied().unwrap_or((1, 1));
        let (bn, bs) = b.axes.first().copied().unwrap_or((1, 1));
        return Some(!progressions_meet(a.offset, as_, an, b.offset, bs, bn));
    }
    if let Some(answer) = rows_and_columns(a, b, work) {
        return answer;
    }
    // split the view with the larger outer stride (the more axes on a tie)
    let key = |s: &Set| (s.axes.first().map_or(0, |x| x.1), s.axes.len());
    let (split, other) = if key(a) >= key(b) { (a, b) } else { (b, a) };
    let (n, s) = split.axes[0];
    let rest = Set {
        offset: 0,
        axes: split.axes[1..].to_vec(),
    };
    let ext = rest.extent();
    let (olo, ohi) = (other.offset, other.offset + other.extent());
    // the sub-views i whose range [off + i*s, off + i*s + ext] meets [olo, ohi]
    let first = div_ceil(olo - ext - split.offset, s).max(0);
    let last = div_floor(ohi - split.offset, s).min(n - 1);
    let mut i = first;
    while i <= last {
        if *work == 0 {
            return None;
        }
        *work -= 1;
        let sub = Set {
            offset: split.offset + i * s,
            axes: rest.axes.clone(),
        };
        if !sets_disjoint(&sub, other, work)? {
            return Some(false);
        }
        i += 1;
    }
    Some(true)
}

/// Both sets as rows of `s` elements, `s` the largest stride of either:
/// when neither reaches past the end of a row from where it starts in it,
/// an offset is one (row, column) pair, each set is its rows times its
/// columns, and two sets meet exactly when their rows meet and their
/// columns meet (heat's neighbour slices, LU's pivot row and column are
/// decided at once, with no split). `None` when the sets do not fit rows.
fn rows_and_columns(a: &Set, b: &Set, work: &mut usize) -> Option<Option<bool>> {
    let s = a.axes.first().map_or(0, |x| x.1).max(b.axes.first().map_or(0, |x| x.1));
    if s <= 1 {
        return None;
    }
    let split = |x: &Set| -> Option<(Set, Set)> {
        let (row, col) = (x.offset.div_euclid(s), x.offset.rem_euclid(s));
        let rows: Vec<(i128, i128)> = x
            .axes
            .iter()
            .filter(|a| a.1 % s == 0)
            .map(|&(n, t)| (n, t / s))
            .collect();
        let cols: Vec<(i128, i128)> = x.axes.iter().filter(|a| a.1 % s != 0).copied().collect();
        let cols = Set {
            offset: col,
            axes: cols,
        };
        (cols.offset + cols.extent() < s).then_some((
            Set {
                offset: row,
                axes: rows,
            },
            cols,
        ))
    };
    let ((ra, ca), (rb, cb)) = (split(a)?, split(b)?);
    if *work == 0 {
        return Some(None);
    }
    *work -= 1;
    Some(match sets_disjoint(&ra, &rb, work) {
        Some(true) => Some(true),
        rows => match sets_disjoint(&ca, &cb, work) {
            Some(true) => Some(true),
            cols => rows.and(cols),
        },
    })
}

fn div_floor(a: i128, b: i128) -> i128 {
    a.div_euclid(b)
}

fn div_ceil(a: i128, b: i128) -> i128 {
    -(-a).div_euclid(b)
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 { a.abs() } else { gcd(b, a % b) }
}

/// `x` with `a * x ≡ 1 (mod m)`, for coprime `a` and `m >= 1`.
fn mod_inverse(a: i128, m: i128) -> i128 {
    let (mut r0, mut r1) = (a.rem_euclid(m), m);
    let (mut s0, mut s1) = (1i128, 0i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (s0, s1) = (s1, s0 - q * s1);
    }
    s0.rem_euclid(m)
}

/// Whether `{a + i*s : 0 <= i < n}` and `{b + j*t : 0 <= j < m}` share a
/// value (s, t >= 1): the common values form one residue class modulo
/// lcm(s, t) (Chinese remainder theorem); is one inside both ranges?
fn progressions_meet(a: i128, s: i128, n: i128, b: i128, t: i128, m: i128) -> bool {
    let lo = a.max(b);
    let hi = (a + (n - 1) * s).min(b + (m - 1) * t);
    if lo > hi {
        return false;
    }
    let g = gcd(s, t);
    if (b - a) % g != 0 {
        return false;
    }
    // x = a + s*k with s*k ≡ b - a (mod t)
    let tg = t / g;
    let k = ((b - a) / g).rem_euclid(tg) * mod_inverse(s / g, tg) % tg.max(1);
    let x0 = a + s * k;
    let l = s * tg;
    let x = x0 + div_ceil(lo - x0, l) * l;
    x <= hi
}

/// Whether `src` (pending, seen through the identity view of its node's
/// shape, which is `dst_view`'s shape) may be computed straight into `dst`
/// through `dst_view`. `order` is `src`'s pending graph, inputs first
/// (`pending_in_order`), and the caller's `src` must be the only handle on
/// it from outside that graph: a node that something else still holds
/// would be read later, after the write changed what it stands for.
pub fn direct_ok(dst: &Buffer, dst_view: &View, src: &Array, order: &[Rc<Node>]) -> bool {
    if !computable_into(dst_view, src, order) {
        return false;
    }
    let root = &src.node;
    // aligned: the node's element j is used only for the root's element j
    // (each consumer elementwise, aligned, reading it through its identity view)
    let mut aligned: FxHashMap<u64, bool> = FxHashMap::with_capacity_and_hasher(2 * order.len(), Default::default());
    aligned.insert(root.id, true);
    for node in order.iter().rev() {
        let state = node.state.borrow();
        let NodeState::Pending { op, inputs } = &*state else {
            return false;
        };
        if can_fail(op, node) {
            // an error part-way must leave the destination as it was
            return false;
        }
        let here = aligned.get(&node.id).copied().unwrap_or(false);
        let elementwise = op.is_elementwise();
        for input in inputs {
            if input.node.is_ready() {
                let Some(buffer) = input.node.buffer() else {
                    return false;
                };
                if buffer.same(dst)
                    && !(here && elementwise && input.view == *dst_view)
                    && !disjoint(&input.view, dst_view)
                {
                    return false;
                }
            } else {
                let through = here
                    && elementwise
                    && input.node.shape == node.shape
                    && input.view.is_identity_of(&input.node.shape);
                let entry = aligned.entry(input.node.id).or_insert(true);
                *entry &= through;
            }
        }
    }
    true
}

/// Whether `src`'s root may be computed into a destination viewed through
/// `dst_view` at all, whatever the destination holds: `order` ends with the
/// root, the caller's `src` sees all of it, in `dst_view`'s shape, and no
/// handle outside the graph holds one of its nodes (such a node would be
/// computed again later, after the write changed what it reads).
pub fn computable_into(dst_view: &View, src: &Array, order: &[Rc<Node>]) -> bool {
    order.last().is_some_and(|root| {
        Rc::ptr_eq(root, &src.node)
            && src.view.is_identity_of(&src.node.shape)
            && src.node.shape[..] == dst_view.shape[..]
            && unshared(order, root)
    })
}

/// Integer ops that report an error at run time (division by zero, negative powers).
fn can_fail(op: &Op, node: &Node) -> bool {
    node.dtype.is_int() && matches!(op, Op::Binary(BinaryOp::Rem | BinaryOp::FloorDiv | BinaryOp::Pow))
}

/// True when every handle on `order`'s nodes comes from inside the graph:
/// its consumers' inputs, `order` itself, and (the root) the caller's array.
fn unshared(order: &[Rc<Node>], root: &Rc<Node>) -> bool {
    let mut edges: FxHashMap<u64, usize> = FxHashMap::with_capacity_and_hasher(2 * order.len(), Default::default());
    for node in order {
        if let NodeState::Pending { inputs, .. } = &*node.state.borrow() {
            for input in inputs.iter().filter(|a| !a.node.is_ready()) {
                *edges.entry(input.node.id).or_insert(0) += 1;
            }
        }
    }
    order.iter().all(|node| {
        let expected = edges.get(&node.id).copied().unwrap_or(0) + 1 + usize::from(Rc::ptr_eq(node, root));
        Rc::strong_count(node) == expected && Rc::weak_count(node) == 0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(shape: &[usize], strides: &[isize], offset: usize) -> View {
        View {
            shape: shape.into(),
            strides: strides.into(),
            offset,
        }
    }

    /// The oracle: the two offset lists share an element.
    fn brute(a: &View, b: &View) -> bool {
        let sa: std::collections::HashSet<usize> = a.offsets().into_iter().collect();
        !b.offsets().iter().any(|o| sa.contains(o))
    }

    #[test]
    fn hand_derived_pairs() {
        // 6x6 buffer, strides [6, 1]
        let m = View::contiguous(&[6, 6]);
        let interior = m.slice_axis(0, 1, 4, 1).slice_axis(1, 1, 4, 1);
        // H[:, 0] vs H[:, 1]: columns 0 and 1 never meet
        let c0 = m.select_axis(1, 0);
        let c1 = m.select_axis(1, 1);
        assert!(disjoint(&c0, &c1));
        // heat: u[1:-1, 1:-1] vs u[:-2, 1:-1] overlap on rows 1..4
        let up = m.slice_axis(0, 0, 4, 1).slice_axis(1, 1, 4, 1);
        assert!(!disjoint(&interior, &up));
        // LU at k = 1: a[2:, 2:] vs a[2:, 1:2] (column 1) and a[1:2, 2:] (row 1)
        let trail = m.slice_axis(0, 2, 4, 1).slice_axis(1, 2, 4, 1);
        let col = m.slice_axis(0, 2, 4, 1).slice_axis(1, 1, 1, 1).broadcast_to(&[4, 4]);
        let row = m.slice_axis(0, 1, 1, 1).slice_axis(1, 2, 4, 1).broadcast_to(&[4, 4]);
        assert!(disjoint(&trail, &col));
        assert!(disjoint(&trail, &row));
        assert!(!disjoint(&trail, &interior));
        // even and odd elements of a row, and reversed: 0,2,4 vs 5,3,1
        let r = View::contiguous(&[6]);
        let even = r.slice_axis(0, 0, 3, 2);
        let odd_rev = r.slice_axis(0, 5, 3, -2);
        assert!(disjoint(&even, &odd_rev));
        assert!(!disjoint(&even, &r.slice_axis(0, 4, 3, -2))); // 4, 2, 0
        // a transposed view reaches the same set as the original
        assert!(!disjoint(&interior.permute(&[1, 0]), &interior));
        // stride 4 vs stride 6 from 1: 0,4,8,12 and 1,7,13 never meet; 0,4,8,12 and 2,8 do
        let buf = View::contiguous(&[16]);
        assert!(disjoint(&buf.slice_axis(0, 0, 4, 4), &buf.slice_axis(0, 1, 3, 6)));
        assert!(!disjoint(&buf.slice_axis(0, 0, 4, 4), &buf.slice_axis(0, 2, 2, 6)));
        // an empty view meets nothing
        assert!(disjoint(&buf.slice_axis(0, 3, 0, 1), &buf));
        // the same single element
        assert!(!disjoint(&m.select_axis(0, 2).select_axis(0, 3), &v(&[], &[], 15)));
    }

    #[test]
    fn agrees_with_enumeration_on_strided_views() {
        // every pair of 2-D slices (with steps, both signs) of a 5x7 buffer,
        // and their transposes, against the enumerated element sets
        let m = View::contiguous(&[5, 7]);
        let mut views = Vec::new();
        for (r0, rl, rs) in [(0, 5, 1), (1, 2, 2), (4, 3, -2), (2, 1, 1)] {
            for (c0, cl, cs) in [(0, 7, 1), (1, 3, 2), (6, 4, -2), (3, 1, 1), (0, 3, 3)] {
                let w = m.slice_axis(0, r0, rl, rs).slice_axis(1, c0, cl, cs);
                views.push(w.permute(&[1, 0]));
                views.push(w);
            }
        }
        // a reshape of the buffer seen as 7x5 columns
        views.push(View::contiguous(&[7, 5]).slice_axis(1, 1, 2, 3));
        let mut checked = 0;
        for a in &views {
            for b in &views {
                let expect = brute(a, b);
                let got = disjoint(a, b);
                assert!(!got || expect, "claimed disjoint but overlapping: {a:?} {b:?}");
                // views with one non-trivial axis each are decided exactly,
                // and so are these small ones (the search finishes)
                assert_eq!(got, expect, "{a:?} {b:?}");
                checked += 1;
            }
        }
        assert!(checked > 1000);
    }

    /// A 4x4 f64 matrix 0..16, realized.
    fn matrix() -> (Array, Buffer) {
        let a = Array::from_host(
            crate::graph::data::HostData::F64((0..16).map(f64::from).collect()),
            &[4, 4],
        );
        let b = a.node.buffer().expect("ready");
        (a, b)
    }

    fn pending(op: Op, inputs: Vec<Array>, shape: &[usize]) -> Array {
        Array::pending(op, inputs, crate::check::dtype::DType::F64, shape, None)
    }

    fn check(dst: &Buffer, view: &View, src: &Array) -> bool {
        let order = crate::graph::pending_in_order(std::slice::from_ref(&src.node));
        direct_ok(dst, view, src, &order)
    }

    #[test]
    fn direct_when_reads_are_the_written_element_or_outside() {
        let (a, buf) = matrix();
        let region = View::contiguous(&[4, 4]).slice_axis(0, 1, 3, 1).slice_axis(1, 1, 3, 1);
        let add = Op::Binary(BinaryOp::Add);
        // a[1:, 1:] = a[1:, 1:] + a[1:, 0:1]: the same element, and a column outside
        let col = a.with_view(
            View::contiguous(&[4, 4])
                .slice_axis(0, 1, 3, 1)
                .slice_axis(1, 0, 1, 1)
                .broadcast_to(&[3, 3]),
        );
        let src = pending(add.clone(), vec![a.with_view(region.clone()), col], &[3, 3]);
        assert!(check(&buf, &region, &src));
        // through an elementwise chain: (a[1:, 1:] * 2) + 1, cast in between
        let twice = pending(
            Op::Binary(BinaryOp::Mul),
            vec![a.with_view(region.clone()), a.with_view(region.clone())],
            &[3, 3],
        );
        let cast = pending(Op::Cast, vec![twice], &[3, 3]);
        let src = pending(Op::Unary(crate::graph::op::UnaryOp::Neg), vec![cast], &[3, 3]);
        assert!(check(&buf, &region, &src));
        // a[1:, 1:] = a[:-1, 1:] + ...: a shifted read of the region
        let up = View::contiguous(&[4, 4]).slice_axis(0, 0, 3, 1).slice_axis(1, 1, 3, 1);
        let src = pending(add.clone(), vec![a.with_view(region.clone()), a.with_view(up)], &[3, 3]);
        assert!(!check(&buf, &region, &src));
        // the region read transposed, directly or through an aligned-looking node
        let src = pending(Op::Copy, vec![a.with_view(region.permute(&[1, 0]))], &[3, 3]);
        assert!(!check(&buf, &region, &src));
        let same = pending(Op::Copy, vec![a.with_view(region.clone())], &[3, 3]);
        let turned = same.with_view(View::contiguous(&[3, 3]).permute(&[1, 0]));
        let src = pending(add.clone(), vec![same, turned], &[3, 3]);
        assert!(!check(&buf, &region, &src));
        // a reduction of the region (not elementwise) into one of its rows
        let row = View::contiguous(&[4, 4]).select_axis(0, 1).slice_axis(0, 1, 3, 1);
        let sum = Op::Reduce {
            op: crate::graph::op::ReduceOp::Sum,
            axes: vec![0],
        };
        let src = pending(sum.clone(), vec![a.with_view(region.clone())], &[3]);
        assert!(!check(&buf, &row, &src));
        // ... but a reduction of rows outside the destination row is fine
        let below = View::contiguous(&[4, 4]).slice_axis(0, 2, 2, 1).slice_axis(1, 1, 3, 1);
        let src = pending(sum, vec![a.with_view(below)], &[3]);
        assert!(check(&buf, &row, &src));
        // another buffer is never an alias
        let (other, _) = matrix();
        let src = pending(Op::Copy, vec![other.with_view(up_view())], &[3, 3]);
        assert!(check(&buf, &region, &src));
    }

    fn up_view() -> View {
        View::contiguous(&[4, 4]).slice_axis(0, 0, 3, 1).slice_axis(1, 1, 3, 1)
    }

    #[test]
    fn not_direct_when_a_node_is_held_elsewhere_or_may_fail() {
        let (a, buf) = matrix();
        let region = View::contiguous(&[4, 4]).slice_axis(0, 1, 3, 1).slice_axis(1, 1, 3, 1);
        let inner = pending(Op::Copy, vec![a.with_view(region.clone())], &[3, 3]);
        let src = pending(Op::Unary(crate::graph::op::UnaryOp::Neg), vec![inner.clone()], &[3, 3]);
        // `inner` is still held: computing it inside the write would lose its old values
        assert!(!check(&buf, &region, &src));
        drop(inner);
        assert!(check(&buf, &region, &src));
        // a second handle on the source itself
        let again = src.clone();
        assert!(!check(&buf, &region, &src));
        drop(again);
        // a broadcast source view is not computed in place
        let one = pending(
            Op::Copy,
            vec![a.with_view(View::contiguous(&[4, 4]).select_axis(0, 0).slice_axis(0, 0, 1, 1))],
            &[1],
        );
        let wide = one.with_view(View::contiguous(&[1]).broadcast_to(&[3]));
        let row = View::contiguous(&[4, 4]).select_axis(0, 1).slice_axis(0, 1, 3, 1);
        drop(one);
        assert!(!check(&buf, &row, &wide));
        // an integer remainder may fail part-way
        let ints = Array::from_host(crate::graph::data::HostData::I64((0..4).collect()), &[4]);
        let ibuf = ints.node.buffer().expect("ready");
        let rem = Array::pending(
            Op::Binary(BinaryOp::Rem),
            vec![ints.clone(), ints.clone()],
            crate::check::dtype::DType::I64,
            &[4],
            None,
        );
        assert!(!check(&ibuf, &View::contiguous(&[4]), &rem));
    }

    #[test]
    fn progressions() {
        // 3 + 5i (i < 10) and 7 + 3j (j < 10): 13 = 3 + 5*2 = 7 + 3*2
        assert!(progressions_meet(3, 5, 10, 7, 3, 10));
        // only 13 is shared below 28, and the second stops before it
        assert!(!progressions_meet(3, 5, 10, 7, 3, 2));
        // parity: even vs odd
        assert!(!progressions_meet(0, 2, 100, 1, 2, 100));
        // a point in a range
        assert!(progressions_meet(0, 1, 10, 9, 1, 1));
        assert!(!progressions_meet(0, 1, 10, 10, 1, 1));
    }
}
