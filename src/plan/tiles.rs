//! Which elementwise kernels go through shared-memory tiles
//! (`Strategy::TransposeTiled`), and which of their operands pair up.
//!
//! An operand is *transposed* when it moves by more than one element along
//! the output's contiguous (last) axis but by ±1 along another axis: read
//! directly, a warp's 32 lanes would touch 32 sectors. The tile's rows run
//! along that other axis (the tile axis), its columns along the last axis;
//! every other axis is a batch axis. Both the backend's code generator and
//! the planner call these functions, so the plan text and the code agree.
//!
//! A *pair* is the same buffer read twice in one kernel, once directly and
//! once transposed over the tile axis and the last (`a + transpose(a)`, and
//! its batched or reversed relatives): the direct view at (i, j) is the
//! transposed view at (j, i). A block then takes the output tiles (I, J) and
//! (J, I) together, reads the buffer's two source tiles once each, and
//! writes both: one read and one write per element instead of two reads.

use super::{KernelPlan, Operand, Source};

/// The tile axis of operand `o` in a kernel of rank `rank`: the first axis
/// before the last along which it moves by ±1 while it moves by more than
/// one element along the last; `None` when it is not transposed.
pub fn transposed_axis(o: &Operand, rank: usize) -> Option<usize> {
    if o.source != Source::Buffer || rank < 2 {
        return None;
    }
    let s = &o.view.strides;
    let shape = &o.view.shape;
    if s[rank - 1].unsigned_abs() <= 1 {
        return None;
    }
    (0..rank - 1).find(|&d| s[d].unsigned_abs() == 1 && shape[d] >= 2)
}

/// Whether operand `o` is staged through a tile of its own over tile axis `axis`.
pub fn staged(o: &Operand, axis: usize) -> bool {
    let rank = o.view.strides.len();
    o.source == Source::Buffer
        && rank >= 2
        && axis < rank - 1
        && o.view.strides[axis].unsigned_abs() == 1
        && o.view.strides[rank - 1].unsigned_abs() > 1
}

/// The pairs `(direct, transposed)` of operand indices (into
/// `operands` then `epi_operands`) over tile axis `axis`: the same buffer at
/// the same offset and dtype, the direct one moving by ±1 along the last
/// axis, the transposed one with those two strides swapped and every batch
/// stride equal. Empty unless the tile axis and the last have one size.
/// Each operand is in at most one pair.
pub fn pairs(kp: &KernelPlan, axis: usize) -> Vec<(usize, usize)> {
    let ops: Vec<&Operand> = kp.operands.iter().chain(&kp.epi_operands).collect();
    let rank = kp.shape.len();
    let mut out: Vec<(usize, usize)> = Vec::new();
    if rank < 2 || axis >= rank - 1 || kp.shape[axis] != kp.shape[rank - 1] {
        return out;
    }
    let last = rank - 1;
    let used = |out: &[(usize, usize)], k: usize| out.iter().any(|&(m, t)| m == k || t == k);
    for (t, ot) in ops.iter().enumerate() {
        if !staged(ot, axis) || used(&out, t) {
            continue;
        }
        let found = ops.iter().enumerate().find(|&(m, om)| {
            let (sm, st) = (&om.view.strides, &ot.view.strides);
            m != t
                && !used(&out, m)
                && om.source == Source::Buffer
                && om.node == ot.node
                && om.dtype == ot.dtype
                && om.view.offset == ot.view.offset
                && sm[last].unsigned_abs() == 1
                && sm[last] == st[axis]
                && sm[axis] == st[last]
                && (0..rank).all(|d| d == axis || d == last || sm[d] == st[d])
        });
        if let Some((m, _)) = found {
            out.push((m, t));
        }
    }
    out
}

/// The static shared memory a block may declare without opting in to more.
pub const SHARED_LIMIT: usize = 48 * 1024;

/// Bytes of shared memory the tiled kernel declares: a padded 32 x 33 tile
/// per unpaired transposed operand, two per pair. Past `SHARED_LIMIT` (many
/// wide transposed operands) the kernel stays a strided broadcast.
pub fn shared_bytes(kp: &KernelPlan, axis: usize) -> usize {
    let pairs = pairs(kp, axis);
    let tile = |o: &Operand| 32 * 33 * o.dtype.size_bytes();
    let ops: Vec<&Operand> = kp.operands.iter().chain(&kp.epi_operands).collect();
    let alone: usize = ops
        .iter()
        .enumerate()
        .filter(|&(k, o)| staged(o, axis) && !pairs.iter().any(|&(m, t)| m == k || t == k))
        .map(|(_, o)| tile(o))
        .sum();
    alone + pairs.iter().map(|&(m, _)| 2 * tile(ops[m])).sum::<usize>()
}
