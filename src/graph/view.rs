//! Views: shape + strides (in elements) + offset over a contiguous buffer.
//! Slices, transposes, broadcasts and new axes are views and never copy.

/// A view's extents, inline up to rank 4.
pub type Dims = smallvec::SmallVec<[usize; 4]>;
/// A view's strides, inline up to rank 4.
pub type Strides = smallvec::SmallVec<[isize; 4]>;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct View {
    pub shape: Dims,
    /// Element strides; 0 on a broadcast axis, negative for reversed slices.
    pub strides: Strides,
    pub offset: usize,
}

// By hand: the derived clone extends element by element, and views are cloned
// for every operand of every operation.
impl Clone for View {
    fn clone(&self) -> View {
        View {
            shape: Dims::from_slice(&self.shape),
            strides: Strides::from_slice(&self.strides),
            offset: self.offset,
        }
    }
}

impl View {
    /// The row-major view of a fresh buffer of `shape`.
    pub fn contiguous(shape: &[usize]) -> View {
        View {
            shape: Dims::from_slice(shape),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }

    /// Whether this is exactly `View::contiguous(shape)`, without building it.
    pub fn is_identity_of(&self, shape: &[usize]) -> bool {
        self.offset == 0
            && self.shape[..] == *shape
            && self.strides.len() == shape.len()
            && self.strides.iter().rev().copied().eq(row_major_strides_rev(shape))
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }

    /// True when the view is exactly the row-major layout starting at `offset`
    /// (size-1 axes may have any stride).
    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1isize;
        for (&dim, &stride) in self.shape.iter().zip(&self.strides).rev() {
            if dim != 1 && stride != expected {
                return false;
            }
            expected *= dim as isize;
        }
        true
    }

    /// Buffer offset of a multi-index.
    pub fn offset_of(&self, index: &[usize]) -> usize {
        let mut off = self.offset as isize;
        for (&i, &s) in index.iter().zip(&self.strides) {
            off += i as isize * s;
        }
        off as usize
    }

    /// Every buffer offset of the view, in row-major order of the view.
    pub fn offsets(&self) -> Vec<usize> {
        let n = self.size();
        let mut out = Vec::with_capacity(n);
        if n == 0 {
            return out;
        }
        let rank = self.rank();
        if rank == 0 {
            out.push(self.offset);
            return out;
        }
        let mut index = vec![0usize; rank];
        let mut off = self.offset as isize;
        let inner = rank - 1;
        let (inner_dim, inner_stride) = (self.shape[inner], self.strides[inner]);
        loop {
            for k in 0..inner_dim {
                out.push((off + k as isize * inner_stride) as usize);
            }
            // advance the outer axes like an odometer
            let mut axis = inner;
            loop {
                if axis == 0 {
                    return out;
                }
                axis -= 1;
                index[axis] += 1;
                off += self.strides[axis];
                if index[axis] < self.shape[axis] {
                    break;
                }
                off -= self.strides[axis] * self.shape[axis] as isize;
                index[axis] = 0;
            }
        }
    }

    /// Reorders axes: axis `k` of the result is axis `perm[k]` of `self`.
    pub fn permute(&self, perm: &[usize]) -> View {
        View {
            shape: perm.iter().map(|&p| self.shape[p]).collect(),
            strides: perm.iter().map(|&p| self.strides[p]).collect(),
            offset: self.offset,
        }
    }

    /// Inserts a size-1 axis at `axis`.
    pub fn insert_axis(&self, axis: usize) -> View {
        let mut v = self.clone();
        v.shape.insert(axis, 1);
        v.strides.insert(axis, 0);
        v
    }

    /// Removes a size-1 axis.
    pub fn remove_axis(&self, axis: usize) -> View {
        let mut v = self.clone();
        v.shape.remove(axis);
        v.strides.remove(axis);
        v
    }

    /// Broadcasts to `shape` (NumPy rules, already checked): leading axes are
    /// added, size-1 axes get stride 0.
    pub fn broadcast_to(&self, shape: &[usize]) -> View {
        let extra = shape.len() - self.rank();
        let mut strides = Strides::from_elem(0, shape.len());
        for (k, (&dim, &stride)) in self.shape.iter().zip(&self.strides).enumerate() {
            strides[extra + k] = if dim == 1 && shape[extra + k] != 1 { 0 } else { stride };
        }
        View {
            shape: Dims::from_slice(shape),
            strides,
            offset: self.offset,
        }
    }

    /// Takes `len` elements of `axis` starting at `start`, every `step`-th
    /// (`step` may be negative; `start` is then the last element taken first).
    pub fn slice_axis(&self, axis: usize, start: usize, len: usize, step: isize) -> View {
        let mut v = self.clone();
        if len > 0 {
            v.offset = (v.offset as isize + start as isize * v.strides[axis]) as usize;
        }
        v.shape[axis] = len;
        v.strides[axis] *= step;
        v
    }

    /// Fixes `axis` at position `index`, removing it.
    pub fn select_axis(&self, axis: usize, index: usize) -> View {
        let mut v = self.clone();
        v.offset = (v.offset as isize + index as isize * v.strides[axis]) as usize;
        v.shape.remove(axis);
        v.strides.remove(axis);
        v
    }

    /// The same data with a new shape, when that needs no copy (a contiguous view).
    pub fn reshape(&self, shape: &[usize]) -> Option<View> {
        if self.is_contiguous() || shape.contains(&0) {
            return Some(View {
                shape: Dims::from_slice(shape),
                strides: contiguous_strides(shape),
                offset: self.offset,
            });
        }
        let strides = strides_without_copy(&self.shape, &self.strides, shape)?;
        Some(View {
            shape: Dims::from_slice(shape),
            strides,
            offset: self.offset,
        })
    }
}

/// The strides that read the elements of `shape`/`strides` (row-major) in
/// `new_shape` without copying, when there are any: each group of old axes
/// that merges or splits into new axes must step evenly through memory
/// (NumPy's `_attempt_nocopy_reshape`, C order). Sizes are equal and not 0.
fn strides_without_copy(shape: &[usize], strides: &[isize], new_shape: &[usize]) -> Option<Strides> {
    // size-1 axes are never stepped along: they take no part
    let (old, old_strides): (Vec<usize>, Vec<isize>) = shape
        .iter()
        .zip(strides)
        .filter(|&(&d, _)| d != 1)
        .map(|(&d, &s)| (d, s))
        .unzip();
    let mut out = Strides::from_elem(0, new_shape.len());
    let (mut oi, mut oj, mut ni, mut nj) = (0, 1, 0, 1);
    while ni < new_shape.len() && oi < old.len() {
        let (mut np, mut op) = (new_shape[ni], old[oi]);
        while np != op {
            if np < op {
                np *= *new_shape.get(nj)?;
                nj += 1;
            } else {
                op *= *old.get(oj)?;
                oj += 1;
            }
        }
        // the old axes oi..oj must be one run through memory
        if (oi..oj - 1).any(|k| old_strides[k] != old[k + 1] as isize * old_strides[k + 1]) {
            return None;
        }
        out[nj - 1] = old_strides[oj - 1];
        for k in (ni + 1..nj).rev() {
            out[k - 1] = out[k] * new_shape[k] as isize;
        }
        (ni, nj, oi, oj) = (nj, nj + 1, oj, oj + 1);
    }
    // trailing size-1 axes: any stride reads them
    for s in out.iter_mut().skip(ni) {
        *s = 1;
    }
    Some(out)
}

pub fn contiguous_strides(shape: &[usize]) -> Strides {
    let mut strides = Strides::from_elem(0, shape.len());
    for (s, stride) in strides.iter_mut().rev().zip(row_major_strides_rev(shape)) {
        *s = stride;
    }
    strides
}

/// The row-major strides of `shape`, innermost first, without allocating.
fn row_major_strides_rev(shape: &[usize]) -> impl Iterator<Item = isize> + '_ {
    shape.iter().rev().scan(1isize, |acc, &d| {
        let stride = *acc;
        *acc = acc.saturating_mul(d.max(1) as isize);
        Some(stride)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element of `view` (row-major), as buffer offsets.
    fn offsets(view: &View) -> Vec<isize> {
        let n: usize = view.shape.iter().product();
        (0..n)
            .map(|mut i| {
                let mut o = view.offset as isize;
                for (&d, &s) in view.shape.iter().zip(&view.strides).rev() {
                    o += (i % d) as isize * s;
                    i /= d;
                }
                o
            })
            .collect()
    }

    #[test]
    fn reshape_without_copy_reads_the_elements_in_order_or_refuses() {
        // a 4x6 buffer seen through views that are not contiguous
        let base = View::contiguous(&[4, 6]);
        let col = base.slice_axis(1, 1, 1, 1); // [4, 1], strides [6, 1]
        let cols = base.slice_axis(1, 1, 4, 1); // [4, 4]: rows with gaps
        let every_other = base.slice_axis(1, 0, 3, 2); // [4, 3], strides [6, 2]
        let reversed = base.slice_axis(0, 3, 4, -1); // rows backwards
        let cases: [(&View, &[usize], bool); 9] = [
            (&col, &[4], true),
            (&col, &[2, 2], true),
            (&cols, &[4, 2, 2], true),
            (&cols, &[2, 8], false),
            (&every_other, &[2, 2, 3], true),
            (&every_other, &[12], true),
            (&reversed, &[2, 2, 6], true),
            (&reversed, &[8, 3], false),
            (&cols, &[1, 4, 1, 4, 1], true),
        ];
        for (view, shape, ok) in cases {
            match view.reshape(shape) {
                Some(r) => {
                    assert!(ok, "{:?} -> {shape:?} should copy", view.shape);
                    assert_eq!(offsets(&r), offsets(view), "{:?} -> {shape:?}", view.shape);
                }
                None => assert!(!ok, "{:?} -> {shape:?} should be a view", view.shape),
            }
        }
    }

    #[test]
    fn is_identity_of_agrees_with_comparing_to_a_contiguous_view() {
        let shapes: [&[usize]; 5] = [&[], &[5], &[3, 4], &[2, 1, 3], &[0, 4]];
        for shape in shapes {
            let views = [
                View::contiguous(shape),
                View::contiguous(shape).insert_axis(0),
                View {
                    offset: 1,
                    ..View::contiguous(shape)
                },
            ];
            for v in views.iter().chain(
                shape
                    .first()
                    .map(|_| View::contiguous(shape).slice_axis(0, 0, 1, 1))
                    .iter(),
            ) {
                for s in shapes {
                    assert_eq!(v.is_identity_of(s), *v == View::contiguous(s), "{v:?} against {s:?}");
                }
            }
        }
        // a size-1 axis with another stride is not the identity (as `==` says)
        let odd = View {
            shape: smallvec::smallvec![1, 3],
            strides: smallvec::smallvec![7, 1],
            offset: 0,
        };
        assert!(!odd.is_identity_of(&[1, 3]));
    }

    #[test]
    fn offsets_of_a_transposed_slice() {
        // 3x4 buffer 0..12; take rows 1.., columns ::2, then transpose
        let v = View::contiguous(&[3, 4])
            .slice_axis(0, 1, 2, 1)
            .slice_axis(1, 0, 2, 2)
            .permute(&[1, 0]);
        assert_eq!(v.shape[..], [2, 2]);
        assert_eq!(v.offsets(), vec![4, 8, 6, 10]);
    }

    #[test]
    fn broadcast_gives_stride_zero() {
        let v = View::contiguous(&[4]).broadcast_to(&[3, 4]);
        assert_eq!(v.strides[..], [0, 1]);
        assert_eq!(v.offsets(), vec![0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]);
    }

    #[test]
    fn reversed_slice() {
        let v = View::contiguous(&[5]).slice_axis(0, 4, 5, -1);
        assert_eq!(v.offsets(), vec![4, 3, 2, 1, 0]);
        assert!(!v.is_contiguous());
    }
}
