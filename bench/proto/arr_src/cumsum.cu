// Arr: helpers shared by every generated kernel. The codegen (src/backend/cuda/codegen.rs)
// prepends this to each module; semantics follow the CPU backend (src/backend/cpu).

typedef long long i64;
typedef unsigned long long u64;

template <class T, int V> struct __align__(sizeof(T) * V) Vec { T x[V]; };

template <class T> __device__ __forceinline__ T arr_shfl_xor(T v, int lane_mask, int width) {
    return __shfl_xor_sync(0xffffffffu, v, lane_mask, width);
}
template <> __device__ __forceinline__ bool arr_shfl_xor<bool>(bool v, int lane_mask, int width) {
    return __shfl_xor_sync(0xffffffffu, (int)v, lane_mask, width) != 0;
}

// NaN-propagating min/max (np.minimum / np.maximum).
template <class T> __device__ __forceinline__ T arr_min(T a, T b) { return (a != a || a < b) ? a : b; }
template <class T> __device__ __forceinline__ T arr_max(T a, T b) { return (a != a || a > b) ? a : b; }

// Python modulo: the result takes the sign of the divisor.
__device__ __forceinline__ double arr_mod(double a, double b) {
    double r = fmod(a, b);
    if (r != 0.0 && ((r < 0.0) != (b < 0.0))) r += b;
    return r;
}
__device__ __forceinline__ float arr_mod(float a, float b) {
    float r = fmodf(a, b);
    if (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) r += b;
    return r;
}
// Set by integer modulo by zero (1) or a negative integer power (2); the host
// reads it after kernels that use them and reports the CPU backend's error.
__device__ int arr_error;

template <class T> __device__ __forceinline__ T arr_imod(T a, T b) {
    if (b == 0) {
        arr_error = 1;
        return 0;
    }
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
template <class T> __device__ __forceinline__ T arr_ipow(T a, T b) {
    if (b < 0) {
        arr_error = 2;
        return 0;
    }
    T r = 1;
    while (b) { if (b & 1) r *= a; a *= a; b >>= 1; }
    return r;
}
template <class T> __device__ __forceinline__ T arr_sign(T a) { return (T)((a > 0) - (a < 0)); }
__device__ __forceinline__ float arr_sign(float a) { return a != a ? a : (float)((a > 0.0f) - (a < 0.0f)); }
__device__ __forceinline__ double arr_sign(double a) { return a != a ? a : (double)((a > 0.0) - (a < 0.0)); }

// Float to integer as Rust's `as`: saturating, NaN to 0.
template <class I> __device__ __forceinline__ I arr_ftoi(double x, double lo, double hi) {
    if (x != x) return 0;
    if (x <= lo) return (I)lo;
    if (x >= hi) return sizeof(I) == 8 ? (I)0x7fffffffffffffffLL : (I)0x7fffffff;
    return (I)x;
}
__device__ __forceinline__ int arr_to_i32(double x) { return arr_ftoi<int>(x, -2147483648.0, 2147483647.0); }
__device__ __forceinline__ i64 arr_to_i64(double x) {
    return arr_ftoi<i64>(x, -9223372036854775808.0, 9223372036854775807.0);
}

// Counter-based random numbers: bit-identical to src/graph/random.rs.
__device__ __forceinline__ u64 arr_mix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
__device__ __forceinline__ u64 arr_bits(u64 key, u64 i) { return arr_mix64(key + (i + 1) * 0x9E3779B97F4A7C15ULL); }
__device__ __forceinline__ float arr_uniform_f32(u64 key, u64 i) {
    return (float)(arr_bits(key, i) >> 40) * (1.0f / 16777216.0f);
}
__device__ __forceinline__ double arr_uniform_f64(u64 key, u64 i) {
    return (double)(arr_bits(key, i) >> 11) * (1.0 / 9007199254740992.0);
}
__device__ __forceinline__ double arr_normal_f64(u64 key, u64 i) {
    double u1 = 1.0 - arr_uniform_f64(key, 2 * i);
    double u2 = arr_uniform_f64(key, 2 * i + 1);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

template <class T> __device__ __forceinline__ T arr_shfl_up(T v, int delta) {
    return __shfl_up_sync(0xffffffffu, v, delta);
}
template <> __device__ __forceinline__ bool arr_shfl_up<bool>(bool v, int delta) {
    return __shfl_up_sync(0xffffffffu, (int)v, delta) != 0;
}

typedef int IDX;

__device__ __forceinline__ float arr_comb(float a, float b) { return a + b; }
// Pieces of the contiguous scans. For each k < 16, lane l holds the 4
// elements at j0 + (k * 32 + l) * 4: every access of the warp is one
// coalesced run of 32 * 4 elements (16-byte vectors when 4 > 1), and a
// warp tile is 32 * 4 * 16 consecutive elements of a line. Combines keep
// earlier elements on the left, as the CPU backend's sequential scan does.
template <class T> __device__ __forceinline__ T arr_shfl_idx(T v, int src) { return __shfl_sync(0xffffffffu, v, src); }
template <> __device__ __forceinline__ bool arr_shfl_idx<bool>(bool v, int src) {
    return __shfl_sync(0xffffffffu, (int)v, src) != 0;
}
template <class T> __device__ __forceinline__ T arr_shfl_down(T v, int d) { return __shfl_down_sync(0xffffffffu, v, d); }
template <> __device__ __forceinline__ bool arr_shfl_down<bool>(bool v, int d) {
    return __shfl_down_sync(0xffffffffu, (int)v, d) != 0;
}

__device__ __forceinline__ void arr_scan_load(float (&x)[16][4], const float* __restrict__ src, IDX j0, int lane) {
    #pragma unroll
    for (int k = 0; k < 16; ++k) {
        const IDX j = j0 + ((IDX)k * 32 + lane) * 4;
        if (j + (4 - 1) < (IDX)268435456) {
            const Vec<float, 4> q = *reinterpret_cast<const Vec<float, 4>*>(src + j);
            #pragma unroll
            for (int v = 0; v < 4; ++v) x[k][v] = q.x[v];
        } else {
            // element by element: a branch the compiler keeps, so every access's load is
            // issued before the scan starts (predicated loads were interleaved with the
            // scan, 11 of 16 issued first: 70% of the copy ceiling against 77% on an H200)
            #pragma unroll
            for (int v = 0; v < 4; ++v) x[k][v] = (j + v < (IDX)268435456) ? src[j + v] : (float)0;
        }
    }
}

__device__ __forceinline__ void arr_scan_store(const float (&x)[16][4], float* __restrict__ dst, IDX j0, int lane) {
    #pragma unroll
    for (int k = 0; k < 16; ++k) {
        const IDX j = j0 + ((IDX)k * 32 + lane) * 4;
        if (j < (IDX)268435456) {
            Vec<float, 4> q;
            #pragma unroll
            for (int v = 0; v < 4; ++v) q.x[v] = x[k][v];
            *reinterpret_cast<Vec<float, 4>*>(dst + j) = q;
        }
    }
}

// Scans a warp tile in place, starting from `carry` (the combined elements
// before it); returns the carry after it, in every lane.
__device__ __forceinline__ float arr_warp_scan(float (&x)[16][4], int lane, float carry) {
    #pragma unroll
    for (int k = 0; k < 16; ++k) {
        #pragma unroll
        for (int v = 1; v < 4; ++v) x[k][v] = arr_comb(x[k][v - 1], x[k][v]);
        float s = x[k][4 - 1];
        #pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const float y = arr_shfl_up(s, d);
            if (lane >= d) s = arr_comb(y, s);
        }
        const float before = arr_shfl_up(s, 1);
        const float pre = (lane == 0) ? carry : arr_comb(carry, before);
        #pragma unroll
        for (int v = 0; v < 4; ++v) x[k][v] = arr_comb(pre, x[k][v]);
        carry = arr_comb(carry, arr_shfl_idx(s, 31));
    }
    return carry;
}

// Single pass over few long lines: tile t of a line (8 warp tiles, 16384
// elements) publishes its aggregate, then warp 0 looks back over the earlier
// tiles of its line, 32 at a time, combining aggregates until it meets an
// inclusive prefix. Blocks take tiles in the order they start (a ticket), so
// every tile a block waits on belongs to a block already running. The state
// lives in this module's globals, tagged with the launch's number (ticket /
// tiles + 1), so no launch reads an earlier one's state and nothing needs
// clearing. Status kinds: 1 aggregate ready, 2 inclusive ready.
//
// Types of at most 4 bytes (1 = 1) publish one 64-bit word, tag and
// kind in the high half and the value's bits in the low half, written and
// read whole: one round trip to L2 per look-back step and no fence. Measured
// on an H200 (2^28 f32): 67% of the copy ceiling against 42.5% with separate
// flag and value arrays. Wider types keep the separate arrays, ordered by
// fences.
__device__ unsigned long long arr_ticket;
#if 1
__device__ unsigned long long arr_word[16384];

__device__ __forceinline__ void arr_publish(IDX i, float v, unsigned status) {
    union { float v; unsigned u; } c;
    c.u = 0u;
    c.v = v;
    *(volatile unsigned long long*)&arr_word[i] = ((unsigned long long)status << 32) | c.u;
}

// Waits for tile i's status under `tag`; returns its kind and sets `v`.
__device__ __forceinline__ unsigned arr_wait(IDX i, unsigned tag, float& v) {
    unsigned long long w;
    do {
        w = *(volatile unsigned long long*)&arr_word[i];
    } while (((unsigned)(w >> 32) & ~3u) != tag || ((unsigned)(w >> 32) & 3u) == 0u);
    union { float v; unsigned u; } c;
    c.u = (unsigned)w;
    v = c.v;
    return (unsigned)(w >> 32) & 3u;
}
#else
__device__ float arr_agg[16384];
__device__ float arr_inc[16384];
__device__ unsigned arr_flag[16384];

__device__ __forceinline__ void arr_publish(IDX i, float v, unsigned status) {
    if (status & 2u) arr_inc[i] = v; else arr_agg[i] = v;
    __threadfence();
    *(volatile unsigned*)&arr_flag[i] = status;
}

__device__ __forceinline__ unsigned arr_wait(IDX i, unsigned tag, float& v) {
    unsigned f;
    do {
        f = *(volatile unsigned*)&arr_flag[i];
    } while ((f & ~3u) != tag || (f & 3u) == 0u);
    __threadfence();
    v = (f & 2u) ? *(volatile float*)&arr_inc[i] : *(volatile float*)&arr_agg[i];
    return f & 3u;
}
#endif

extern "C" __global__ void __launch_bounds__(256) arr_main(float* __restrict__ out, float* __restrict__ part, const float* __restrict__ p0, i64 off0) {
    __shared__ float sh[8];
    __shared__ unsigned long long sh_ticket;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) sh_ticket = atomicAdd(&arr_ticket, 1ULL);
    __syncthreads();
    const unsigned long long ticket = sh_ticket;
    const IDX vid = (IDX)(ticket % (unsigned long long)16384);
    const unsigned tag = (unsigned)(ticket / (unsigned long long)16384 + 1ULL) << 2;
    const IDX line = vid / (IDX)16384, t = vid % (IDX)16384;
        const IDX ib = (IDX)off0;
        const IDX ob = (IDX)0;

    const IDX j0 = t * (IDX)16384 + (IDX)warp * (32 * 4 * 16);
    float x[16][4];
    arr_scan_load(x, p0 + ib, j0, lane);
    const float wtot = arr_warp_scan(x, lane, (float)0);
    if (lane == 0) sh[warp] = wtot;
    __syncthreads();
    if (warp == 0) {
        // the warps' totals: inclusive scan over 8, the tile's aggregate, each warp's prefix
        float w = (lane < 8) ? sh[lane] : (float)0;
        for (int d = 1; d < 8; d <<= 1) {
            const float y = arr_shfl_up(w, d);
            if (lane >= d) w = arr_comb(y, w);
        }
        const float agg = arr_shfl_idx(w, 7);
        const float wbefore = arr_shfl_up(w, 1);
        float excl = (float)0;
        if (t == 0) {
            if (lane == 0) arr_publish(vid, agg, tag | 2u);
        } else {
            if (lane == 0) arr_publish(vid, agg, tag | 1u);
            const IDX first_tile = vid - t;
            for (IDX pos = vid - 1;; pos -= 32) {
                const IDX i = pos - lane;
                float v = (float)0;
                unsigned kind = 2u;
                if (i >= first_tile) kind = arr_wait(i, tag, v);
                const unsigned incl = __ballot_sync(0xffffffffu, (kind & 2u) != 0u);
                const int stop = __ffs(incl) - 1;
                if (incl != 0u && lane > stop) v = (float)0;
                // lane 0 is the nearest tile: higher lanes are earlier, so they go on the left
                for (int d = 1; d < 32; d <<= 1) {
                    const float y = arr_shfl_down(v, d);
                    if (lane + d < 32) v = arr_comb(y, v);
                }
                excl = arr_comb(arr_shfl_idx(v, 0), excl);
                if (incl != 0u) break;
            }
            if (lane == 0) arr_publish(vid, arr_comb(excl, agg), tag | 2u);
        }
        if (lane < 8) sh[lane] = (lane == 0) ? excl : arr_comb(excl, wbefore);
    }
    __syncthreads();
    const float pre = sh[warp];
    #pragma unroll
    for (int k = 0; k < 16; ++k) {
        #pragma unroll
        for (int v = 0; v < 4; ++v) x[k][v] = arr_comb(pre, x[k][v]);
    }
    arr_scan_store(x, out + ob, j0, lane);
}
