//! View algebra the planner needs: composing a consumer's view of a fused
//! producer with the producer's own input views, and collapsing adjacent axes
//! that are contiguous in every operand.

use crate::graph::view::{Dims, View, contiguous_strides};

/// How a view over a producer's contiguous output maps each of its axes onto
/// one producer axis: `Some((axis, step))`, or `None` for an axis that does not
/// move (size 1 or stride 0). `start` is the producer index of the view's first element.
pub struct AxisMap {
    pub start: Vec<usize>,
    pub axes: Vec<Option<(usize, isize)>>,
}

/// Expresses `outer` (a view over a contiguous array of `shape`) axis by axis
/// in that array's coordinates. Fails for views that merge producer axes (a
/// reshape that flattens), which then force the producer to be materialised.
pub fn axis_map(outer: &View, shape: &[usize]) -> Option<AxisMap> {
    let cstrides = contiguous_strides(shape);
    let total: usize = shape.iter().product();
    let mut start = vec![0usize; shape.len()];
    if outer.size() > 0 && total > 0 {
        let mut rest = outer.offset;
        for (k, &s) in cstrides.iter().enumerate() {
            start[k] = rest / s as usize;
            rest %= s as usize;
        }
        if start.iter().zip(shape).any(|(&i, &d)| i >= d) {
            return None;
        }
    }
    let mut axes = Vec::with_capacity(outer.rank());
    for (&dim, &stride) in outer.shape.iter().zip(&outer.strides) {
        if dim <= 1 || stride == 0 {
            axes.push(None);
            continue;
        }
        let mut found = None;
        for j in (0..shape.len()).rev() {
            if shape[j] <= 1 {
                continue;
            }
            let cs = cstrides[j];
            if stride % cs != 0 {
                continue;
            }
            let step = stride / cs;
            if step.unsigned_abs() >= shape[j] {
                continue;
            }
            let last = start[j] as isize + step * (dim as isize - 1);
            if last >= 0 && (last as usize) < shape[j] {
                found = Some((j, step));
            }
            break;
        }
        axes.push(Some(found?));
    }
    Some(AxisMap { start, axes })
}

impl AxisMap {
    /// The view that reads, in the outer view's coordinates, what `inner`
    /// (a view with the producer's shape) reads in the producer's coordinates.
    pub fn compose(&self, outer_shape: &[usize], inner: &View) -> View {
        let offset = if self.start.is_empty() || inner.size() == 0 {
            inner.offset
        } else {
            inner.offset_of(&self.start)
        };
        let strides = self
            .axes
            .iter()
            .map(|a| a.map_or(0, |(j, step)| step * inner.strides[j]))
            .collect();
        View {
            shape: Dims::from_slice(outer_shape),
            strides,
            offset,
        }
    }
}

/// Collapses an iteration space. `groups[k]` tags each axis (kept / reduced):
/// axes merge only within a group. Size-1 axes are dropped. Every stride
/// vector in `operands` is rewritten to the collapsed axes. Returns the new
/// shape and groups.
pub fn collapse(shape: &[usize], groups: &[u8], operands: &mut [Vec<isize>]) -> (Vec<usize>, Vec<u8>) {
    if shape.contains(&0) {
        // Empty: keep one axis per group so the kernel still knows its sizes.
        let mut s = Vec::new();
        let mut g = Vec::new();
        for group in [0u8, 1] {
            let n: usize = shape
                .iter()
                .zip(groups)
                .filter(|(_, gg)| **gg == group)
                .map(|(d, _)| *d)
                .product();
            if groups.contains(&group) {
                s.push(n);
                g.push(group);
            }
        }
        for ops in operands.iter_mut() {
            *ops = vec![0; s.len()];
        }
        return (s, g);
    }
    // each operand's strides are compacted in place: axis k's lands at or before k
    let mut new_shape: Vec<usize> = Vec::with_capacity(shape.len());
    let mut new_groups: Vec<u8> = Vec::with_capacity(shape.len());
    for k in (0..shape.len()).filter(|&k| shape[k] != 1) {
        let w = new_shape.len();
        let mergeable =
            w > 0 && new_groups[w - 1] == groups[k] && operands.iter().all(|s| s[w - 1] == s[k] * shape[k] as isize);
        if mergeable {
            new_shape[w - 1] *= shape[k];
            for s in operands.iter_mut() {
                s[w - 1] = s[k];
            }
        } else {
            new_shape.push(shape[k]);
            new_groups.push(groups[k]);
            for s in operands.iter_mut() {
                s[w] = s[k];
            }
        }
    }
    for s in operands.iter_mut() {
        s.truncate(new_shape.len());
    }
    (new_shape, new_groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_of_a_producer_composes() {
        // consumer reads producer (4,) as (3,4) row broadcast; producer reads x[::2] of an (8,) buffer
        let outer = View::contiguous(&[4]).broadcast_to(&[3, 4]);
        let inner = View::contiguous(&[8]).slice_axis(0, 0, 4, 2);
        let m = axis_map(&outer, &[4]).expect("composable");
        let v = m.compose(&[3, 4], &inner);
        assert_eq!(v.strides[..], [0, 2]);
        assert_eq!(v.offsets(), vec![0, 2, 4, 6, 0, 2, 4, 6, 0, 2, 4, 6]);
    }

    #[test]
    fn transpose_and_slice_compose() {
        let outer = View::contiguous(&[3, 4]).slice_axis(1, 1, 2, 1).permute(&[1, 0]);
        let inner = View::contiguous(&[4, 3]).permute(&[1, 0]); // producer (3,4) reads a transposed (4,3) buffer
        let m = axis_map(&outer, &[3, 4]).expect("composable");
        let v = m.compose(&outer.shape, &inner);
        // element (i, j) of the result is producer (j, 1+i) = buffer (1+i)*3 + j
        assert_eq!(v.offsets(), vec![3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn flattening_reshape_does_not_compose() {
        let outer = View::contiguous(&[2, 3]).reshape(&[6]).expect("contiguous");
        assert!(axis_map(&outer, &[2, 3]).is_none());
    }

    #[test]
    fn collapse_merges_contiguous_axes_only() {
        let mut ops = vec![vec![12, 4, 1], vec![0, 0, 1]];
        let (s, _) = collapse(&[2, 3, 4], &[0, 0, 0], &mut ops);
        assert_eq!(s, vec![6, 4]);
        assert_eq!(ops, vec![vec![4, 1], vec![0, 1]]);
    }
}
