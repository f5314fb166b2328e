//! Host kernels for sorting, searching and counting (`sort`, `argsort`,
//! `unique`, `searchsorted`, quantiles, `bincount`, `histogram`) and for
//! boolean-mask and integer-array indexing. They define these functions'
//! meaning for every backend: NumPy's, with NaN ordered after every number
//! (and NaNs equal to each other), sorts stable.
//!
//! Data is contiguous row-major; an axis is described by `(outer, len,
//! inner)`: line `(o, i)` is the elements `o * len * inner + k * inner + i`.

use super::vsort;
use crate::graph::data::HostData;
use rayon::prelude::*;
use std::cmp::Ordering;
use std::mem::MaybeUninit;

/// An element type that can be sorted with NumPy's order (NaN last).
pub trait Key: Copy + PartialOrd + Send + Sync + 'static {
    fn is_nan_key(self) -> bool {
        false
    }
    fn as_f64(self) -> f64;
    /// The host storage of a vector of these.
    fn wrap(v: Vec<Self>) -> HostData;
    /// Bytes of `radix_key` that can differ.
    const KEY_BYTES: usize;
    /// An unsigned integer whose order is NumPy's order of the values
    /// (`order`): equal for equal values (-0.0 and 0.0, every NaN).
    fn radix_key(self) -> u64;
    /// The width of `exact_key` in bytes where the vector sort serves
    /// this type (4 or 8); 0 where it does not.
    const EXACT_BYTES: usize = 0;
    /// For sorting values alone: an unsigned integer of the value's width
    /// in NumPy's order that gives the value back (`from_exact_key`), so
    /// that equal keys are equal bits and an unstable sort of the keys is
    /// the stable sort. None for the values that equal other bits (NaN,
    /// -0.0): the stable sort keeps their order.
    fn exact_key(self) -> Option<u64> {
        None
    }
    fn from_exact_key(_key: u64) -> Self {
        unreachable!("no exact key")
    }
}

/// The exact key of an IEEE float's `bits` (`width` bits wide, sign on
/// top) that is neither NaN nor -0.0: positives above negatives, negatives
/// by falling magnitude.
#[inline(always)]
fn float_exact_key(bits: u64, width: u32, is_nan: bool) -> Option<u64> {
    let sign = 1u64 << (width - 1);
    let all = sign | (sign - 1);
    (!is_nan && bits != sign).then_some(bits ^ if bits & sign != 0 { all } else { sign })
}

/// The bits of the float whose exact key is `key` (`float_exact_key`).
#[inline(always)]
fn float_from_exact_key(key: u64, width: u32) -> u64 {
    let sign = 1u64 << (width - 1);
    let all = sign | (sign - 1);
    key ^ if key & sign != 0 { sign } else { all }
}

/// The radix key of an IEEE float's `bits` (`width` bits wide, sign on
/// top): positives above negatives, negatives by falling magnitude, both
/// zeros one key, every NaN the largest key.
#[inline(always)]
fn float_key(bits: u64, width: u32, is_nan: bool) -> u64 {
    let sign = 1u64 << (width - 1);
    let all = sign | (sign - 1);
    // selects rather than branches: a line of mixed signs would mispredict
    // one branch in two, on every pass of the radix sort
    let negative = 0u64.wrapping_sub(bits >> (width - 1));
    let key = bits ^ ((negative & all) | sign);
    let key = if bits & !sign == 0 { sign } else { key };
    if is_nan { all } else { key }
}

impl Key for bool {
    const KEY_BYTES: usize = 1;
    #[inline(always)]
    fn radix_key(self) -> u64 {
        self as u64
    }
    fn wrap(v: Vec<Self>) -> HostData {
        HostData::Bool(v)
    }
    fn as_f64(self) -> f64 {
        self as u8 as f64
    }
}
impl Key for i32 {
    const KEY_BYTES: usize = 4;
    const EXACT_BYTES: usize = 4;
    #[inline(always)]
    fn exact_key(self) -> Option<u64> {
        Some(self.radix_key())
    }
    #[inline(always)]
    fn from_exact_key(key: u64) -> Self {
        (key as u32 ^ (1 << 31)) as i32
    }
    #[inline(always)]
    fn radix_key(self) -> u64 {
        (self as u32 ^ (1 << 31)) as u64
    }
    fn wrap(v: Vec<Self>) -> HostData {
        HostData::I32(v)
    }
    fn as_f64(self) -> f64 {
        self as f64
    }
}
/// The narrow integers: their radix key is the value offset to be unsigned
/// (`KEY_BYTES` wide); the vector sort serves u32 only (4-byte keys).
macro_rules! narrow_int_key {
    ($t:ty, $variant:ident, $bytes:expr, $exact:expr) => {
        impl Key for $t {
            const KEY_BYTES: usize = $bytes;
            const EXACT_BYTES: usize = $exact;
            #[inline(always)]
            fn exact_key(self) -> Option<u64> {
                Some(self.radix_key())
            }
            #[inline(always)]
            fn from_exact_key(key: u64) -> Self {
                (key as i64 + <$t>::MIN as i64) as $t
            }
            #[inline(always)]
            fn radix_key(self) -> u64 {
                (self as i64 - <$t>::MIN as i64) as u64
            }
            fn wrap(v: Vec<Self>) -> HostData {
                HostData::$variant(v)
            }
            fn as_f64(self) -> f64 {
                self as f64
            }
        }
    };
}
narrow_int_key!(u8, U8, 1, 0);
narrow_int_key!(i8, I8, 1, 0);
narrow_int_key!(i16, I16, 2, 0);
narrow_int_key!(u16, U16, 2, 0);
narrow_int_key!(u32, U32, 4, 4);

impl Key for i64 {
    const KEY_BYTES: usize = 8;
    const EXACT_BYTES: usize = 8;
    #[inline(always)]
    fn exact_key(self) -> Option<u64> {
        Some(self.radix_key())
    }
    #[inline(always)]
    fn from_exact_key(key: u64) -> Self {
        (key ^ (1 << 63)) as i64
    }
    #[inline(always)]
    fn radix_key(self) -> u64 {
        self as u64 ^ (1 << 63)
    }
    fn wrap(v: Vec<Self>) -> HostData {
        HostData::I64(v)
    }
    fn as_f64(self) -> f64 {
        self as f64
    }
}
impl Key for f32 {
    const KEY_BYTES: usize = 4;
    const EXACT_BYTES: usize = 4;
    #[inline(always)]
    fn exact_key(self) -> Option<u64> {
        float_exact_key(self.to_bits() as u64, 32, self.is_nan())
    }
    #[inline(always)]
    fn from_exact_key(key: u64) -> Self {
        f32::from_bits(float_from_exact_key(key, 32) as u32)
    }
    #[inline(always)]
    fn radix_key(self) -> u64 {
        float_key(self.to_bits() as u64, 32, self.is_nan())
    }
    fn wrap(v: Vec<Self>) -> HostData {
        HostData::F32(v)
    }
    fn is_nan_key(self) -> bool {
        self.is_nan()
    }
    fn as_f64(self) -> f64 {
        self as f64
    }
}
// Half floats order as their f32 values (exact), NaNs last as for f32.
impl Key for half::f16 {
    const KEY_BYTES: usize = 2;
    #[inline(always)]
    fn radix_key(self) -> u64 {
        float_key(self.to_bits() as u64, 16, self.is_nan())
    }
    fn wrap(v: Vec<Self>) -> HostData {
        HostData::F16(v)
    }
    fn is_nan_key(self) -> bool {
        self.is_nan()
    }
    fn as_f64(self) -> f64 {
        self.to_f64()
    }
}
impl Key for half::bf16 {
    const KEY_BYTES: usize = 2;
    #[inline(always)]
    fn radix_key(self) -> u64 {
        float_key(self.to_bits() as u64, 16, self.is_nan())
    }
    fn wrap(v: Vec<Self>) -> HostData {
        HostData::BF16(v)
    }
    fn is_nan_key(self) -> bool {
        self.is_nan()
    }
    fn as_f64(self) -> f64 {
        self.to_f64()
    }
}
impl Key for f64 {
    const KEY_BYTES: usize = 8;
    const EXACT_BYTES: usize = 8;
    #[inline(always)]
    fn exact_key(self) -> Option<u64> {
        float_exact_key(self.to_bits(), 64, self.is_nan())
    }
    #[inline(always)]
    fn from_exact_key(key: u64) -> Self {
        f64::from_bits(float_from_exact_key(key, 64))
    }
    #[inline(always)]
    fn radix_key(self) -> u64 {
        float_key(self.to_bits(), 64, self.is_nan())
    }
    fn wrap(v: Vec<Self>) -> HostData {
        HostData::F64(v)
    }
    fn is_nan_key(self) -> bool {
        self.is_nan()
    }
    fn as_f64(self) -> f64 {
        self
    }
}

/// NumPy's sort order: numbers ascending (-0.0 equal to 0.0), NaN after all of them.
pub fn order<T: Key>(a: T, b: T) -> Ordering {
    match (a.is_nan_key(), b.is_nan_key()) {
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
    }
}

/// Calls `each(line)` for every line of the `(outer, len, inner)` layout,
/// with the line's elements gathered contiguously; writes the result back to
/// the same positions of `out`. (Contiguous lines, `inner == 1`, are sorted
/// where they lie by `sort_lines` and `argsort_lines`.)
fn per_line<T: Key, U: Copy + Send + Sync + Default>(
    v: &[T],
    (outer, len, inner): (usize, usize, usize),
    each: impl Fn(&mut Vec<T>) -> Vec<U> + Sync,
) -> Vec<U> {
    let mut out = vec![U::default(); v.len()];
    if len == 0 {
        return out;
    }
    let results: Vec<Vec<U>> = (0..outer * inner)
        .into_par_iter()
        .map(|l| {
            let (o, i) = (l / inner, l % inner);
            let base = o * len * inner + i;
            let mut line: Vec<T> = (0..len).map(|k| v[base + k * inner]).collect();
            each(&mut line)
        })
        .collect();
    for (l, r) in results.into_iter().enumerate() {
        let (o, i) = (l / inner, l % inner);
        let base = o * len * inner + i;
        for (k, x) in r.into_iter().enumerate() {
            out[base + k * inner] = x;
        }
    }
    out
}

/// Lines at least this long are radix sorted; shorter ones merge sorted on
/// their radix keys, where a digit's histogram would cost more than the line.
const RADIX_LINE: usize = 512;

/// Lines at least this long are split by every thread together, a chunk of
/// the line each (shorter lines take one thread, and many lines go a line
/// to a thread).
const PAR_LINE: usize = 1 << 15;

/// Lines of at most this many bytes are radix sorted least significant
/// digit first: the line and its scratch stay in cache through every pass.
/// Longer lines are first split by their most significant differing digit,
/// so that every pass after the first runs on a part that fits in cache.
const LSD_BYTES: usize = 1 << 17;

/// Where the chunks of one radix pass write: each at positions no other
/// chunk writes (`scatter`).
#[derive(Clone, Copy)]
struct Scatter<T>(*mut T);

// SAFETY: a `Scatter` is only written through at positions that one
// chunk's offsets own (a partition of the buffer it points into), while
// the buffer is borrowed mutably by the pass that made it.
unsafe impl<T: Send> Send for Scatter<T> {}
// SAFETY: as for Send.
unsafe impl<T: Send> Sync for Scatter<T> {}

impl<T> Scatter<T> {
    /// # Safety
    /// `i` is inside the buffer and no other thread writes it in this pass.
    #[inline(always)]
    unsafe fn put(self, i: usize, v: T) {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.add(i).write(v) }
    }
}

/// `f(c)` for every chunk c of `chunks`, on the pool when there are several.
fn each_chunk<R: Send>(chunks: usize, f: impl Fn(usize) -> R + Sync + Send) -> Vec<R> {
    if chunks == 1 {
        vec![f(0)]
    } else {
        (0..chunks).into_par_iter().map(f).collect()
    }
}

/// A histogram of one byte of the radix keys.
type Counts = [usize; 256];

/// Moves `src` (with `src_at`, the positions, alongside) into `dst` stably
/// by digit, the line cut into chunks with their own counts `hist[c]`: for
/// every digit, chunk 0's elements land before chunk 1's.
fn scatter<T: Key>(
    src: &[T],
    src_at: Option<&[i64]>,
    dst: &mut [T],
    dst_at: Option<&mut [i64]>,
    hist: &[Counts],
    digit: impl Fn(T) -> usize + Sync + Send,
) {
    let (n, chunks) = (src.len(), hist.len());
    let size = n.div_ceil(chunks);
    let mut starts = vec![[0usize; 256]; chunks];
    let mut sum = 0;
    for d in 0..256 {
        for (start, h) in starts.iter_mut().zip(hist) {
            start[d] = sum;
            sum += h[d];
        }
    }
    debug_assert!(sum == n && dst.len() == n);
    let to = Scatter(dst.as_mut_ptr());
    let moved = src_at.zip(dst_at.map(|q| Scatter(q.as_mut_ptr())));
    each_chunk(chunks, |c| {
        let mut at = starts[c];
        let r = (c * size).min(n)..((c + 1) * size).min(n);
        match moved {
            Some((from, to_at)) => {
                for (&x, &i) in src[r.clone()].iter().zip(&from[r]) {
                    let d = digit(x);
                    // SAFETY: `at` runs through this chunk's own positions
                    // for digit d (the offsets partition 0..n), inside `dst`
                    // and the positions' destination, both n long.
                    unsafe {
                        to.put(at[d], x);
                        to_at.put(at[d], i);
                    }
                    at[d] += 1;
                }
            }
            None => {
                for &x in &src[r] {
                    let d = digit(x);
                    // SAFETY: as above, inside `dst`.
                    unsafe { to.put(at[d], x) };
                    at[d] += 1;
                }
            }
        }
    });
}

/// The histograms of `bytes` of the radix keys of `v`, one pass for all.
fn count_digits<T: Key>(v: &[T], bytes: &[usize]) -> Vec<Counts> {
    let mut counts = vec![[0usize; 256]; bytes.len()];
    for &x in v {
        let k = x.radix_key();
        for (&b, count) in bytes.iter().zip(counts.iter_mut()) {
            count[((k >> (8 * b)) & 0xff) as usize] += 1;
        }
    }
    counts
}

/// `line` sorted stably in NumPy's order, with the positions its elements
/// came from moved alongside where `positions` is given (argsort).
fn sort_line<T: Key>(line: &mut [T], positions: Option<&mut [i64]>) {
    if positions.is_none() && line.len() >= VECTOR_LINE {
        if line.len() <= SHORT_EXACT {
            if sort_exact_short(line) {
                return;
            }
        } else if let Some(sorted) = sort_exact(line) {
            return line.copy_from_slice(&sorted);
        }
    }
    sort_line_stable(line, positions);
}

/// `sort_line` by the stable sorts alone: a merge sort of short lines, the
/// radix sort of longer ones.
fn sort_line_stable<T: Key>(line: &mut [T], positions: Option<&mut [i64]>) {
    if line.len() < RADIX_LINE {
        return sort_short(line, positions);
    }
    let mut scratch = line.to_vec();
    let mut scratch_at = positions.as_ref().map(|p| p.to_vec());
    radix_sort(line, positions, &mut scratch, scratch_at.as_deref_mut(), T::KEY_BYTES);
}

/// Lines of values alone at least this long go to the vector sort.
const VECTOR_LINE: usize = 64;

/// Lines at most this long are sorted by exact key in buffers each thread
/// keeps (`Scratch`); longer ones in buffers of their own.
const SHORT_EXACT: usize = 1024;

/// `values` sorted by their exact keys with the vector sort; None where
/// the type or the machine has none, or a value has no exact key.
fn sort_exact<T: Key>(values: &[T]) -> Option<Vec<T>> {
    fn by<T: Key, K: Copy + Default + Send + Sync>(values: &[T], sort: fn(&mut [K], &mut [K]) -> bool) -> Option<Vec<T>>
    where
        u64: Narrow<K>,
    {
        let n = values.len();
        let mut keys = vec![K::default(); n];
        let all = if n >= PAR_LINE {
            keys.par_chunks_mut(PAR_LINE)
                .zip(values.par_chunks(PAR_LINE))
                .map(|(k, x)| exact_keys(x, k))
                .reduce(|| true, |a, b| a & b)
        } else {
            exact_keys(values, &mut keys)
        };
        if !all || !sort(&mut keys, &mut vec![K::default(); n]) {
            return None;
        }
        let value = |&k: &K| T::from_exact_key(u64::widen(k));
        Some(if n >= PAR_LINE {
            keys.par_iter().map(value).collect()
        } else {
            keys.iter().map(value).collect()
        })
    }
    if !vsort::available() {
        return None;
    }
    match T::EXACT_BYTES {
        4 => by::<T, u32>(values, vsort::sort_u32),
        8 => by::<T, u64>(values, vsort::sort_u64),
        _ => None,
    }
}

/// Sorts a line of at most `SHORT_EXACT` values where it lies, as
/// `sort_exact` does; false, with nothing done, where that gives None.
fn sort_exact_short<T: Key>(line: &mut [T]) -> bool {
    sort_exact_short_to(Lines::InPlace(line))
}

/// `src` (at most `SHORT_EXACT` values) sorted by exact key into `dst`;
/// false, with `dst` untouched, where `sort_exact` would give None.
fn sort_exact_short_into<T: Key>(src: &[T], dst: &mut [T]) -> bool {
    sort_exact_short_to(Lines::Into(src, dst))
}

/// Where a short line's values come from and its sorted values go.
enum Lines<'a, T> {
    InPlace(&'a mut [T]),
    Into(&'a [T], &'a mut [T]),
}

impl<T> Lines<'_, T> {
    fn src(&self) -> &[T] {
        match self {
            Lines::InPlace(line) => line,
            Lines::Into(src, _) => src,
        }
    }
    fn dst(&mut self) -> &mut [T] {
        match self {
            Lines::InPlace(line) => line,
            Lines::Into(_, dst) => dst,
        }
    }
}

fn sort_exact_short_to<T: Key>(lines: Lines<'_, T>) -> bool {
    fn by<T: Key, K: Scratch>(mut lines: Lines<'_, T>, sort: fn(&mut [K], &mut [K]) -> bool) -> bool
    where
        u64: Narrow<K>,
    {
        K::with(lines.src().len(), |keys, room| {
            if !exact_keys(lines.src(), keys) || !sort(keys, room) {
                return false;
            }
            for (x, &k) in lines.dst().iter_mut().zip(keys.iter()) {
                *x = T::from_exact_key(u64::widen(k));
            }
            true
        })
    }
    debug_assert!(lines.src().len() <= SHORT_EXACT);
    if !vsort::available() {
        return false;
    }
    match T::EXACT_BYTES {
        4 => by::<T, u32>(lines, vsort::sort_u32),
        8 => by::<T, u64>(lines, vsort::sort_u64),
        _ => false,
    }
}

/// Keys of one width with this thread's two buffers of `SHORT_EXACT` of
/// them, for `sort_exact_short`: a sort of many short rows fills them once
/// per thread rather than zeroing a stack buffer per row (8 KiB of u32
/// keys, 16 KiB of u64: zeroing them was about 8% of a sort of (1000, 200)
/// f32 rows).
trait Scratch: Copy + Default + 'static {
    /// Runs `f` on the buffers cut to `n <= SHORT_EXACT` keys each.
    fn with<R>(n: usize, f: impl FnOnce(&mut [Self], &mut [Self]) -> R) -> R;
}

macro_rules! scratch {
    ($k:ty) => {
        impl Scratch for $k {
            fn with<R>(n: usize, f: impl FnOnce(&mut [$k], &mut [$k]) -> R) -> R {
                thread_local! {
                    static BUF: std::cell::RefCell<Vec<$k>> = const { std::cell::RefCell::new(Vec::new()) };
                }
                BUF.with(|buf| match buf.try_borrow_mut() {
                    Ok(mut buf) => {
                        if buf.len() < 2 * SHORT_EXACT {
                            buf.resize(2 * SHORT_EXACT, 0);
                        }
                        let (keys, room) = buf.split_at_mut(SHORT_EXACT);
                        f(&mut keys[..n], &mut room[..n])
                    }
                    // a sort inside a sort on this thread (a rayon task
                    // stolen while waiting): buffers of its own
                    Err(_) => {
                        let mut own = vec![0 as $k; 2 * n];
                        let (keys, room) = own.split_at_mut(n);
                        f(keys, room)
                    }
                })
            }
        }
    };
}
scratch!(u32);
scratch!(u64);

/// An exact key narrowed to its type's width (`Key::EXACT_BYTES`), and back.
trait Narrow<K> {
    fn narrow(self) -> K;
    fn widen(k: K) -> Self;
}
impl Narrow<u32> for u64 {
    fn narrow(self) -> u32 {
        self as u32
    }
    fn widen(k: u32) -> u64 {
        k as u64
    }
}
impl Narrow<u64> for u64 {
    fn narrow(self) -> u64 {
        self
    }
    fn widen(k: u64) -> u64 {
        k
    }
}

/// Every value's exact key into `keys`; whether all have one. No early
/// exit: the loop stays free of branches.
fn exact_keys<T: Key, K>(values: &[T], keys: &mut [K]) -> bool
where
    u64: Narrow<K>,
{
    let mut all = true;
    for (k, x) in keys.iter_mut().zip(values) {
        let e = x.exact_key();
        all &= e.is_some();
        *k = e.unwrap_or(0).narrow();
    }
    all
}

/// A short line sorted stably by comparing radix keys.
fn sort_short<T: Key>(line: &mut [T], positions: Option<&mut [i64]>) {
    match positions {
        Some(p) => {
            let mut pairs: Vec<(T, i64)> = line.iter().copied().zip(p.iter().copied()).collect();
            pairs.sort_by_key(|x| x.0.radix_key());
            for (k, (v, i)) in pairs.into_iter().enumerate() {
                line[k] = v;
                p[k] = i;
            }
        }
        None => line.sort_by_key(|x| x.radix_key()),
    }
}

/// A part of a line split by a digit, in the line and in the scratch, with
/// its positions in both where they are moved alongside.
type Part<'a, T> = (&'a mut [T], &'a mut [T], Option<&'a mut [i64]>, Option<&'a mut [i64]>);

/// Sorts `v` stably by the low `top` bytes of `radix_key` (the bytes above
/// are equal throughout `v`), moving `at` alongside; `sv` and `sat` are
/// scratch as long. A byte the same in every key is skipped (small
/// integers, floats of one sign and exponent range). A line that fits in
/// cache is sorted a byte a pass from the least significant. A longer one
/// is scattered by its most significant differing byte, and each part is
/// sorted on the bytes below, the parts in parallel; a long line's passes
/// are cut into one chunk per thread.
fn radix_sort<T: Key>(v: &mut [T], mut at: Option<&mut [i64]>, sv: &mut [T], mut sat: Option<&mut [i64]>, top: usize) {
    let n = v.len();
    if n < RADIX_LINE {
        return sort_short(v, at);
    }
    let fits = std::mem::size_of_val(v) <= LSD_BYTES;
    let chunks = if !fits && n >= PAR_LINE {
        rayon::current_num_threads().max(1)
    } else {
        1
    };
    let size = n.div_ceil(chunks);
    let chunk = |c: usize| (c * size).min(n)..((c + 1) * size).min(n);
    // the bits in which some two keys differ: a byte without one is skipped
    let differ = each_chunk(chunks, |c| {
        v[chunk(c)].iter().fold((0u64, !0u64), |(or, and), &x| {
            let k = x.radix_key();
            (or | k, and & k)
        })
    });
    let differ = differ.iter().fold(0u64, |d, (or, _)| d | or) ^ differ.iter().fold(!0u64, |d, (_, and)| d & and);
    let differs = |b: usize| (differ >> (8 * b)) & 0xff != 0;
    if fits {
        // one chunk: a byte's histogram is the same in every arrangement
        let bytes: Vec<usize> = (0..top).filter(|&b| differs(b)).collect();
        let counted = count_digits(v, &bytes);
        let mut in_scratch = false;
        for (&b, counts) in bytes.iter().zip(&counted) {
            let digit = move |x: T| ((x.radix_key() >> (8 * b)) & 0xff) as usize;
            if in_scratch {
                scatter(
                    sv,
                    sat.as_deref(),
                    v,
                    at.as_deref_mut(),
                    std::slice::from_ref(counts),
                    digit,
                );
            } else {
                scatter(
                    v,
                    at.as_deref(),
                    sv,
                    sat.as_deref_mut(),
                    std::slice::from_ref(counts),
                    digit,
                );
            }
            in_scratch = !in_scratch;
        }
        if in_scratch {
            v.copy_from_slice(sv);
            if let (Some(a), Some(s)) = (at, sat) {
                a.copy_from_slice(s);
            }
        }
        return;
    }
    let Some(b) = (0..top).rev().find(|&b| differs(b)) else {
        return;
    };
    let hist: Vec<Counts> = each_chunk(chunks, |c| count_digits(&v[chunk(c)], &[b])[0]);
    scatter(v, at.as_deref(), sv, sat.as_deref_mut(), &hist, move |x: T| {
        ((x.radix_key() >> (8 * b)) & 0xff) as usize
    });
    // the parts lie in the scratch now: each is sorted there on the bytes
    // below `b`, with its place in `v` as scratch, then copied back while
    // it is still in cache
    let mut parts = Vec::new();
    let (mut rest_v, mut rest_s) = (v, sv);
    let (mut rest_at, mut rest_sat) = (at, sat);
    for d in 0..256 {
        let len: usize = hist.iter().map(|h| h[d]).sum();
        if len == 0 {
            continue;
        }
        let (pv, tv) = std::mem::take(&mut rest_v).split_at_mut(len);
        let (ps, ts) = std::mem::take(&mut rest_s).split_at_mut(len);
        let (pa, ta) = rest_at.take().map(|a| a.split_at_mut(len)).unzip();
        let (psa, tsa) = rest_sat.take().map(|a| a.split_at_mut(len)).unzip();
        (rest_v, rest_s, rest_at, rest_sat) = (tv, ts, ta, tsa);
        parts.push((pv, ps, pa, psa));
    }
    let each = |(pv, ps, mut pa, mut psa): Part<T>| {
        radix_sort(ps, psa.as_deref_mut(), pv, pa.as_deref_mut(), b);
        pv.copy_from_slice(ps);
        if let (Some(a), Some(s)) = (pa, psa) {
            a.copy_from_slice(s);
        }
    };
    if n >= PAR_LINE {
        parts.into_par_iter().for_each(each);
    } else {
        parts.into_iter().for_each(each);
    }
}

/// Sorts every line ascending (NaN last), stable.
pub fn sort_lines<T: Key + Default>(v: &[T], lines: (usize, usize, usize)) -> Vec<T> {
    let (outer, len, inner) = lines;
    if outer * inner == 1 && len >= VECTOR_LINE {
        // one line: sorted into a new vector, or where the vector sort
        // declines (a NaN, -0.0), by the stable sort without a second try
        if let Some(sorted) = sort_exact(v) {
            return sorted;
        }
        let mut out = v.to_vec();
        sort_line_stable(&mut out, None);
        return out;
    }
    if inner == 1 && len > 0 {
        let mut out = vec![T::default(); v.len()];
        // each line read from `v` where it is sorted, not copied first
        out.par_chunks_mut(len)
            .zip(v.par_chunks(len))
            .for_each(|(line, src)| sort_line_from(src, line));
        return out;
    }
    per_line(v, lines, |line| {
        sort_line(line, None);
        std::mem::take(line)
    })
}

/// `src` sorted into `dst` (as long), as `sort_line` sorts a line of values
/// in place: a short line's exact keys are read from `src` directly.
fn sort_line_from<T: Key>(src: &[T], dst: &mut [T]) {
    let short = (VECTOR_LINE..=SHORT_EXACT).contains(&src.len());
    if short && sort_exact_short_into(src, dst) {
        return;
    }
    dst.copy_from_slice(src);
    if short {
        // the vector sort declined (a NaN, -0.0): no second try of it
        sort_line_stable(dst, None);
    } else {
        sort_line(dst, None);
    }
}

/// For every line, the indices that sort it (stable: ties keep their order).
pub fn argsort_lines<T: Key>(v: &[T], lines: (usize, usize, usize)) -> Vec<i64> {
    let (_, len, inner) = lines;
    if inner == 1 && len > 0 {
        let mut out = vec![0i64; v.len()];
        out.par_chunks_mut(len).zip(v.par_chunks(len)).for_each(|(idx, src)| {
            for (k, i) in idx.iter_mut().enumerate() {
                *i = k as i64;
            }
            sort_line(&mut src.to_vec(), Some(idx));
        });
        return out;
    }
    per_line(v, lines, |line| {
        let mut idx: Vec<i64> = (0..line.len() as i64).collect();
        sort_line(line, Some(&mut idx));
        idx
    })
}

/// Every line of at least this many elements in all is partitioned on
/// several threads, lines to a thread (one line stays on one thread).
const PAR_SELECT: usize = 1 << 15;

/// Selects each of the ascending, distinct `kth` (positions of the whole
/// line, whose first element `line[0]` is at position `base`) where they
/// lie, by `select(part, k)`, which puts the element a sort would put at
/// `part[k]` there with nothing greater before it and nothing less after:
/// the middle kth first, then the parts either side of it with the kth
/// that fall in them, so that m kth cost about log2(m) passes over the
/// line rather than m.
fn select_each<E>(line: &mut [E], base: usize, kth: &[usize], select: &impl Fn(&mut [E], usize)) {
    if kth.is_empty() {
        return;
    }
    let mid = kth.len() / 2;
    let k = kth[mid] - base;
    select(line, k);
    let (left, right) = line.split_at_mut(k);
    select_each(left, base, &kth[..mid], select);
    select_each(&mut right[1..], base + k + 1, &kth[mid + 1..], select);
}

/// `line` partitioned where it lies around each of `kth` (ascending,
/// distinct, each below its length) in NumPy's order: the element a sort
/// would put at each kth is there, none greater before it and none less
/// after. A selection (introselect) on the radix key, so NaN is last and
/// both zeros are equal.
fn partition_line<T: Key>(line: &mut [T], kth: &[usize]) {
    select_each(line, 0, kth, &|part: &mut [T], k| {
        part.select_nth_unstable_by_key(k, |x| x.radix_key());
    });
}

/// Scratch for `argpartition_line`: the packed keys of one line.
#[derive(Default)]
struct Packed {
    narrow: Vec<u64>,
    wide: Vec<u128>,
}

/// Into `idx` (as long as `src`, every element written), indices of `src`
/// that partition it around each of `kth` (see `partition_line`). Each
/// element's radix key and index are packed into one integer, key above
/// index, and those are selected: an integer compare, and the indices come
/// out beside their keys with no gather.
fn argpartition_line<T: Key>(src: &[T], idx: &mut [MaybeUninit<i64>], kth: &[usize], packed: &mut Packed) {
    debug_assert_eq!(src.len(), idx.len());
    if T::KEY_BYTES <= 4 && src.len() <= 1 << 32 {
        let keys = &mut packed.narrow;
        keys.clear();
        keys.extend(src.iter().enumerate().map(|(i, x)| (x.radix_key() << 32) | i as u64));
        select_each(keys, 0, kth, &|part: &mut [u64], k| {
            part.select_nth_unstable(k);
        });
        for (o, &p) in idx.iter_mut().zip(keys.iter()) {
            o.write((p & 0xffff_ffff) as i64);
        }
    } else {
        let keys = &mut packed.wide;
        keys.clear();
        keys.extend(
            src.iter()
                .enumerate()
                .map(|(i, x)| ((x.radix_key() as u128) << 64) | i as u128),
        );
        select_each(keys, 0, kth, &|part: &mut [u128], k| {
            part.select_nth_unstable(k);
        });
        for (o, &p) in idx.iter_mut().zip(keys.iter()) {
            o.write(p as u64 as i64);
        }
    }
}

/// NumPy's `partition` of every line of the `(outer, len, inner)` layout
/// around `kth` (ascending, distinct, each below `len`; none for an empty
/// line): in each line the element a sort would put at each kth is there,
/// every element before it no greater and every one after no smaller (NaN
/// last, -0.0 equal to 0.0); the order within the parts is unspecified.
pub fn partition_lines<T: Key + Default>(v: &[T], lines: (usize, usize, usize), kth: &[usize]) -> Vec<T> {
    let (_, len, inner) = lines;
    if len == 0 || kth.is_empty() {
        return v.to_vec();
    }
    debug_assert!(kth.windows(2).all(|w| w[0] < w[1]) && kth.iter().all(|&k| k < len));
    if inner == 1 {
        let mut out = v.to_vec();
        if v.len() >= PAR_SELECT && v.len() > len {
            out.par_chunks_mut(len).for_each(|line| partition_line(line, kth));
        } else {
            out.chunks_mut(len).for_each(|line| partition_line(line, kth));
        }
        return out;
    }
    per_line(v, lines, |line| {
        partition_line(line, kth);
        std::mem::take(line)
    })
}

/// NumPy's `argpartition`: for every line, indices (i64) along it whose
/// gathered elements are the line partitioned as `partition_lines` does.
pub fn argpartition_lines<T: Key>(v: &[T], lines: (usize, usize, usize), kth: &[usize]) -> Vec<i64> {
    let (_, len, inner) = lines;
    if len == 0 || kth.is_empty() {
        let mut out = vec![0i64; v.len()];
        if len > 0 {
            // no kth: each line's own order
            for (k, o) in out.iter_mut().enumerate() {
                *o = ((k / inner) % len) as i64;
            }
        }
        return out;
    }
    debug_assert!(kth.windows(2).all(|w| w[0] < w[1]) && kth.iter().all(|&k| k < len));
    if inner == 1 {
        // every index is written below: the output is never zeroed first
        let mut out: Vec<i64> = Vec::with_capacity(v.len());
        let room = &mut out.spare_capacity_mut()[..v.len()];
        if v.len() >= PAR_SELECT && v.len() > len {
            room.par_chunks_mut(len)
                .zip(v.par_chunks(len))
                .for_each_init(Packed::default, |packed, (idx, src)| {
                    argpartition_line(src, idx, kth, packed)
                });
        } else {
            let mut packed = Packed::default();
            for (idx, src) in room.chunks_mut(len).zip(v.chunks(len)) {
                argpartition_line(src, idx, kth, &mut packed);
            }
        }
        // SAFETY: the lines cover all v.len() elements, and
        // `argpartition_line` writes each element of its line.
        unsafe { out.set_len(v.len()) };
        return out;
    }
    per_line(v, lines, |line| {
        let mut idx: Vec<i64> = Vec::with_capacity(line.len());
        argpartition_line(line, idx.spare_capacity_mut(), kth, &mut Packed::default());
        // SAFETY: `argpartition_line` writes every element of the line's indices.
        unsafe { idx.set_len(line.len()) };
        idx
    })
}

/// NumPy's `unique` of flattened values: the sorted distinct values (all
/// NaNs count as one, as `equal_nan=True`), the index of each one's first
/// occurrence, each element's position among the distinct values, and how
/// often each occurs.
pub struct Unique<T> {
    pub values: Vec<T>,
    pub first: Vec<i64>,
    pub inverse: Vec<i64>,
    pub counts: Vec<i64>,
}

pub fn unique<T: Key>(v: &[T]) -> Unique<T> {
    let mut perm: Vec<i64> = (0..v.len() as i64).collect();
    sort_line(&mut v.to_vec(), Some(&mut perm[..]));
    let mut u = Unique {
        values: Vec::new(),
        first: Vec::new(),
        inverse: vec![0; v.len()],
        counts: Vec::new(),
    };
    for &p in &perm {
        let x = v[p as usize];
        match u.values.last() {
            Some(&last) if order(last, x) == Ordering::Equal => {
                if let Some(c) = u.counts.last_mut() {
                    *c += 1;
                }
            }
            _ => {
                u.values.push(x);
                // the sort is stable, so the first of a run is the first occurrence
                u.first.push(p);
                u.counts.push(1);
            }
        }
        u.inverse[p as usize] = u.values.len() as i64 - 1;
    }
    u
}

/// What `unique_rows` finds: the rows themselves are gathered at `first` by the caller.
pub struct UniqueRows {
    pub first: Vec<i64>,
    pub inverse: Vec<i64>,
    pub counts: Vec<i64>,
}

/// `unique` of the rows of a row-major `[n, width]` block (NumPy's `unique`
/// with an axis, that axis moved first): in the rows' lexicographic order by
/// `order`, the first occurrence of each distinct row (`first`), each row's
/// position among them (`inverse`) and their counts.
pub fn unique_rows<T: Key>(v: &[T], n: usize, width: usize) -> UniqueRows {
    let row = |r: usize| &v[r * width..(r + 1) * width];
    let compare = |a: usize, b: usize| {
        row(a)
            .iter()
            .zip(row(b))
            .map(|(&x, &y)| order(x, y))
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    };
    let mut perm: Vec<usize> = (0..n).collect();
    // stable, so the first of each run of equal rows is its first occurrence
    perm.sort_by(|&a, &b| compare(a, b));
    let mut u = UniqueRows {
        first: Vec::new(),
        inverse: vec![0; n],
        counts: Vec::new(),
    };
    for (k, &p) in perm.iter().enumerate() {
        if k > 0 && compare(perm[k - 1], p) == Ordering::Equal {
            if let Some(c) = u.counts.last_mut() {
                *c += 1;
            }
        } else {
            u.first.push(p as i64);
            u.counts.push(1);
        }
        u.inverse[p] = u.first.len() as i64 - 1;
    }
    u
}

/// `unique(v).values` alone: the values sorted without their positions (so
/// by the vector sort where it runs), then each run of equal ones (NaNs
/// one run, both zeros one) cut to its first, which the stable order makes
/// the first occurrence as in `unique`.
pub fn unique_values<T: Key + Default>(v: &[T]) -> Vec<T> {
    let mut sorted = sort_lines(v, (1, v.len(), 1));
    sorted.dedup_by(|x, first| order(*first, *x) == Ordering::Equal);
    sorted
}

/// Where each of `v` would be inserted into the sorted `a` to keep it sorted:
/// before equal elements (`right == false`) or after them.
pub fn searchsorted<T: Key>(a: &[T], v: &[T], right: bool) -> Vec<i64> {
    v.par_iter()
        .map(|&x| {
            let p = if right {
                a.partition_point(|&e| order(e, x) != Ordering::Greater)
            } else {
                a.partition_point(|&e| order(e, x) == Ordering::Less)
            };
            p as i64
        })
        .collect()
}

/// NumPy's linear interpolation between `a` and `b` (`_lerp`): exact at
/// both ends, computed from the nearer one.
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    let d = b - a;
    if t >= 0.5 { b - d * (1.0 - t) } else { a + d * t }
}

/// How a quantile is read from a sorted line: NumPy's `method=` of
/// `percentile` and `quantile` (its `_QuantileMethods`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QuantileMethod {
    /// Between the order statistics around the virtual index `(n - 1) q`: the default.
    Linear,
    /// Between the order statistics around the virtual index
    /// `n q + alpha + q (1 - alpha - beta) - 1` (Hyndman and Fan's other
    /// continuous methods; "linear" is alpha = beta = 1, computed as NumPy does).
    Continuous {
        alpha: f64,
        beta: f64,
    },
    Lower,
    Higher,
    /// The closer order statistic, halves to the even index.
    Nearest,
    /// Halfway between the two order statistics around the index.
    Midpoint,
    InvertedCdf,
    AveragedInvertedCdf,
    ClosestObservation,
    /// `median`'s own reading: the middle value, or the mean of the middle
    /// two (NumPy's `mean` of them, not the linear method's interpolation,
    /// so two equal infinities give themselves).
    Median,
}

impl QuantileMethod {
    /// The method `name` names (`check::npsort::QUANTILE_METHODS`).
    pub fn named(name: &str) -> Option<QuantileMethod> {
        let c = |alpha: f64, beta: f64| QuantileMethod::Continuous { alpha, beta };
        Some(match name {
            "inverted_cdf" => QuantileMethod::InvertedCdf,
            "averaged_inverted_cdf" => QuantileMethod::AveragedInvertedCdf,
            "closest_observation" => QuantileMethod::ClosestObservation,
            "interpolated_inverted_cdf" => c(0.0, 1.0),
            "hazen" => c(0.5, 0.5),
            "weibull" => c(0.0, 0.0),
            "linear" => QuantileMethod::Linear,
            "median_unbiased" => c(1.0 / 3.0, 1.0 / 3.0),
            "normal_unbiased" => c(3.0 / 8.0, 3.0 / 8.0),
            "lower" => QuantileMethod::Lower,
            "higher" => QuantileMethod::Higher,
            "midpoint" => QuantileMethod::Midpoint,
            "nearest" => QuantileMethod::Nearest,
            _ => return None,
        })
    }

    /// Quantile `q` of a sorted line of `n > 0` values, as NumPy reads it.
    fn read(self, line: &[f64], q: f64) -> f64 {
        let n = line.len();
        let nf = n as f64;
        let last = n - 1;
        let at = |i: f64| line[(i.max(0.0) as usize).min(last)];
        // NumPy's discrete methods: the index before or after `v`
        let boundary = |v: f64, previous: bool| if previous { v.floor() } else { v.floor() + 1.0 };
        let (virtual_index, gamma_of): (f64, fn(f64, f64) -> f64) = match self {
            QuantileMethod::Median => {
                let h = n / 2;
                return if n % 2 == 1 {
                    line[h]
                } else {
                    (line[h - 1] + line[h]) / 2.0
                };
            }
            QuantileMethod::Lower => return at((last as f64 * q).floor()),
            QuantileMethod::Higher => return at((last as f64 * q).ceil()),
            QuantileMethod::Nearest => return at((last as f64 * q).round_ties_even()),
            QuantileMethod::InvertedCdf => {
                let v = nf * q - 1.0;
                return at(boundary(v, v - v.floor() == 0.0));
            }
            QuantileMethod::ClosestObservation => {
                let v = nf * q - 1.5;
                return at(boundary(v, v - v.floor() == 0.0 && v.floor().rem_euclid(2.0) == 1.0));
            }
            QuantileMethod::Linear => (last as f64 * q, |g, _| g),
            QuantileMethod::Continuous { alpha, beta } => (nf * q + (alpha + q * (1.0 - alpha - beta)) - 1.0, |g, _| g),
            QuantileMethod::Midpoint => {
                let v = last as f64 * q;
                (
                    0.5 * (v.floor() + v.ceil()),
                    |_, v| if v % 1.0 == 0.0 { 0.0 } else { 0.5 },
                )
            }
            QuantileMethod::AveragedInvertedCdf => (nf * q - 1.0, |g, _| if g == 0.0 { 0.5 } else { 1.0 }),
        };
        // NumPy's `_get_indexes`: past the last index both sides are the last
        // value, before the first both are the first
        // (`previous` as NumPy holds it: -1 for the last element)
        let (lo, hi, previous) = if virtual_index >= last as f64 {
            (last, last, -1.0)
        } else if virtual_index < 0.0 {
            (0, 0, 0.0)
        } else {
            let floor = virtual_index.floor();
            (floor as usize, (floor as usize + 1).min(last), floor)
        };
        lerp(line[lo], line[hi], gamma_of(virtual_index - previous, virtual_index))
    }
}

/// Quantiles `q` (each in [0, 1]) of every line by `method`. The result
/// holds, for each q in turn, one value per line (lines in `(outer, inner)`
/// order). A line with a NaN gives NaN; an empty line gives NaN.
pub fn quantile_lines<T: Key>(
    v: &[T],
    (outer, len, inner): (usize, usize, usize),
    q: &[f64],
    method: QuantileMethod,
) -> Vec<f64> {
    let per: Vec<Vec<f64>> = (0..outer * inner)
        .into_par_iter()
        .map(|l| {
            let (o, i) = (l / inner, l % inner);
            let base = o * len * inner + i;
            let mut line: Vec<f64> = (0..len).map(|k| v[base + k * inner].as_f64()).collect();
            if line.is_empty() || line.iter().any(|x| x.is_nan()) {
                return vec![f64::NAN; q.len()];
            }
            sort_line(&mut line, None);
            q.iter().map(|&q| method.read(&line, q)).collect()
        })
        .collect();
    let lines = outer * inner;
    let mut out = vec![0.0; lines * q.len()];
    for (l, vals) in per.into_iter().enumerate() {
        for (j, x) in vals.into_iter().enumerate() {
            out[j * lines + l] = x;
        }
    }
    out
}

/// Counts of each value 0..n of `x` (all already checked to lie in 0..n),
/// weighted when `weights` is given.
pub fn bincount(x: &[i64], weights: Option<&[f64]>, n: usize) -> (Vec<i64>, Vec<f64>) {
    match weights {
        None => (count(x, n), Vec::new()),
        Some(w) => {
            let mut c = vec![0f64; n];
            for (&k, &wt) in x.iter().zip(w) {
                c[k as usize] += wt;
            }
            (Vec::new(), c)
        }
    }
}

/// Elements of `x` a counting task takes.
const COUNT_CHUNK: usize = 1 << 16;

/// Counts of each value 0..n of `x`: chunks counted in parallel where the
/// counts are few beside the elements, each into four tables taking every
/// fourth element (a run of equal values then does not wait on its own
/// increments), the tables added.
fn count(x: &[i64], n: usize) -> Vec<i64> {
    let count_chunk = |x: &[i64]| -> Vec<i64> {
        let mut t = vec![0i64; 4 * n];
        let (t0, rest) = t.split_at_mut(n);
        let (t1, rest) = rest.split_at_mut(n);
        let (t2, t3) = rest.split_at_mut(n);
        let mut quads = x.chunks_exact(4);
        for q in &mut quads {
            t0[q[0] as usize] += 1;
            t1[q[1] as usize] += 1;
            t2[q[2] as usize] += 1;
            t3[q[3] as usize] += 1;
        }
        for &k in quads.remainder() {
            t0[k as usize] += 1;
        }
        for i in 0..n {
            t0[i] += t1[i] + t2[i] + t3[i];
        }
        t.truncate(n);
        t
    };
    if x.len() < 2 * COUNT_CHUNK || n * 16 > x.len() {
        return count_chunk(x);
    }
    x.par_chunks(COUNT_CHUNK)
        .map(count_chunk)
        .reduce_with(|mut a, b| {
            a.iter_mut().zip(&b).for_each(|(a, b)| *a += b);
            a
        })
        .unwrap_or_else(|| vec![0; n])
}

/// The bins between consecutive `edges` (ascending): bin i holds
/// edges[i] <= x < edges[i + 1], the last bin also its right edge.
/// `uniform` says the edges are evenly spaced (NumPy's fast path: an
/// estimate, then a fix against the edges, which gives the same bins).
pub struct Bins<'a> {
    edges: &'a [f64],
    uniform: bool,
    norm: f64,
}

impl<'a> Bins<'a> {
    pub fn new(edges: &'a [f64], uniform: bool) -> Bins<'a> {
        let bins = edges.len().saturating_sub(1);
        let norm = if bins == 0 {
            0.0
        } else {
            bins as f64 / (edges[bins] - edges[0])
        };
        Bins { edges, uniform, norm }
    }

    /// The bin of `x`; none for values outside the edges and NaN.
    pub fn of(&self, x: f64) -> Option<usize> {
        let e = self.edges;
        let bins = e.len().checked_sub(1).filter(|&b| b > 0)?;
        if !(x >= e[0] && x <= e[bins]) {
            return None;
        }
        let mut i = if self.uniform && self.norm.is_finite() {
            (((x - e[0]) * self.norm) as usize).min(bins - 1)
        } else {
            e.partition_point(|&v| v <= x).saturating_sub(1).min(bins - 1)
        };
        while i > 0 && x < e[i] {
            i -= 1;
        }
        while i + 1 < bins && x >= e[i + 1] {
            i += 1;
        }
        Some(i)
    }
}

/// Counts of `a`'s values in each bin (see `Bins`).
pub fn histogram(a: &[f64], edges: &[f64], uniform: bool) -> Vec<i64> {
    let bins = Bins::new(edges, uniform);
    let mut counts = vec![0i64; edges.len().saturating_sub(1)];
    for &x in a {
        if let Some(i) = bins.of(x) {
            counts[i] += 1;
        }
    }
    counts
}

/// The flat positions (over the mask's own elements) where `mask` is true.
pub fn true_positions(mask: &[bool]) -> Vec<i64> {
    mask.iter()
        .enumerate()
        .filter(|(_, m)| **m)
        .map(|(i, _)| i as i64)
        .collect()
}

/// Writes `values` (shape `(outer, positions.len(), inner)`) into `dst`
/// (shape `(outer, n, inner)`) at the given positions along the middle
/// axis; a repeated position keeps the last value written, as NumPy.
pub fn scatter_rows<T: Copy>(dst: &mut [T], (outer, n, inner): (usize, usize, usize), positions: &[i64], values: &[T]) {
    let m = positions.len();
    for o in 0..outer {
        for (k, &p) in positions.iter().enumerate() {
            let d = (o * n + p as usize) * inner;
            let s = (o * m + k) * inner;
            dst[d..d + inner].copy_from_slice(&values[s..s + inner]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stable comparison sort on `order`, the oracle of the radix sort.
    fn by_order<T: Key>(v: &[T]) -> Vec<i64> {
        let mut idx: Vec<i64> = (0..v.len() as i64).collect();
        idx.sort_by(|&a, &b| order(v[a as usize], v[b as usize]));
        idx
    }

    /// Radix and merge paths against the comparison sort: NaNs, both zeros,
    /// infinities, negatives, ties, every key width, lines either side of
    /// `RADIX_LINE`, and lines past `LSD_BYTES` and `PAR_LINE` (split by
    /// their top digit, by chunks on every thread, and their parts split
    /// again where they are still too long), and the sorted values bit for
    /// bit in argsort's order.
    #[test]
    fn radix_sorts_match_the_comparison_sort() {
        fn check<T: Key + Default + std::fmt::Debug>(v: &[T]) {
            let want = by_order(v);
            assert!(v.len() > PAR_LINE);
            for len in [v.len(), RADIX_LINE - 1, 7] {
                let v = &v[..len.min(v.len())];
                let want = if v.len() == want.len() {
                    want.clone()
                } else {
                    by_order(v)
                };
                assert_eq!(argsort_lines(v, (1, v.len(), 1)), want, "argsort of {} values", v.len());
                let sorted = sort_lines(v, (1, v.len(), 1));
                let bits = |x: &T| format!("{x:?}");
                let expect: Vec<String> = want.iter().map(|&i| bits(&v[i as usize])).collect();
                assert_eq!(sorted.iter().map(bits).collect::<Vec<_>>(), expect);
            }
        }
        let mut next = crate::backend::cpu::kernels::tests::xorshift();
        let specials = [
            f64::NAN,
            -0.0,
            0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -1.5,
            1.5,
            f64::MIN_POSITIVE,
        ];
        let f: Vec<f64> = (0..100_000)
            .map(|_| {
                let r = next();
                if r.is_multiple_of(7) {
                    specials[(r >> 8) as usize % specials.len()]
                } else {
                    ((r >> 11) % 2001) as f64 / 8.0 - 125.0
                }
            })
            .collect();
        check(&f);
        check(&f.iter().map(|&x| x as f32).collect::<Vec<_>>());
        // rows of 300: every row sorted on its own
        let rows: Vec<f64> = f[..30_000]
            .iter()
            .map(|x| if x.is_nan() { 1.0 } else { x + 0.0 })
            .collect();
        fn rows_match<T: Key + Default + std::fmt::Debug>(v: &[T], len: usize) {
            let sorted = sort_lines(v, (v.len() / len, len, 1));
            let bits = |x: &T| format!("{x:?}");
            for (row, got) in v.chunks(len).zip(sorted.chunks(len)) {
                let want: Vec<String> = by_order(row).iter().map(|&i| bits(&row[i as usize])).collect();
                assert_eq!(got.iter().map(bits).collect::<Vec<_>>(), want, "a row of {len}");
            }
        }
        rows_match(&rows, 300);
        rows_match(&rows.iter().map(|&x| x as f32).collect::<Vec<_>>(), 300);
        // rows holding NaN and -0.0 (most rows of 100 at these odds) keep the
        // stable sort; rows under `VECTOR_LINE` merge sort
        rows_match(&f[..20_000], 100);
        let mixed32: Vec<f32> = f[..20_000].iter().map(|&x| x as f32).collect();
        rows_match(&mixed32, 100);
        rows_match(&mixed32, 10);
        // without NaN and -0.0, floats go to the vector sort where it runs
        let exact: Vec<f64> = f
            .iter()
            .copied()
            .filter(|x| !x.is_nan() && x.to_bits() != (-0.0f64).to_bits())
            .collect();
        check(&exact);
        check(&exact.iter().map(|&x| x as f32).collect::<Vec<_>>());
        check(&f.iter().map(|&x| half::f16::from_f64(x)).collect::<Vec<_>>());
        check(&f.iter().map(|&x| half::bf16::from_f64(x)).collect::<Vec<_>>());
        let i: Vec<i64> = (0..100_000).map(|_| (next() as i64) >> (next() % 60)).collect();
        check(&i);
        check(&i.iter().map(|&x| x as i32).collect::<Vec<_>>());
        check(&i.iter().map(|&x| x % 3 == 0).collect::<Vec<_>>());
        check(&(0..100_000).map(|k: i32| k % 10).collect::<Vec<_>>());
        // uniform in [0, 1): half the keys share their top digit, a part
        // that is split again
        let u: Vec<f32> = (0..300_000)
            .map(|_| (next() >> 40) as f32 / (1u64 << 24) as f32)
            .collect();
        check(&u);
    }

    /// `partition_lines` and `argpartition_lines` against the stable sort:
    /// at every kth the sorted line's element (by `order`), nothing greater
    /// before it, nothing less after, the values a permutation of the line's
    /// (argpartition's indices a permutation of the line's positions); lines
    /// in place and gathered (`inner > 1`), one thread and several, the
    /// packed 32-bit and 64-bit keys, many kth and none.
    #[test]
    fn partitions_hold_at_every_kth() {
        fn check<T: Key + Default + std::fmt::Debug>(v: &[T], lines: (usize, usize, usize), kth: &[usize]) {
            let (outer, len, inner) = lines;
            let parted = partition_lines(v, lines, kth);
            let idx = argpartition_lines(v, lines, kth);
            let sorted = sort_lines(v, lines);
            let bits = |x: &T| format!("{x:?}");
            for o in 0..outer {
                for i in 0..inner {
                    let at = |k: usize| o * len * inner + k * inner + i;
                    let want: Vec<T> = (0..len).map(|k| sorted[at(k)]).collect();
                    let got: Vec<T> = (0..len).map(|k| parted[at(k)]).collect();
                    let mut seen = vec![false; len];
                    let gathered: Vec<T> = (0..len)
                        .map(|k| {
                            let j = idx[at(k)] as usize;
                            assert!(!seen[j], "index {j} twice in a line of {len}");
                            seen[j] = true;
                            v[at(j)]
                        })
                        .collect();
                    for line in [&got, &gathered] {
                        let mut a: Vec<String> = line.iter().map(bits).collect();
                        let mut b: Vec<String> = (0..len).map(|k| bits(&v[at(k)])).collect();
                        a.sort();
                        b.sort();
                        assert_eq!(a, b, "not a permutation of the line");
                        for &k in kth {
                            assert_eq!(order(line[k], want[k]), Ordering::Equal, "kth {k} of {len}");
                            assert!(line[..k].iter().all(|&x| order(x, line[k]) != Ordering::Greater));
                            assert!(line[k + 1..].iter().all(|&x| order(x, line[k]) != Ordering::Less));
                        }
                    }
                }
            }
        }
        let mut next = crate::backend::cpu::kernels::tests::xorshift();
        let specials = [f64::NAN, -0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY];
        let f: Vec<f64> = (0..80_000)
            .map(|_| {
                let r = next();
                if r.is_multiple_of(9) {
                    specials[(r >> 8) as usize % specials.len()]
                } else {
                    ((r >> 11) % 301) as f64 / 4.0 - 30.0
                }
            })
            .collect();
        let layouts: [(usize, usize, usize); 6] = [
            (1, 1, 1),
            (1, 2, 1),
            (3, 50, 4),
            (1, 5000, 1),
            (40, 2000, 1),
            (2, 300, 30),
        ];
        for (outer, len, inner) in layouts {
            let n = outer * len * inner;
            let mut kths = vec![vec![0], vec![len - 1], vec![len / 2], vec![0, len - 1]];
            let mut many: Vec<usize> = (0..40).map(|_| next() as usize % len).collect();
            many.sort_unstable();
            many.dedup();
            kths.push(many);
            if len <= 300 {
                kths.push((0..len).collect());
            }
            for kth in &mut kths {
                kth.dedup();
                let kth = &*kth;
                let lines = (outer, len, inner);
                check(&f[..n], lines, kth);
                check(&f[..n].iter().map(|&x| x as f32).collect::<Vec<_>>(), lines, kth);
                let ints: Vec<i64> = f[..n]
                    .iter()
                    .map(|&x| if x.is_finite() { (x * 4.0) as i64 } else { i64::MIN })
                    .collect();
                check(&ints, lines, kth);
                check(&ints.iter().map(|&x| x as i32).collect::<Vec<_>>(), lines, kth);
                check(
                    &f[..n].iter().map(|&x| half::f16::from_f64(x)).collect::<Vec<_>>(),
                    lines,
                    kth,
                );
                check(&f[..n].iter().map(|&x| x > 0.0).collect::<Vec<_>>(), lines, kth);
            }
        }
        // no kth: the values as they are, each line's own positions
        assert_eq!(partition_lines(&[3, 1, 2], (1, 3, 1), &[]), vec![3, 1, 2]);
        assert_eq!(argpartition_lines(&[3, 1, 0, 2], (1, 2, 2), &[]), vec![0, 0, 1, 1]);
    }

    #[test]
    fn sorts_put_nan_last_and_keep_ties_stable() {
        let v = [3.0, f64::NAN, -1.0, 3.0, 0.0, -0.0];
        let s = sort_lines(&v, (1, 6, 1));
        assert_eq!(&s[..5], &[-1.0, 0.0, -0.0, 3.0, 3.0]);
        assert!(s[5].is_nan());
        assert_eq!(argsort_lines(&v, (1, 6, 1)), vec![2, 4, 5, 0, 3, 1]);
        // columns of a (2, 2) array: axis 0 has inner 2
        assert_eq!(argsort_lines(&[5, 1, 2, 7], (1, 2, 2)), vec![1, 0, 0, 1]);
    }

    #[test]
    fn unique_values_alone_are_uniques_values() {
        let mut next = crate::backend::cpu::kernels::tests::xorshift();
        let specials = [f64::NAN, -0.0, 0.0, f64::INFINITY, -1.5];
        for n in [0, 1, 5, 63, 64, 300, 5000, 200_000] {
            let f: Vec<f64> = (0..n)
                .map(|_| {
                    let r = next();
                    match r % 11 {
                        0 => specials[(r >> 8) as usize % specials.len()],
                        _ => ((r >> 11) % 997) as f64 - 400.0,
                    }
                })
                .collect();
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&unique_values(&f)), bits(&unique(&f).values), "f64, {n}");
            let clean: Vec<f64> = f.iter().map(|&x| if x.is_nan() { 7.0 } else { x + 0.0 }).collect();
            assert_eq!(
                bits(&unique_values(&clean)),
                bits(&unique(&clean).values),
                "f64 without NaN, {n}"
            );
            let ints: Vec<i64> = f.iter().map(|&x| if x.is_finite() { x as i64 } else { 3 }).collect();
            assert_eq!(unique_values(&ints), unique(&ints).values, "i64, {n}");
            let f32s: Vec<f32> = f.iter().map(|&x| x as f32).collect();
            let bits32 = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits32(&unique_values(&f32s)), bits32(&unique(&f32s).values), "f32, {n}");
        }
    }

    #[test]
    fn unique_counts_and_searches() {
        let u = unique(&[2.0, f64::NAN, 1.0, 2.0, f64::NAN]);
        assert_eq!(u.counts, vec![1, 2, 2]);
        assert_eq!(&u.values[..2], &[1.0, 2.0]);
        assert_eq!(u.first, vec![2, 0, 1]);
        assert_eq!(u.inverse, vec![1, 2, 0, 1, 2]);
        assert_eq!(searchsorted(&[1, 2, 2, 3], &[2, 0, 9], false), vec![1, 0, 4]);
        assert_eq!(searchsorted(&[1, 2, 2, 3], &[2, 0, 9], true), vec![3, 0, 4]);
    }

    #[test]
    fn every_quantile_method_name_is_known() {
        for name in crate::check::npsort::QUANTILE_METHODS {
            assert!(QuantileMethod::named(name).is_some(), "{name}");
        }
        assert_eq!(QuantileMethod::named("nearst"), None);
    }

    #[test]
    fn quantiles_interpolate_and_histograms_close_the_last_bin() {
        // hand-derived: positions 0.25 * 3 = 0.75 between 1 and 2
        assert_eq!(
            quantile_lines(&[4, 1, 3, 2], (1, 4, 1), &[0.25, 0.5, 1.0], QuantileMethod::Linear),
            vec![1.75, 2.5, 4.0]
        );
        assert_eq!(
            histogram(&[0.0, 0.5, 1.0, 2.0, -1.0, f64::NAN], &[0.0, 0.5, 1.0], true),
            vec![1, 2]
        );
        let (c, _) = bincount(&[1, 1, 3], None, 5);
        assert_eq!(c, vec![0, 2, 0, 1, 0]);
    }
}
