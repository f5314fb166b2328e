
typedef long long i64;
typedef unsigned long long u64;

// The current Arr look-back (separate flag / aggregate / inclusive arrays):
// THREADS threads, K float4 per lane per warp; tile = THREADS * 4 * K.
template <int THREADS, int K, int PACKED>
__global__ void __launch_bounds__(THREADS) lookback(const float* __restrict__ src, float* __restrict__ dst, i64 n,
                                                    float* agg, float* inc, unsigned* flag, u64* status,
                                                    unsigned long long* ticket_ctr, unsigned epoch) {
    constexpr int WARPS = THREADS / 32;
    constexpr int TILE = THREADS * 4 * K;
    __shared__ float sh[WARPS];
    __shared__ unsigned sh_ticket;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) sh_ticket = (unsigned)atomicAdd(ticket_ctr, 1ULL);
    __syncthreads();
    const i64 t = sh_ticket;
    const unsigned tag = epoch << 2;
    const i64 j0 = t * TILE + (i64)warp * (32 * 4 * K);
    float x[K][4];
#pragma unroll
    for (int k = 0; k < K; k++) {
        const i64 j = j0 + ((i64)k * 32 + lane) * 4;
        if (j + 3 < n) {
            const float4 q = *reinterpret_cast<const float4*>(src + j);
            x[k][0] = q.x; x[k][1] = q.y; x[k][2] = q.z; x[k][3] = q.w;
        } else {
#pragma unroll
            for (int i = 0; i < 4; i++) x[k][i] = j + i < n ? src[j + i] : 0.f;
        }
    }
    float carry = 0.f;
#pragma unroll
    for (int k = 0; k < K; k++) {
        x[k][1] += x[k][0]; x[k][2] += x[k][1]; x[k][3] += x[k][2];
        float s = x[k][3];
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const float y = __shfl_up_sync(0xffffffffu, s, d);
            if (lane >= d) s += y;
        }
        const float before = __shfl_up_sync(0xffffffffu, s, 1);
        const float pre = lane == 0 ? carry : carry + before;
#pragma unroll
        for (int i = 0; i < 4; i++) x[k][i] += pre;
        carry += __shfl_sync(0xffffffffu, s, 31);
    }
    if (lane == 0) sh[warp] = carry;
    __syncthreads();
    if (warp == 0) {
        float w = lane < WARPS ? sh[lane] : 0.f;
#pragma unroll
        for (int d = 1; d < WARPS; d <<= 1) {
            const float y = __shfl_up_sync(0xffffffffu, w, d);
            if (lane >= d) w += y;
        }
        const float aggv = __shfl_sync(0xffffffffu, w, WARPS - 1);
        const float wbefore = __shfl_up_sync(0xffffffffu, w, 1);
        float excl = 0.f;
        if (PACKED) {
            if (lane == 0) {
                const unsigned st = tag | (t == 0 ? 2u : 1u);
                *(volatile u64*)&status[t] = ((u64)st << 32) | (u64)__float_as_uint(aggv);
            }
            if (t > 0) {
                for (i64 pos = t - 1;; pos -= 32) {
                    const i64 i = pos - lane;
                    float vv = 0.f;
                    unsigned kind = 2u;
                    if (i >= 0) {
                        u64 word;
                        do {
                            word = *(volatile u64*)&status[i];
                        } while ((unsigned)(word >> 34) != epoch);
                        kind = (unsigned)(word >> 32) & 3u;
                        vv = __uint_as_float((unsigned)word);
                    }
                    const unsigned incl = __ballot_sync(0xffffffffu, kind == 2u);
                    const int stop = __ffs(incl) - 1;
                    if (incl != 0u && lane > stop) vv = 0.f;
#pragma unroll
                    for (int d = 1; d < 32; d <<= 1) {
                        const float y = __shfl_down_sync(0xffffffffu, vv, d);
                        if (lane + d < 32) vv += y;
                    }
                    excl += __shfl_sync(0xffffffffu, vv, 0);
                    if (incl != 0u) break;
                }
                if (lane == 0) {
                    *(volatile u64*)&status[t] = ((u64)(tag | 2u) << 32) | (u64)__float_as_uint(excl + aggv);
                }
            }
        } else {
            if (lane == 0) {
                if (t == 0) inc[t] = aggv; else agg[t] = aggv;
                __threadfence();
                *(volatile unsigned*)&flag[t] = tag | (t == 0 ? 2u : 1u);
            }
            if (t > 0) {
                for (i64 pos = t - 1;; pos -= 32) {
                    const i64 i = pos - lane;
                    float vv = 0.f;
                    unsigned kind = 2u;
                    if (i >= 0) {
                        unsigned f;
                        do {
                            f = *(volatile unsigned*)&flag[i];
                        } while ((f & ~3u) != tag || (f & 3u) == 0u);
                        kind = f & 3u;
                        __threadfence();
                        vv = (kind & 2u) ? *(volatile float*)&inc[i] : *(volatile float*)&agg[i];
                    }
                    const unsigned incl = __ballot_sync(0xffffffffu, (kind & 2u) != 0u);
                    const int stop = __ffs(incl) - 1;
                    if (incl != 0u && lane > stop) vv = 0.f;
#pragma unroll
                    for (int d = 1; d < 32; d <<= 1) {
                        const float y = __shfl_down_sync(0xffffffffu, vv, d);
                        if (lane + d < 32) vv += y;
                    }
                    excl += __shfl_sync(0xffffffffu, vv, 0);
                    if (incl != 0u) break;
                }
                if (lane == 0) {
                    inc[t] = excl + aggv;
                    __threadfence();
                    *(volatile unsigned*)&flag[t] = tag | 2u;
                }
            }
        }
        if (lane < WARPS) sh[lane] = lane == 0 ? excl : excl + wbefore;
    }
    __syncthreads();
    const float pre = sh[warp];
#pragma unroll
    for (int k = 0; k < K; k++) {
        const i64 j = j0 + ((i64)k * 32 + lane) * 4;
        if (j + 3 < n) {
            *reinterpret_cast<float4*>(dst + j) = make_float4(x[k][0] + pre, x[k][1] + pre, x[k][2] + pre, x[k][3] + pre);
        } else {
#pragma unroll
            for (int i = 0; i < 4; i++) if (j + i < n) dst[j + i] = x[k][i] + pre;
        }
    }
}

template __global__ void lookback<256,16,1>(const float* __restrict__, float* __restrict__, i64, float*, float*, unsigned*, u64*, unsigned long long*, unsigned);
