//! Segment indexes: what a segmented reduction needs from its `lengths` or
//! `offsets` argument (checked offsets, and the tile layout the planner picks
//! kernels by), and a cache of them keyed by the array they were made from.
//!
//! Making an index reads the argument to the host, checks it and walks it;
//! for millions of segments that is milliseconds during which a GPU would
//! idle. A loop that reduces by the same `lengths` array again and again
//! therefore makes it once, and the offsets and layout, once uploaded, stay on
//! the device.

use super::data::HostData;
use super::op::SegLayout;
use super::view::View;
use super::{Array, Node};
use crate::diag::Diagnostic;
use std::cell::RefCell;
use std::rc::{Rc, Weak};

/// Checked segment boundaries in the form kernels read them.
pub struct SegmentIndex {
    /// i64 `[segments + 1]`: 0, then each segment's end.
    pub offsets: Array,
    pub layout: SegLayout,
    /// i64: the layout's per-tile (or per-class) table, see [`SegLayout::from_offsets`].
    pub table: Array,
}

impl SegmentIndex {
    /// The index of `offsets` (already checked: from 0, never decreasing).
    pub fn from_offsets(offsets: Vec<i64>) -> SegmentIndex {
        let (layout, table) = SegLayout::from_offsets(&offsets);
        let n = offsets.len();
        let t = table.len();
        SegmentIndex {
            offsets: Array::from_host(HostData::I64(offsets), &[n]),
            layout,
            table: Array::from_host(HostData::I64(table), &[t]),
        }
    }

    pub fn segments(&self) -> usize {
        self.layout.segments
    }

    /// Views of each segment's end and start (`offsets[1:]`, `offsets[:-1]`):
    /// their difference, the lengths, fuses into its consumer instead of
    /// being another upload.
    pub fn ends_and_starts(&self) -> (Array, Array) {
        let n = self.segments();
        let view = &self.offsets.view;
        (
            self.offsets.with_view(view.slice_axis(0, 1, n, 1)),
            self.offsets.with_view(view.slice_axis(0, 0, n, 1)),
        )
    }
}

/// How the segments were given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentsGiven {
    Lengths,
    Offsets,
}

struct Entry {
    source: Weak<Node>,
    view: View,
    given: SegmentsGiven,
    n_values: usize,
    /// The source buffer's write count when the index was made.
    writes: u64,
    index: Rc<SegmentIndex>,
}

impl Entry {
    fn is_alive(&self) -> bool {
        self.source.strong_count() > 0
    }
}

/// The last few segment indexes made, each valid while its source array is
/// alive and unwritten. Dead or stale entries are dropped at the next lookup,
/// which frees their device memory.
#[derive(Default)]
pub struct SegmentIndexCache {
    entries: RefCell<Vec<Entry>>,
}

impl SegmentIndexCache {
    /// Entries kept at most; each holds `segments + 1` offsets.
    pub const CAPACITY: usize = 8;

    /// The index of `source` (a realized 1-D integer array, given as
    /// `given`, for `n_values` values): a cached one, or `make`'s offsets
    /// (whose errors are returned and not cached).
    pub fn get_or_make(
        &self,
        source: &Array,
        given: SegmentsGiven,
        n_values: usize,
        make: impl FnOnce() -> Result<Vec<i64>, Diagnostic>,
    ) -> Result<Rc<SegmentIndex>, Diagnostic> {
        let Some(buffer) = source.node.buffer() else {
            // not realized: nothing identifies its values yet
            return Ok(Rc::new(SegmentIndex::from_offsets(make()?)));
        };
        let writes = buffer.writes();
        let mut entries = self.entries.borrow_mut();
        let same_source = |e: &Entry| std::ptr::eq(e.source.as_ptr(), Rc::as_ptr(&source.node));
        entries.retain(|e| e.is_alive() && !(same_source(e) && e.writes != writes));
        if let Some(e) = entries
            .iter()
            .find(|e| same_source(e) && e.view == source.view && e.given == given && e.n_values == n_values)
        {
            return Ok(e.index.clone());
        }
        let index = Rc::new(SegmentIndex::from_offsets(make()?));
        if entries.len() == Self::CAPACITY {
            entries.remove(0);
        }
        entries.push(Entry {
            source: Rc::downgrade(&source.node),
            view: source.view.clone(),
            given,
            n_values,
            writes,
            index: index.clone(),
        });
        Ok(index)
    }

    pub fn len(&self) -> usize {
        self.entries.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpu::CpuBackend;
    use crate::graph::{self, build};

    fn lengths(v: Vec<i64>) -> Array {
        let n = v.len();
        Array::from_host(HostData::I64(v), &[n])
    }

    fn offsets_of(a: &Array) -> Vec<i64> {
        let host = graph::to_host(&CpuBackend::new(), a).unwrap();
        (0..host.len()).map(|i| host.get_i64(i)).collect()
    }

    /// Counts the calls that had to make an index.
    fn lookup(cache: &SegmentIndexCache, a: &Array, n: usize, made: &mut usize) -> Rc<SegmentIndex> {
        cache
            .get_or_make(a, SegmentsGiven::Lengths, n, || {
                *made += 1;
                build::segment_offsets_from_lengths(&offsets_of(a), n, None, &(0..0))
            })
            .unwrap()
    }

    #[test]
    fn a_second_lookup_of_the_same_array_makes_nothing() {
        let cache = SegmentIndexCache::default();
        let l = lengths(vec![2, 0, 3]);
        let mut made = 0;
        let a = lookup(&cache, &l, 5, &mut made);
        let b = lookup(&cache, &l.clone(), 5, &mut made);
        assert_eq!(made, 1);
        assert!(Rc::ptr_eq(&a, &b));
        assert_eq!(offsets_of(&b.offsets), vec![0, 2, 2, 5]);
    }

    #[test]
    fn equal_values_in_another_array_or_view_make_a_new_index() {
        let cache = SegmentIndexCache::default();
        let l = lengths(vec![1, 1, 1, 1]);
        let mut made = 0;
        lookup(&cache, &l, 4, &mut made);
        lookup(&cache, &lengths(vec![1, 1, 1, 1]), 4, &mut made);
        let half = l.with_view(l.view.slice_axis(0, 0, 2, 1));
        let idx = lookup(&cache, &half, 2, &mut made);
        assert_eq!(made, 3);
        assert_eq!(idx.segments(), 2);
    }

    #[test]
    fn a_slice_assignment_into_the_source_makes_its_index_stale() {
        let cpu = CpuBackend::new();
        let cache = SegmentIndexCache::default();
        let l = lengths(vec![2, 2, 2]);
        let mut made = 0;
        lookup(&cache, &l, 6, &mut made);
        // l[0:2] = [1, 3] through the buffer, as the interpreter does it
        let dst = l.view.slice_axis(0, 0, 2, 1);
        let src = lengths(vec![1, 3]);
        graph::write(&cpu, &l.node.buffer().unwrap(), &dst, &src).unwrap();
        let idx = lookup(&cache, &l, 6, &mut made);
        assert_eq!(made, 2);
        assert_eq!(offsets_of(&idx.offsets), vec![0, 1, 4, 6]);
        assert_eq!(cache.len(), 1, "the stale entry is dropped");
    }

    #[test]
    fn dead_sources_are_dropped_and_the_cache_stays_bounded() {
        let cache = SegmentIndexCache::default();
        let mut made = 0;
        let keep: Vec<Array> = (0..SegmentIndexCache::CAPACITY + 3)
            .map(|_| lengths(vec![1, 2]))
            .collect();
        for l in &keep {
            lookup(&cache, l, 3, &mut made);
        }
        assert_eq!(cache.len(), SegmentIndexCache::CAPACITY);
        drop(keep);
        lookup(&cache, &lengths(vec![3]), 3, &mut made);
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn errors_are_returned_and_not_cached() {
        let cache = SegmentIndexCache::default();
        let l = lengths(vec![2, 2]);
        let mut made = 0;
        let bad = cache.get_or_make(&l, SegmentsGiven::Lengths, 5, || {
            made += 1;
            build::segment_offsets_from_lengths(&[2, 2], 5, None, &(0..0))
        });
        assert_eq!(bad.err().map(|d| d.code), Some("E0211"));
        lookup(&cache, &l, 4, &mut made);
        assert_eq!((made, cache.len()), (2, 1));
    }
}
