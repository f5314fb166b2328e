//! The process's allocator: mimalloc, with a pool of freed large blocks kept
//! by exact size. mimalloc rather than glibc's malloc because the interpreter
//! and planner make many small short-lived allocations per statement, and
//! glibc's malloc/free were a third of the instructions of a loop of small
//! statements (LU of 50: 35%), mimalloc's thread-local free lists a fraction
//! of that. A loop realizes arrays of the same shapes every
//! iteration; without the pool each of them is a fresh `mmap` whose pages
//! fault in on first touch (and glibc's `calloc` may memset them too), which
//! measured 20-42% of the CPU backend's time. With it, a kernel's output is a
//! block the previous iteration freed, already mapped. Fresh large blocks are
//! advised to use transparent huge pages, fewer page faults and TLB misses.
//!
//! It lives at the allocator level because a host buffer is a plain `Vec`
//! owned by the graph and freed wherever its last view goes away.

use libmimalloc_sys as mi;
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;
use std::sync::Mutex;

/// Blocks smaller than this go straight to the system allocator. Mid-sized
/// blocks are pooled too: glibc serves them from the top of its heap and
/// gives that back to the kernel when they are freed (`systrim`), so a loop
/// of 200x200 arrays faulted in and zeroed fresh pages for every kernel
/// output (a quarter of shallow water's time at that size).
const MIN_POOLED: usize = 64 << 10;
/// Fresh blocks at least this large are advised to use huge pages.
const HUGE: usize = 4 << 20;
/// Enough for the distinct sizes a loop body realizes (shallow water: about 30).
const SLOTS: usize = 64;
/// The most bytes the pool keeps; older blocks are returned first.
const CAP: usize = 512 << 20;

#[derive(Clone, Copy)]
struct Slot {
    ptr: usize,
    size: usize,
    align: usize,
    /// When it was freed (a counter), to return the oldest first.
    age: u64,
}

struct Pool {
    slots: [Option<Slot>; SLOTS],
    bytes: usize,
    clock: u64,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    slots: [None; SLOTS],
    bytes: 0,
    clock: 0,
});

pub struct PoolAlloc;

/// mimalloc itself. The `mimalloc` crate's allocator calls `mi_malloc_aligned`
/// for every layout, whose generic path cost 13% of the instructions of a loop
/// of small statements (LU of 50); `mi_malloc` is mimalloc's fast path, and
/// its blocks are aligned to 16 bytes, or to their size when smaller (the
/// power-of-two size bins below 16: mimalloc asserts this in `alloc.c`),
/// which is the rule std's own `System`
/// allocator uses to skip its aligned path.
struct Base;

/// Whether plain `mi_malloc` of `size` bytes already satisfies `align`.
fn natural(align: usize, size: usize) -> bool {
    const MI_MAX_ALIGN_SIZE: usize = 16;
    align <= MI_MAX_ALIGN_SIZE && align <= size
}

impl Base {
    /// SAFETY (callers): `layout.size()` is non-zero, as `GlobalAlloc::alloc` requires.
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if natural(layout.align(), layout.size()) {
            // SAFETY: mimalloc's malloc has no preconditions; the alignment is natural (above).
            unsafe { mi::mi_malloc(layout.size()) as *mut u8 }
        } else {
            // SAFETY: `layout.align()` is a power of two, as `Layout` guarantees.
            unsafe { mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8 }
        }
    }

    /// SAFETY (callers): as `alloc`.
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if natural(layout.align(), layout.size()) {
            // SAFETY: as in `alloc`.
            unsafe { mi::mi_zalloc(layout.size()) as *mut u8 }
        } else {
            // SAFETY: as in `alloc`.
            unsafe { mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8 }
        }
    }

    /// SAFETY (callers): `ptr` came from this allocator (mimalloc) and is freed once.
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: mimalloc frees its aligned and unaligned blocks alike.
        unsafe { mi::mi_free(ptr as *mut c_void) }
    }

    /// SAFETY (callers): `ptr` came from mimalloc with `layout`; `new_size` is
    /// non-zero and valid for `layout.align()`.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // the old block is aligned to `layout.align()`, and a moved block must be too
        if natural(layout.align(), new_size) {
            // SAFETY: `ptr` is a live mimalloc block; the new one is naturally aligned (above).
            unsafe { mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8 }
        } else {
            // SAFETY: as above, through the aligned path.
            unsafe { mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8 }
        }
    }
}

#[global_allocator]
static GLOBAL: PoolAlloc = PoolAlloc;

fn pooled(layout: &Layout) -> bool {
    layout.size() >= MIN_POOLED && layout.align() <= 4096
}

/// A pooled block of exactly this layout, if one is free.
fn take(layout: &Layout) -> Option<*mut u8> {
    let mut pool = POOL.lock().ok()?;
    let k = pool
        .slots
        .iter()
        .position(|s| s.is_some_and(|s| s.size == layout.size() && s.align == layout.align()))?;
    let slot = pool.slots[k].take()?;
    pool.bytes -= slot.size;
    Some(slot.ptr as *mut u8)
}

/// Keeps a freed block; returns the blocks the pool gives up (to free outside the lock).
fn keep(ptr: *mut u8, layout: &Layout, evicted: &mut [Option<Slot>; SLOTS]) -> bool {
    let Ok(mut pool) = POOL.lock() else { return false };
    if layout.size() > CAP {
        return false;
    }
    let mut n = 0;
    // make room: the oldest blocks go first
    while pool.bytes + layout.size() > CAP || pool.slots.iter().all(|s| s.is_some()) {
        let Some(k) = (0..SLOTS)
            .filter(|&k| pool.slots[k].is_some())
            .min_by_key(|&k| pool.slots[k].map_or(u64::MAX, |s| s.age))
        else {
            break;
        };
        let old = pool.slots[k].take();
        if let Some(s) = old {
            pool.bytes -= s.size;
        }
        evicted[n] = old;
        n += 1;
    }
    let Some(free) = pool.slots.iter().position(|s| s.is_none()) else {
        return false;
    };
    pool.clock += 1;
    let age = pool.clock;
    pool.slots[free] = Some(Slot {
        ptr: ptr as usize,
        size: layout.size(),
        align: layout.align(),
        age,
    });
    pool.bytes += layout.size();
    true
}

/// Frees a block of a pooled size: kept for the next request of its size,
/// or given back. Out of line because its array of evicted slots gives it a
/// 5 KiB stack frame (probed, six registers saved), which the inlined form
/// made every small free of a statement pay for.
///
/// SAFETY (callers): as `GlobalAlloc::dealloc`, and `pooled(&layout)`.
#[inline(never)]
unsafe fn dealloc_pooled(ptr: *mut u8, layout: Layout) {
    let mut evicted = [None; SLOTS];
    let kept = keep(ptr, &layout, &mut evicted);
    for s in evicted.into_iter().flatten() {
        // SAFETY: an evicted block was pooled with this size and alignment, and is no longer in the pool.
        unsafe { Base.dealloc(s.ptr as *mut u8, Layout::from_size_align_unchecked(s.size, s.align)) };
    }
    if !kept {
        // SAFETY: forwarding the caller's block and layout.
        unsafe { Base.dealloc(ptr, layout) }
    }
}

#[cfg(target_os = "linux")]
fn advise_huge(ptr: *mut u8, size: usize) {
    unsafe extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    const MADV_HUGEPAGE: i32 = 14;
    const PAGE: usize = 2 << 20;
    let start = (ptr as usize).next_multiple_of(PAGE);
    let end = (ptr as usize + size) & !(PAGE - 1);
    if end > start {
        // SAFETY: the range lies inside a block this allocator just obtained;
        // MADV_HUGEPAGE is advice only and never changes its contents.
        unsafe {
            madvise(start as *mut std::ffi::c_void, end - start, MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_ptr: *mut u8, _size: usize) {}

// SAFETY: every block comes from `Base` (mimalloc) with the requested layout (pooled
// blocks are reused only for the exact size and alignment they were made
// with), and each is freed or pooled exactly once.
unsafe impl GlobalAlloc for PoolAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if pooled(&layout) {
            if let Some(p) = take(&layout) {
                return p;
            }
            // SAFETY: forwarding the caller's non-zero layout.
            let p = unsafe { Base.alloc(layout) };
            if !p.is_null() && layout.size() >= HUGE {
                advise_huge(p, layout.size());
            }
            return p;
        }
        // SAFETY: forwarding the caller's layout.
        unsafe { Base.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if pooled(&layout) {
            if let Some(p) = take(&layout) {
                // SAFETY: the block holds layout.size() bytes.
                unsafe { std::ptr::write_bytes(p, 0, layout.size()) };
                return p;
            }
            // SAFETY: forwarding the caller's layout (fresh pages are zero: no memset).
            let p = unsafe { Base.alloc_zeroed(layout) };
            if !p.is_null() && layout.size() >= HUGE {
                advise_huge(p, layout.size());
            }
            return p;
        }
        // SAFETY: forwarding the caller's layout.
        unsafe { Base.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if pooled(&layout) {
            // SAFETY: forwarding the caller's block and layout.
            unsafe { dealloc_pooled(ptr, layout) };
            return;
        }
        // SAFETY: forwarding the caller's block and layout.
        unsafe { Base.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !pooled(&layout) && new_size < MIN_POOLED {
            // SAFETY: forwarding the caller's arguments.
            return unsafe { Base.realloc(ptr, layout, new_size) };
        }
        // SAFETY: the caller guarantees a valid new layout for `new_size`.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: as GlobalAlloc's default realloc: a new block, the common prefix copied, the old one freed.
        unsafe {
            let new = self.alloc(new_layout);
            if !new.is_null() {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            new
        }
    }
}

#[cfg(test)]
mod tests {
    /// A freed mid-sized block is handed out again for the same size: what
    /// a loop's kernel outputs rely on to skip fresh pages.
    #[test]
    fn a_freed_mid_sized_block_is_reused() {
        // an odd size, so that no other test's blocks match it
        let n = (super::MIN_POOLED + 4093) / 8;
        let a: Vec<f64> = Vec::with_capacity(n);
        let p = a.as_ptr() as usize;
        drop(a);
        let b: Vec<f64> = Vec::with_capacity(n);
        assert_eq!(b.as_ptr() as usize, p);
    }
}
