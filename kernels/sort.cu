// Arr: the device sort (src/backend/cuda/sort.rs drives it). A stable LSD radix
// sort, 8 bits a pass, of order-preserving unsigned keys made from the
// elements; rows sort together, their row number being the most significant
// digits (extra passes over the carried source index). Per pass: an upsweep
// counts each block's digits, one block scans the counts digit-major, and the
// downsweep ranks each tile in shared memory (warp match for equal digits) and
// writes it out in digit runs. The scan flags a pass whose digit is the same
// for every key, and the host skips its downsweep. kernels/scan.cu comes first.
// @T@: the element type (float, double, int, long long).

typedef @T@ T;
template <class X> struct KeyOf;
template <> struct KeyOf<float> { typedef unsigned int K; };
template <> struct KeyOf<int> { typedef unsigned int K; };
template <> struct KeyOf<double> { typedef unsigned long long K; };
template <> struct KeyOf<long long> { typedef unsigned long long K; };
typedef KeyOf<T>::K K;

#define THREADS 256
#define WARPS (THREADS / 32)
#define RADIX 256
constexpr int ITEMS = sizeof(K) == 4 ? 16 : 8;
constexpr int TILE = THREADS * ITEMS;

// flags of a pass
#define F_FIRST 1   // read the elements (and make keys), not the keys of the last pass
#define F_LAST 2    // write the result, not keys for the next pass
#define F_PAYLOAD 4 // carry each element's source index
#define F_ROW 8     // this pass's digit is of the row number (source index / row length)
#define F_ARGSORT 16 // the result is the index within its row (i64), not the element
#define F_CANON 32  // -0.0 takes +0.0's key, so equal values keep their order (argsort)

// Keys whose unsigned order is NumPy's: NaN last (every NaN one key).
__device__ __forceinline__ unsigned int encode(float v, bool canon) {
    if (v != v) return 0xffffffffu;
    unsigned int u = (canon && v == 0.0f) ? 0u : __float_as_uint(v);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
__device__ __forceinline__ float decode(unsigned int k, float) {
    return __uint_as_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}
__device__ __forceinline__ unsigned long long encode(double v, bool canon) {
    if (v != v) return 0xffffffffffffffffull;
    unsigned long long u = (canon && v == 0.0) ? 0ull : (unsigned long long)__double_as_longlong(v);
    return (u >> 63) ? ~u : (u | (1ull << 63));
}
__device__ __forceinline__ double decode(unsigned long long k, double) {
    return __longlong_as_double((long long)((k >> 63) ? (k & ~(1ull << 63)) : ~k));
}
__device__ __forceinline__ unsigned int encode(int v, bool) { return (unsigned int)v ^ 0x80000000u; }
__device__ __forceinline__ int decode(unsigned int k, int) { return (int)(k ^ 0x80000000u); }
__device__ __forceinline__ unsigned long long encode(long long v, bool) {
    return (unsigned long long)v ^ (1ull << 63);
}
__device__ __forceinline__ long long decode(unsigned long long k, long long) { return (long long)(k ^ (1ull << 63)); }

__device__ __forceinline__ unsigned int digit_of(K key, unsigned int idx, int shift, unsigned int row_len, bool row) {
    if (row) return ((idx / row_len) >> shift) & (RADIX - 1);
    return (unsigned int)(key >> shift) & (RADIX - 1);
}

// The lanes whose digit (0..RADIX, RADIX for none) is this lane's: what
// __match_any_sync gives, from nine ballots (which the hardware runs faster).
__device__ __forceinline__ unsigned int peers_of(unsigned int d) {
    unsigned int m = 0xffffffffu;
#pragma unroll
    for (int b = 0; b < 9; ++b) {
        const unsigned int v = __ballot_sync(0xffffffffu, (d >> b) & 1);
        m &= ((d >> b) & 1) ? v : ~v;
    }
    return m;
}

// Loads the thread's ITEMS keys (and source indices) of the tile at `base`:
// item i of lane l of warp w is element base + (w * ITEMS + i) * 32 + l, so
// each load is one coalesced row and (warp, item, lane) is the input order.
// FIRST, PAY and ROW are compile-time so that the loads are straight-line
// (issued together) rather than one branch, and one wait, per item.
template <bool FIRST, bool PAY, bool ROW>
__device__ __forceinline__ void load_tile(const T* __restrict__ x, const K* __restrict__ keys_in,
                                          const unsigned int* __restrict__ pay_in, long long base, long long n,
                                          bool canon, int shift, unsigned int row_len, K key[ITEMS],
                                          unsigned int idx[ITEMS], unsigned int dig[ITEMS]) {
    const long long g0 = base + (long long)(threadIdx.x >> 5) * 32 * ITEMS + (threadIdx.x & 31);
    const bool full = base + TILE <= n;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const long long g = g0 + i * 32;
        if (full || g < n) {
            key[i] = FIRST ? encode(x[g], canon) : keys_in[g];
            idx[i] = PAY ? (FIRST ? (unsigned int)g : pay_in[g]) : 0u;
        }
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        const long long g = g0 + i * 32;
        dig[i] = (full || g < n) ? digit_of(key[i], idx[i], shift, row_len, ROW) : RADIX;
    }
}

// One block's digit counts over its tiles: hist[digit * nblocks + block].
template <bool FIRST, bool ROW>
__device__ __forceinline__ void upsweep(unsigned int (*s_h)[RADIX], const T* __restrict__ x, const K* __restrict__ keys_in,
                                        const unsigned int* __restrict__ pay_in, long long n,
                                        long long tiles_per_block, int shift, unsigned int row_len,
                                        unsigned int* __restrict__ hist, long long nblocks, bool canon) {
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    for (int i = tid; i < WARPS * RADIX; i += THREADS) (&s_h[0][0])[i] = 0;
    __syncthreads();
    const long long ntiles = (n + TILE - 1) / TILE;
    const long long t0 = (long long)blockIdx.x * tiles_per_block;
    const long long t1 = min(ntiles, t0 + tiles_per_block);
    for (long long t = t0; t < t1; ++t) {
        K key[ITEMS];
        unsigned int idx[ITEMS], d[ITEMS];
        load_tile<FIRST, ROW, ROW>(x, keys_in, pay_in, t * TILE, n, canon, shift, row_len, key, idx, d);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            // one atomic for a warp whose digits agree (sorted or narrow data), else one each
            const unsigned int d0 = __shfl_sync(0xffffffffu, d[i], 0);
            if (__all_sync(0xffffffffu, d[i] == d0)) {
                if (lane == 0 && d0 < RADIX) atomicAdd(&s_h[warp][d0], 32u);
            } else if (d[i] < RADIX) {
                atomicAdd(&s_h[warp][d[i]], 1u);
            }
        }
    }
    __syncthreads();
    unsigned int total = 0;
    for (int w = 0; w < WARPS; ++w) total += s_h[w][tid];
    hist[(long long)tid * nblocks + blockIdx.x] = total;
}

extern "C" __global__ void __launch_bounds__(THREADS)
    arr_main(const T* __restrict__ x, const K* __restrict__ keys_in, const unsigned int* __restrict__ pay_in,
             long long n, long long tiles_per_block, long long shift, long long row_len,
             unsigned int* __restrict__ hist, long long nblocks, long long flags) {
    __shared__ unsigned int s_h[WARPS][RADIX];
    const bool canon = flags & F_CANON;
    const unsigned int rl = (unsigned int)row_len;
    if (flags & F_FIRST) {
        if (flags & F_ROW)
            upsweep<true, true>(s_h, x, keys_in, pay_in, n, tiles_per_block, (int)shift, rl, hist, nblocks, canon);
        else
            upsweep<true, false>(s_h, x, keys_in, pay_in, n, tiles_per_block, (int)shift, rl, hist, nblocks, canon);
    } else {
        if (flags & F_ROW)
            upsweep<false, true>(s_h, x, keys_in, pay_in, n, tiles_per_block, (int)shift, rl, hist, nblocks, canon);
        else
            upsweep<false, false>(s_h, x, keys_in, pay_in, n, tiles_per_block, (int)shift, rl, hist, nblocks, canon);
    }
}

// The downsweep's shared memory, declared once in the kernel (a __shared__
// array in a function template would be allocated once per instantiation).
struct DownShared {
    K keys[TILE];
    unsigned int pay[TILE];
    unsigned int count[WARPS][RADIX];
    unsigned int start[RADIX];
    unsigned int base[RADIX];
    unsigned int w[WARPS];
};

// Ranks each tile stably by digit and writes it to the scanned offsets.
template <bool FIRST, bool PAY, bool ROW>
__device__ __forceinline__ void downsweep(DownShared& sh, const T* __restrict__ x, const K* __restrict__ keys_in,
                                          const unsigned int* __restrict__ pay_in, K* __restrict__ keys_out,
                                          unsigned int* __restrict__ pay_out, void* __restrict__ result, long long n,
                                          long long tiles_per_block, int shift, unsigned int rl,
                                          const unsigned int* __restrict__ offsets, long long nblocks,
                                          long long flags) {
    K* s_keys = sh.keys;
    unsigned int* s_pay = sh.pay;
    unsigned int(*s_count)[RADIX] = sh.count;
    unsigned int* s_start = sh.start;
    unsigned int* s_base = sh.base;
    unsigned int* s_w = sh.w;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const bool last = flags & F_LAST, argsort = flags & F_ARGSORT, canon = flags & F_CANON;
    const long long ntiles = (n + TILE - 1) / TILE;
    const long long t0 = (long long)blockIdx.x * tiles_per_block;
    const long long t1 = min(ntiles, t0 + tiles_per_block);
    // thread `tid` owns digit `tid`: where its run starts in the output
    unsigned int goff = offsets[(long long)tid * nblocks + blockIdx.x];
    for (long long t = t0; t < t1; ++t) {
        const long long base = t * TILE;
        K key[ITEMS];
        // per item: its source index (with a payload), and its digit (low 9 bits, RADIX for
        // none) with its rank among the warp's equal digits above them
        unsigned int idx[ITEMS], dr[ITEMS];
        for (int d = lane; d < RADIX; d += 32) s_count[warp][d] = 0;
        load_tile<FIRST, PAY, ROW>(x, keys_in, pay_in, base, n, canon, shift, rl, key, idx, dr);
        __syncwarp();
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const unsigned int d = dr[i];
            const unsigned int peers = peers_of(d);
            const unsigned int before = __popc(peers & ((1u << lane) - 1));
            const unsigned int seen = d < RADIX ? s_count[warp][d] : 0u;
            dr[i] = d | ((seen + before) << 9);
            __syncwarp();
            if (d < RADIX && before == 0) s_count[warp][d] = seen + __popc(peers);
            __syncwarp();
        }
        __syncthreads();
        unsigned int total = 0;
        for (int w = 0; w < WARPS; ++w) {
            const unsigned int c = s_count[w][tid];
            s_count[w][tid] = total;
            total += c;
        }
        const unsigned int incl = warp_inclusive_sum(total);
        if (lane == 31) s_w[warp] = incl;
        __syncthreads();
        unsigned int start = incl - total;
        for (int w = 0; w < warp; ++w) start += s_w[w];
        s_start[tid] = start;
        // global position of local index j with digit d: s_base[d] + j (mod 2^32)
        s_base[tid] = goff - start;
        goff += total;
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const unsigned int d = dr[i] & 511;
            if (d < RADIX) {
                const unsigned int local = s_start[d] + s_count[warp][d] + (dr[i] >> 9);
                s_keys[local] = key[i];
                if (PAY) s_pay[local] = idx[i];
            }
        }
        __syncthreads();
        const unsigned int valid = (unsigned int)min((long long)TILE, n - base);
#pragma unroll
        for (int i = 0; i < ITEMS; ++i) {
            const unsigned int j = i * THREADS + tid;
            if (j < valid) {
                const K k = s_keys[j];
                const unsigned int p = PAY ? s_pay[j] : 0u;
                const unsigned int pos = s_base[digit_of(k, p, shift, rl, ROW)] + j;
                if (last) {
                    if (argsort)
                        ((long long*)result)[pos] = (long long)(p % rl);
                    else
                        ((T*)result)[pos] = decode(k, T());
                } else {
                    keys_out[pos] = k;
                    if (PAY) pay_out[pos] = p;
                }
            }
        }
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, 2)
    sort_downsweep(const T* __restrict__ x, const K* __restrict__ keys_in, const unsigned int* __restrict__ pay_in,
                   K* __restrict__ keys_out, unsigned int* __restrict__ pay_out, void* __restrict__ result,
                   long long n, long long tiles_per_block, long long shift, long long row_len,
                   const unsigned int* __restrict__ offsets, long long nblocks, long long flags) {
    __shared__ DownShared sh;
    const unsigned int rl = (unsigned int)row_len;
#define ARR_DOWNSWEEP(F, P, R)                                                                                   \
    downsweep<F, P, R>(sh, x, keys_in, pay_in, keys_out, pay_out, result, n, tiles_per_block, (int)shift, rl, \
                       offsets, nblocks, flags)
    // a row pass carries the indices it orders by
    if (flags & F_FIRST) {
        if (flags & F_ROW)
            ARR_DOWNSWEEP(true, true, true);
        else if (flags & F_PAYLOAD)
            ARR_DOWNSWEEP(true, true, false);
        else
            ARR_DOWNSWEEP(true, false, false);
    } else {
        if (flags & F_ROW)
            ARR_DOWNSWEEP(false, true, true);
        else if (flags & F_PAYLOAD)
            ARR_DOWNSWEEP(false, true, false);
        else
            ARR_DOWNSWEEP(false, false, false);
    }
#undef ARR_DOWNSWEEP
}
