//! Sorting 32- and 64-bit unsigned keys with AVX-512, for `sort` of values
//! alone (ties among equal keys are the same bits, so stability cannot be
//! seen): a quicksort whose partitions are vector compares and compressed
//! stores (one side packed into the front of the keys being read, the other
//! written to a scratch buffer), whose parts of up to eight vectors are
//! sorted by bitonic networks in registers, and whose large parts are
//! sorted in parallel. The scalar radix sort of
//! `sort.rs` serves machines without AVX-512, and everything stability or
//! NaN's place makes observable.
//!
//! A partition puts the keys below the pivot first. When none is (the pivot
//! is the least key), a second partition puts the keys equal to it first,
//! where they are done: every step sorts at least one key, whatever the
//! duplicates. Recursion deeper than twice the keys' log2 (an adversary's
//! pivots) ends in the standard library's sort.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Parts at least this long are sorted with their sibling on another thread.
const PAR_PART: usize = 1 << 16;

/// Whether this machine can run the vector sort.
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("popcnt") && is_x86_feature_detected!("bmi2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A permutation index vector's lanes: lane `i` reads lane `i ^ j`.
const fn xor_lanes<const L: usize>(j: usize) -> [u64; L] {
    let mut idx = [0u64; L];
    let mut i = 0;
    while i < L {
        idx[i] = (i ^ j) as u64;
        i += 1;
    }
    idx
}

/// The lanes that keep the larger key at step (`k`, `j`) of a bitonic sort
/// of `lanes` lanes: blocks of `k` alternate ascending and descending, and
/// lane i is compared with lane `i ^ j`.
const fn max_lanes(lanes: usize, k: usize, j: usize) -> u32 {
    let mut m = 0u32;
    let mut i = 0;
    while i < lanes {
        if ((i & j) != 0) != ((i & k) != 0) {
            m |= 1 << i;
        }
        i += 1;
    }
    m
}

macro_rules! vector_sort {
    (
        $name:ident, $key:ty, $lanes:expr, $log_lanes:expr, $mask:ty,
        set1: $set1:ident, load: $load:ident, mask_load: $mask_load:ident,
        less: $less:ident, less_eq: $less_eq:ident, compress: $compress:ident,
        mask_store: $mask_store:ident, store: $store:ident, permute: $permute:ident,
        min: $min:ident, max: $max:ident, blend: $blend:ident, idx: $idx:ty
    ) => {
        /// Sorts `keys` ascending, `scratch` (as long) used as room; false,
        /// with nothing done, on a machine without AVX-512.
        pub fn $name(keys: &mut [$key], scratch: &mut [$key]) -> bool {
            assert_eq!(keys.len(), scratch.len());
            if !available() {
                return false;
            }
            #[cfg(target_arch = "x86_64")]
            {
                let depth = 2 * (usize::BITS - keys.len().leading_zeros()) + 4;
                // SAFETY: AVX-512F is present (checked above).
                unsafe { $name::sort(keys, scratch, false, depth) };
                true
            }
            #[cfg(not(target_arch = "x86_64"))]
            false
        }

        #[cfg(target_arch = "x86_64")]
        mod $name {
            use super::*;

            const LANES: usize = $lanes;
            type Key = $key;

            /// The steps of a bitonic sort of one vector: (permutation of
            /// lane i ^ j, the lanes that keep the larger key).
            const STEPS: [([$idx; LANES], u32); $log_lanes * ($log_lanes + 1) / 2] = {
                let mut steps = [([0 as $idx; LANES], 0u32); $log_lanes * ($log_lanes + 1) / 2];
                let mut s = 0;
                let mut k = 2;
                while k <= LANES {
                    let mut j = k / 2;
                    while j >= 1 {
                        let wide = xor_lanes::<LANES>(j);
                        let mut i = 0;
                        while i < LANES {
                            steps[s].0[i] = wide[i] as $idx;
                            i += 1;
                        }
                        steps[s].1 = max_lanes(LANES, k, j);
                        s += 1;
                        j /= 2;
                    }
                    k *= 2;
                }
                steps
            };

            /// The lane permutation that reverses a vector.
            const REVERSE: [$idx; LANES] = {
                let mut idx = [0 as $idx; LANES];
                let mut i = 0;
                while i < LANES {
                    idx[i] = (LANES - 1 - i) as $idx;
                    i += 1;
                }
                idx
            };

            /// Every vector of `v` after `steps` of the bitonic network, a
            /// step at a time for all of them: the vectors' steps overlap
            /// rather than wait on each other's latency.
            ///
            /// # Safety
            /// AVX-512F.
            #[inline]
            #[target_feature(enable = "avx512f,popcnt,bmi2")]
            unsafe fn network(v: &mut [__m512i], steps: &[([$idx; LANES], u32)]) {
                for (idx, keep_max) in steps {
                    // SAFETY: `idx` holds LANES lanes of the index type.
                    let idx = unsafe { $load(idx.as_ptr().cast()) };
                    for v in v.iter_mut() {
                        let other = $permute(idx, *v);
                        *v = $blend(*keep_max as $mask, $min(*v, other), $max(*v, other));
                    }
                }
            }

            /// Sorts the `n <= M * LANES` keys at `src` into `dst` (which
            /// may be `src`): each of M vectors by the network, then sorted
            /// runs merged pairwise, a bitonic merge each (the second run
            /// reversed, compare-exchanges between vectors at halving
            /// distances, then the network's last stage in every vector).
            ///
            /// # Safety
            /// AVX-512F; `src` readable and `dst` writable for `n` keys.
            #[inline]
            #[target_feature(enable = "avx512f,popcnt,bmi2")]
            unsafe fn leaf<const M: usize>(src: *const Key, dst: *mut Key, n: usize) {
                let live = |r: usize| {
                    let k = n.saturating_sub(r * LANES).min(LANES);
                    ((1u64 << k) - 1) as $mask
                };
                let pad = $set1(Key::MAX as _);
                let last = &STEPS[STEPS.len() - $log_lanes..];
                // SAFETY: only the live lanes, inside the n keys, are read;
                // the others hold the largest key, which sorts after them.
                let mut v: [__m512i; M] =
                    std::array::from_fn(|r| unsafe { $mask_load(pad, live(r), src.add(r * LANES).cast()) });
                // SAFETY: AVX-512F, as for this function.
                unsafe { network(&mut v, &STEPS) };
                // SAFETY: REVERSE holds LANES lanes of the index type.
                let reverse = unsafe { $load(REVERSE.as_ptr().cast()) };
                // every loop's trip count is fixed by M, so that the
                // compiler unrolls them and keeps `v` in registers
                for s in 1..=M.trailing_zeros() {
                    let (size, half) = (1usize << s, 1usize << (s - 1));
                    for g in (0..M >> s).map(|g| g * size) {
                        v[g + half..g + size].reverse();
                        for r in g + half..g + size {
                            v[r] = $permute(reverse, v[r]);
                        }
                        for l in (0..s).rev() {
                            let dist = 1usize << l;
                            for k in 0..half {
                                let i = g + (k >> l) * 2 * dist + (k & (dist - 1));
                                let (a, b) = (v[i], v[i + dist]);
                                v[i] = $min(a, b);
                                v[i + dist] = $max(a, b);
                            }
                        }
                    }
                    // SAFETY: AVX-512F, as for this function.
                    unsafe { network(&mut v, last) };
                }
                for (r, v) in v.iter().enumerate() {
                    // SAFETY: only the live lanes, inside the n keys, are written.
                    unsafe { $mask_store(dst.add(r * LANES).cast(), live(r), *v) };
                }
            }

            /// The longest part `leaves` sorts.
            const LEAF: usize = 8 * LANES;

            /// Sorts the `n <= LEAF` keys at `src` into `dst` (which may be
            /// `src`) with as few vectors as hold them.
            ///
            /// # Safety
            /// AVX-512F; `src` readable and `dst` writable for `n` keys.
            #[target_feature(enable = "avx512f,popcnt,bmi2")]
            unsafe fn leaves(src: *const Key, dst: *mut Key, n: usize) {
                // SAFETY: forwarded.
                unsafe {
                    match n.div_ceil(LANES) {
                        0 | 1 => leaf::<1>(src, dst, n),
                        2 => leaf::<2>(src, dst, n),
                        3 | 4 => leaf::<4>(src, dst, n),
                        _ => leaf::<8>(src, dst, n),
                    }
                }
            }

            /// Splits `src`'s keys by `key < pivot` (`<=` when `or_equal`)
            /// into the low ones and the high ones; returns how many are low.
            /// One side is packed into the front of `src` itself, the other
            /// written to the front of `other`: the low side stays in `src`
            /// when `low_in_place`. Both sides are whole-vector stores: the
            /// packed side's never reach keys not yet read (it has written
            /// no more keys than it has read), and the other's land past
            /// what it has written, inside `other`; only the last, partial
            /// vector's stores are masked.
            ///
            /// # Safety
            /// AVX-512F, POPCNT and BMI2.
            #[target_feature(enable = "avx512f,popcnt,bmi2")]
            unsafe fn partition(
                src: &mut [Key],
                other: &mut [Key],
                pivot: Key,
                or_equal: bool,
                low_in_place: bool,
            ) -> usize {
                let n = src.len();
                assert!(other.len() >= n);
                let p = $set1(pivot as _);
                let (s, o) = (src.as_mut_ptr(), other.as_mut_ptr());
                let (stay, moved) = if low_in_place { (s, o) } else { (o, s) };
                let (mut low, mut high) = (0usize, 0usize);
                let mut i = 0;
                while i + LANES <= n {
                    // SAFETY: LANES keys from i are inside `src`.
                    let v = unsafe { $load(s.add(i).cast()) };
                    let is_low = if or_equal { $less_eq(v, p) } else { $less(v, p) };
                    let (l, h) = ($compress(is_low, v), $compress(!is_low, v));
                    // SAFETY: low + LANES and high + LANES are at most
                    // i + LANES <= n (each side has at most i keys before
                    // this vector), inside both buffers; the side packed
                    // into `src` writes only keys already read.
                    unsafe {
                        $store(stay.add(low).cast(), l);
                        $store(moved.add(high).cast(), h);
                    }
                    let k = is_low.count_ones() as usize;
                    low += k;
                    high += LANES - k;
                    i += LANES;
                }
                if i < n {
                    let live = _bzhi_u32(!0, (n - i) as u32) as $mask;
                    // SAFETY: the live lanes are inside `src`.
                    let v = unsafe { $mask_load(p, live, s.add(i).cast()) };
                    let is_low = live & if or_equal { $less_eq(v, p) } else { $less(v, p) };
                    let is_high = live & !is_low;
                    let (nl, nh) = (is_low.count_ones(), is_high.count_ones());
                    // SAFETY: low + nl and high + nh are at most n.
                    unsafe {
                        $mask_store(
                            stay.add(low).cast(),
                            _bzhi_u32(!0, nl) as $mask,
                            $compress(is_low, v),
                        );
                        $mask_store(
                            moved.add(high).cast(),
                            _bzhi_u32(!0, nh) as $mask,
                            $compress(is_high, v),
                        );
                    }
                    low += nl as usize;
                }
                low
            }

            /// The median of nine keys spread over `keys` (of three for
            /// short parts).
            fn pivot(keys: &[Key]) -> Key {
                let n = keys.len();
                if n >= 256 {
                    let mut s: [Key; 9] = std::array::from_fn(|k| keys[k * (n - 1) / 8]);
                    s.sort_unstable();
                    s[4]
                } else {
                    let mut s = [keys[0], keys[n / 2], keys[n - 1]];
                    s.sort_unstable();
                    s[1]
                }
            }

            /// Sorts `data`'s keys into `data`, or into `room` (as long)
            /// when `into_room`; the other buffer is scratch. A partition
            /// leaves the low keys at the front of the buffer that is to
            /// hold the result, where they are sorted with the tail of the
            /// other as scratch; the high keys, at the front of the other,
            /// are sorted into the result's tail.
            ///
            /// # Safety
            /// AVX-512F, POPCNT and BMI2.
            #[target_feature(enable = "avx512f,popcnt,bmi2")]
            pub(super) unsafe fn sort(data: &mut [Key], room: &mut [Key], into_room: bool, depth: u32) {
                let n = data.len();
                debug_assert_eq!(n, room.len());
                if n <= LEAF {
                    let to = if into_room {
                        room.as_mut_ptr()
                    } else {
                        data.as_mut_ptr()
                    };
                    // SAFETY: both hold n keys.
                    return unsafe { leaves(data.as_ptr(), to, n) };
                }
                if depth == 0 {
                    data.sort_unstable();
                    if into_room {
                        room.copy_from_slice(data);
                    }
                    return;
                }
                let p = pivot(data);
                // SAFETY (every call below): the features of this one.
                let low = unsafe { partition(data, room, p, false, !into_room) };
                let (result, other) = if into_room { (room, data) } else { (data, room) };
                if low == 0 {
                    // p is the least key, and every key lies in order in
                    // `other` (none was low): the keys equal to p are done
                    let equal = unsafe { partition(other, result, p, true, false) };
                    let (rest, _) = other.split_at_mut(n - equal);
                    return unsafe { sort(rest, &mut result[equal..], true, depth - 1) };
                }
                let (result_low, result_high) = result.split_at_mut(low);
                let (other_high, other_low) = other.split_at_mut(n - low);
                both(
                    n,
                    || unsafe { sort(result_low, other_low, false, depth - 1) },
                    || unsafe { sort(other_high, result_high, true, depth - 1) },
                );
            }
        }
    };
}

/// Runs `a` and `b`, on two threads when the part they split (`n` keys) is
/// long.
fn both(n: usize, a: impl FnOnce() + Send, b: impl FnOnce() + Send) {
    if n >= PAR_PART {
        rayon::join(a, b);
    } else {
        a();
        b();
    }
}

vector_sort!(sort_u32, u32, 16, 4, __mmask16,
    set1: _mm512_set1_epi32, load: _mm512_loadu_si512, mask_load: _mm512_mask_loadu_epi32,
    less: _mm512_cmplt_epu32_mask, less_eq: _mm512_cmple_epu32_mask, compress: _mm512_maskz_compress_epi32,
    mask_store: _mm512_mask_storeu_epi32, store: _mm512_storeu_si512, permute: _mm512_permutexvar_epi32,
    min: _mm512_min_epu32, max: _mm512_max_epu32, blend: _mm512_mask_blend_epi32, idx: u32);

vector_sort!(sort_u64, u64, 8, 3, __mmask8,
    set1: _mm512_set1_epi64, load: _mm512_loadu_si512, mask_load: _mm512_mask_loadu_epi64,
    less: _mm512_cmplt_epu64_mask, less_eq: _mm512_cmple_epu64_mask, compress: _mm512_maskz_compress_epi64,
    mask_store: _mm512_mask_storeu_epi64, store: _mm512_storeu_si512, permute: _mm512_permutexvar_epi64,
    min: _mm512_min_epu64, max: _mm512_max_epu64, blend: _mm512_mask_blend_epi64, idx: u64);

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the standard library's sort: random keys, many duplicates,
    /// one key, sorted and reversed runs, every length up to a few
    /// vectors, and lengths that take both threads.
    #[test]
    fn vector_sorts_match_the_standard_sort() {
        if !available() {
            return;
        }
        let mut next = crate::backend::cpu::kernels::tests::xorshift();
        let mut cases: Vec<Vec<u64>> = (0..70).map(|n| (0..n).map(|_| next()).collect()).collect();
        cases.push((0..300_000).map(|_| next()).collect());
        cases.push((0..300_000).map(|_| next() % 5).collect());
        cases.push(vec![7; 100_000]);
        cases.push((0..100_000).collect());
        cases.push((0..100_000).rev().collect());
        cases.push((0..100_000).map(|k| if k % 2 == 0 { u64::MAX } else { k }).collect());
        for keys in &cases {
            let mut want = keys.clone();
            want.sort_unstable();
            let mut got = keys.clone();
            assert!(sort_u64(&mut got, &mut vec![0; keys.len()]));
            assert!(got == want, "u64 keys of length {}", keys.len());
            let narrow: Vec<u32> = keys.iter().map(|&k| (k >> 17) as u32).collect();
            let mut want: Vec<u32> = narrow.clone();
            want.sort_unstable();
            let mut got = narrow.clone();
            assert!(sort_u32(&mut got, &mut vec![0; keys.len()]));
            assert!(got == want, "u32 keys of length {}", keys.len());
        }
    }
}
