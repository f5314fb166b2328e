"""Prototype kernels for issue 4's two missed targets, timed side by side in one
device call before the winner goes into kernels/*.cu: ragged segsum (3M
segments of 1..63, f32) and the inclusive scan of one 2^28 f32 line. (A warp-tile
segmented-scan variant, measured in the first run at 59-68% for 1..63, is not kept.)

Run on the GPU machine: python3 bench/proto/segscan_proto.py [--out DIR]
Every variant is checked against NumPy (float64) on the same inputs, with the
output poisoned before the run; times are CUDA-event medians of 20 runs.
"""

import argparse
import json
import sys

import cupy as cp
import numpy as np

STREAM2 = [(2048, 1, 256, 64), (2048, 2, 256, 64), (4096, 1, 256, 64), (4096, 2, 256, 64),
           (2048, 1, 128, 64), (4096, 1, 512, 64), (2048, 1, 256, 32), (2048, 2, 256, 1024), (4096, 4, 256, 64)]
SEG_SRC = r"""
typedef long long i64;

// the current Arr sub-warp kernel: L lanes per segment, four loads unrolled, serial tail
template <int L>
__global__ void __launch_bounds__(256) subwarp_cur(const float* __restrict__ v, const i64* __restrict__ offs,
                                                   float* __restrict__ out, int nseg) {
    const int lane = threadIdx.x % L;
    const int group = (blockIdx.x * blockDim.x + threadIdx.x) / L;
    const int groups = gridDim.x * blockDim.x / L;
    const int per_warp = 32 / L;
    for (int base = group - group % per_warp; base < nseg; base += groups) {
        const int s = base + group % per_warp;
        const bool active = s < nseg;
        float a = 0.f;
        if (active) {
            const int lo = (int)offs[s], hi = (int)offs[s + 1];
            int j = lo + lane;
            for (; j + 3 * L < hi; j += 4 * L) {
                const float x0 = v[j], x1 = v[j + L], x2 = v[j + 2 * L], x3 = v[j + 3 * L];
                a += (x0 + x1) + (x2 + x3);
            }
            for (; j < hi; j += L) a += v[j];
        }
        for (int d = L / 2; d > 0; d >>= 1) a += __shfl_xor_sync(0xffffffffu, a, d, L);
        if (active && lane == 0) out[s] = a;
    }
}

// sub-warp with every iteration's U loads predicated and issued together
template <int L, int U>
__global__ void __launch_bounds__(256) subwarp_pred(const float* __restrict__ v, const i64* __restrict__ offs,
                                                    float* __restrict__ out, int nseg) {
    const int lane = threadIdx.x % L;
    const int group = (blockIdx.x * blockDim.x + threadIdx.x) / L;
    const int groups = gridDim.x * blockDim.x / L;
    const int per_warp = 32 / L;
    for (int base = group - group % per_warp; base < nseg; base += groups) {
        const int s = base + group % per_warp;
        const bool active = s < nseg;
        float a = 0.f;
        if (active) {
            const int lo = (int)offs[s], hi = (int)offs[s + 1];
            for (int j = lo + lane; j < hi; j += U * L) {
                float x[U];
#pragma unroll
                for (int u = 0; u < U; u++) x[u] = (j + u * L < hi) ? v[j + u * L] : 0.f;
#pragma unroll
                for (int u = 0; u < U; u++) a += x[u];
            }
        }
        for (int d = L / 2; d > 0; d >>= 1) a += __shfl_xor_sync(0xffffffffu, a, d, L);
        if (active && lane == 0) out[s] = a;
    }
}

// Stream: a block per tile of T values, loaded coalesced into shared memory;
// the segments that start in the tile (tile_seg[t] .. tile_seg[t + 1]) are
// reduced by L-lane groups from shared memory, the part past the tile's end
// from global memory. VEC: float4 loads.
template <int T, int L, int VEC>
__global__ void __launch_bounds__(256) stream(const float* __restrict__ v, const i64* __restrict__ offs,
                                              const i64* __restrict__ tile_seg, float* __restrict__ out, int n) {
    __shared__ float sv[T];
    const int tid = threadIdx.x;
    const int t = blockIdx.x;
    const int b = t * T;
    const int e = min(b + T, n);
    const int s_lo = (int)tile_seg[t], s_hi = (int)tile_seg[t + 1];
    const int group = tid / L, lane = tid % L;
    constexpr int G = 256 / L;
    constexpr int PER_WARP = 32 / L;
    // the first round's offsets, loaded before the tile
    const int warp_group0 = group - group % PER_WARP;
    int s = s_lo + group;
    int lo = 0, hi = 0;
    if (s < s_hi) { lo = (int)offs[s]; hi = (int)offs[s + 1]; }
    if (VEC && e - b == T) {
#pragma unroll
        for (int k = 0; k < T / 1024; k++) {
            const float4 q = reinterpret_cast<const float4*>(v + b)[k * 256 + tid];
            reinterpret_cast<float4*>(sv)[k * 256 + tid] = q;
        }
    } else {
        float x[T / 256];
#pragma unroll
        for (int k = 0; k < T / 256; k++) {
            const int j = b + k * 256 + tid;
            x[k] = j < e ? v[j] : 0.f;
        }
#pragma unroll
        for (int k = 0; k < T / 256; k++) sv[k * 256 + tid] = x[k];
    }
    __syncthreads();
    for (int kb = s_lo + warp_group0; kb < s_hi; kb += G) {
        s = kb + group % PER_WARP;
        const bool active = s < s_hi;
        if (kb != s_lo + warp_group0 && active) { lo = (int)offs[s]; hi = (int)offs[s + 1]; }
        float a = 0.f;
        if (active) {
            int j = lo + lane;
            const int mid = min(hi, e);
            for (; j < mid; j += L) a += sv[j - b];
            for (; j < hi; j += L) a += v[j];
        }
        for (int d = L / 2; d > 0; d >>= 1) a += __shfl_xor_sync(0xffffffffu, a, d, L);
        if (active && lane == 0) out[s] = a;
    }
}

// Stream 2: the block's region is [b, tile_end[t]) (the tile plus the rest of
// its last segment, at most EXT values more), all loaded into shared memory
// before any is read. Phase 1: L lanes per segment of at most LONG values;
// phase 2: a warp per longer segment.
template <int T, int EXT, int L, int THREADS, int LONG>
__global__ void __launch_bounds__(THREADS) stream2(const float* __restrict__ v, const i64* __restrict__ offs,
                                                   const i64* __restrict__ tile_seg, const i64* __restrict__ tile_end,
                                                   float* __restrict__ out, int n) {
    __shared__ float sv[T + EXT];
    __shared__ int longs[(T + EXT) / (LONG + 1) + 1];
    __shared__ int nlong;
    const int tid = threadIdx.x;
    const int t = blockIdx.x;
    const int b = t * T;
    const int e = min(b + T, n);
    const int re = (int)tile_end[t];
    const int s_lo = (int)tile_seg[t], s_hi = (int)tile_seg[t + 1];
    const int group = tid / L, lane = tid % L;
    constexpr int G = THREADS / L;
    constexpr int PER_WARP = 32 / L;
    const int warp_group0 = group - group % PER_WARP;
    int s = s_lo + group;
    int lo = 0, hi = 0;
    if (s < s_hi) { lo = (int)offs[s]; hi = (int)offs[s + 1]; }
    if (tid == 0) nlong = 0;
    if (e - b == T) {
        float4 q[T / (4 * THREADS)];
#pragma unroll
        for (int k = 0; k < T / (4 * THREADS); k++) q[k] = reinterpret_cast<const float4*>(v + b)[k * THREADS + tid];
        float xe[EXT / THREADS > 0 ? EXT / THREADS : 1];
#pragma unroll
        for (int k = 0; k < (EXT + THREADS - 1) / THREADS; k++) {
            const int j = e + k * THREADS + tid;
            if (j < re) xe[k] = v[j];
        }
#pragma unroll
        for (int k = 0; k < T / (4 * THREADS); k++) reinterpret_cast<float4*>(sv)[k * THREADS + tid] = q[k];
#pragma unroll
        for (int k = 0; k < (EXT + THREADS - 1) / THREADS; k++) {
            const int j = e + k * THREADS + tid;
            if (j < re) sv[T + k * THREADS + tid] = xe[k];
        }
    } else {
        for (int j = b + tid; j < re; j += THREADS) sv[j - b] = v[j];
    }
    __syncthreads();
    for (int kb = s_lo + warp_group0; kb < s_hi; kb += G) {
        s = kb + group % PER_WARP;
        const bool active = s < s_hi;
        if (kb != s_lo + warp_group0 && active) { lo = (int)offs[s]; hi = (int)offs[s + 1]; }
        const bool is_long = active && hi - lo > LONG;
        float a = 0.f;
        if (active && !is_long) {
#pragma unroll 4
            for (int j = lo + lane; j < hi; j += L) a += sv[j - b];
        }
        for (int d = L / 2; d > 0; d >>= 1) a += __shfl_xor_sync(0xffffffffu, a, d, L);
        if (active && lane == 0) {
            if (is_long) longs[atomicAdd(&nlong, 1)] = s;
            else out[s] = a;
        }
    }
    __syncthreads();
    const int count = nlong;
    const int wl = tid & 31;
    for (int i = tid >> 5; i < count; i += THREADS / 32) {
        const int ls = longs[i];
        const int l0 = (int)offs[ls], l1 = (int)offs[ls + 1];
        float a = 0.f;
        for (int j = l0 + wl; j < l1; j += 32) a += sv[j - b];
        for (int d = 16; d > 0; d >>= 1) a += __shfl_xor_sync(0xffffffffu, a, d);
        if (wl == 0) out[ls] = a;
    }
}

// Stream 3: stream 2 made persistent, with the next tile's loads (values,
// its bounds and its first offsets) issued before the current tile is
// reduced from shared memory, so loads stay in flight while blocks compute.
template <int T, int EXT, int LONG>
__global__ void __launch_bounds__(256) stream3(const float* __restrict__ v, const i64* __restrict__ offs,
                                               const i64* __restrict__ lay, float* __restrict__ out, int n, int tiles) {
    __shared__ float sv[T + EXT];
    __shared__ int longs[(T + EXT) / (LONG + 1) + 1];
    __shared__ int nlong;
    constexpr int PT = T / 256;
    constexpr int PE = (EXT + 255) / 256;
    const int tid = threadIdx.x;
    float x[PT], xe[PE];
    int t = blockIdx.x;
    int b = 0, e = 0, re = 0, s_lo = 0, s_hi = 0, lo = 0, hi = 0;
    auto fetch = [&](int tt) {
        b = tt * T;
        e = min(b + T, n);
        re = (int)lay[tiles + 1 + tt];
        s_lo = (int)lay[tt];
        s_hi = (int)lay[tt + 1];
#pragma unroll
        for (int k = 0; k < PT; k++) {
            const int j = b + k * 256 + tid;
            x[k] = j < e ? v[j] : 0.f;
        }
#pragma unroll
        for (int k = 0; k < PE; k++) {
            const int j = e + k * 256 + tid;
            xe[k] = j < re ? v[j] : 0.f;
        }
        if (s_lo + tid < s_hi) {
            lo = (int)offs[s_lo + tid];
            hi = (int)offs[s_lo + tid + 1];
        }
    };
    fetch(t);
    for (;;) {
        if (tid == 0) nlong = 0;
#pragma unroll
        for (int k = 0; k < PT; k++) sv[k * 256 + tid] = x[k];
#pragma unroll
        for (int k = 0; k < PE; k++) {
            const int j = e + k * 256 + tid;
            if (j < re) sv[j - b] = xe[k];
        }
        const int cb = b, cs_lo = s_lo, cs_hi = s_hi;
        int clo = lo, chi = hi;
        __syncthreads();
        t += gridDim.x;
        const bool more = t < tiles;
        if (more) fetch(t);
        for (int s0 = cs_lo; s0 < cs_hi; s0 += 256) {
            const int s = s0 + tid;
            if (s >= cs_hi) break;
            if (s0 != cs_lo) {
                clo = (int)offs[s];
                chi = (int)offs[s + 1];
            }
            if (chi - clo > LONG) {
                longs[atomicAdd(&nlong, 1)] = s;
            } else {
                float a = 0.f;
#pragma unroll 4
                for (int j = clo; j < chi; j++) a += sv[j - cb];
                out[s] = a;
            }
        }
        __syncthreads();
        const int lane = tid & 31, count = nlong;
        for (int i = tid >> 5; i < count; i += 8) {
            const int s = longs[i];
            const int l0 = (int)offs[s], l1 = (int)offs[s + 1];
            float a = 0.f;
            for (int j = l0 + lane; j < l1; j += 32) a += sv[j - cb];
            for (int d = 16; d > 0; d >>= 1) a += __shfl_xor_sync(0xffffffffu, a, d);
            if (lane == 0) out[s] = a;
        }
        __syncthreads();
        if (!more) break;
    }
}

"""

SCAN_SRC = r"""
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
"""


def ragged_case(lengths):
    """Random f32 values over segments of `lengths`: host and device offsets, the
    float64 reference sums, and the bytes a segsum must move."""
    offs_h = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    n = int(offs_h[-1])
    vals = cp.random.random(n, dtype=cp.float32) - 0.5
    csum = np.concatenate([[0.0], np.cumsum(cp.asnumpy(vals).astype(np.float64))])
    ref = csum[offs_h[1:]] - csum[offs_h[:-1]]
    nseg = len(lengths)
    return offs_h, n, vals, cp.asarray(offs_h), ref, n * 4 + (nseg + 1) * 8 + nseg * 4


def tile_starts(offs_h, tile):
    """Per tile of `tile` values, the first segment starting in or after it; then the segment count."""
    n, nseg = int(offs_h[-1]), len(offs_h) - 1
    tiles = max(1, -(-n // tile))
    return np.concatenate([np.searchsorted(offs_h[:-1], np.arange(tiles) * tile, side="left"), [nseg]])


def rel_err(out, ref):
    o = cp.asnumpy(out).astype(np.float64)
    return float(np.linalg.norm(o - ref) / np.linalg.norm(ref)) if np.all(np.isfinite(o)) else float("inf")


def median_ms(fn, reps=20):
    fn()
    cp.cuda.Device().synchronize()
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        times.append(cp.cuda.get_elapsed_time(e0, e1))
    return float(np.median(times))


def copy_ceiling():
    a = cp.random.random(1 << 28, dtype=cp.float32)
    b = cp.empty_like(a)
    ms = median_ms(lambda: b.__setitem__(Ellipsis, a), 25)
    return 2 * a.nbytes / (ms * 1e-3) / 1e9


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=None)
    args = p.parse_args()
    rows = []
    ceiling = copy_ceiling()
    print(f"device {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, copy ceiling {ceiling:.0f} GB/s",
          flush=True)
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]

    def record(case, name, ms, nbytes, err):
        gbs = nbytes / (ms * 1e-3) / 1e9
        rows.append({"case": case, "variant": name, "ms": ms, "gb_s": gbs, "pct": 100 * gbs / ceiling, "err": err})
        print(f"{case:28s} {name:34s} {ms:8.4f} ms {gbs:6.0f} GB/s {100 * gbs / ceiling:5.1f}% err {err:.2e}",
              flush=True)

    # ---- ragged segsum ----
    segmod = cp.RawModule(code=SEG_SRC, options=("-std=c++17", "-arch=sm_90"), name_expressions=[
        "subwarp_cur<8>", "subwarp_cur<16>", "subwarp_pred<8,4>", "subwarp_pred<16,4>", "subwarp_pred<32,2>",
        "stream<2048,8,0>", "stream<2048,8,1>", "stream<4096,8,1>", "stream<2048,4,1>", "stream<2048,16,1>",
        "stream<4096,16,1>", "stream<2048,1,1>", "stream<2048,2,1>",
        ] + [f"stream2<{T},1024,{L},{TH},{LG}>" for (T, L, TH, LG) in STREAM2])
    rng = np.random.default_rng(0)
    for dist, nseg in [("1..63", 3_000_000), ("1..8", 12_000_000), ("0..200 skew", 1_000_000)]:
        if dist == "1..63":
            lengths = rng.integers(1, 64, size=nseg)
        elif dist == "1..8":
            lengths = rng.integers(1, 9, size=nseg)
        else:
            lengths = np.where(rng.random(nseg) < 0.05, rng.integers(100, 1000, size=nseg), rng.integers(0, 9, size=nseg))
        offs_h, n, vals, offs, ref, nbytes = ragged_case(lengths)
        out = cp.empty(nseg, dtype=cp.float32)
        case = f"segsum {nseg} of {dist}"
        check = lambda: rel_err(out, ref)  # noqa: E731

        grid_persist = sms * 8
        for L in (8,):
            fn = segmod.get_function(f"subwarp_cur<{L}>")
            out.fill(np.nan)
            go = lambda fn=fn, L=L: fn((min(grid_persist * 4, (nseg * L + 255) // 256),), (256,), (vals, offs, out, np.int32(nseg)))
            go()
            record(case, f"subwarp_cur L={L}", median_ms(go), nbytes, check())
        for L, U in ((8, 4),):
            fn = segmod.get_function(f"subwarp_pred<{L},{U}>")
            out.fill(np.nan)
            go = lambda fn=fn, L=L: fn((min(grid_persist * 4, (nseg * L + 255) // 256),), (256,), (vals, offs, out, np.int32(nseg)))
            go()
            record(case, f"subwarp_pred L={L} U={U}", median_ms(go), nbytes, check())
        for T, L, VEC in ((2048, 8, 1), (2048, 1, 1), (2048, 2, 1)):
            ts = tile_starts(offs_h, T)
            tiles = len(ts) - 1
            tile_seg = cp.asarray(ts.astype(np.int64))
            fn = segmod.get_function(f"stream<{T},{L},{VEC}>")
            out.fill(np.nan)
            go = lambda fn=fn, tiles=tiles, tile_seg=tile_seg: fn((tiles,), (256,), (vals, offs, tile_seg, out, np.int32(n)))
            go()
            record(case, f"stream T={T} L={L} vec={VEC}", median_ms(go), nbytes, check())
        for (T, L, TH, LG) in STREAM2:
            ts = tile_starts(offs_h, T)
            tiles = len(ts) - 1
            tile_seg = cp.asarray(ts.astype(np.int64))
            tile_end = cp.asarray(offs_h[ts[1:]].astype(np.int64))
            fn = segmod.get_function(f"stream2<{T},1024,{L},{TH},{LG}>")
            out.fill(np.nan)
            go = lambda fn=fn, tiles=tiles, tile_seg=tile_seg, tile_end=tile_end, TH=TH: fn(
                (tiles,), (TH,), (vals, offs, tile_seg, tile_end, out, np.int32(n)))
            go()
            record(case, f"stream2 T={T} L={L} th={TH} long>{LG}", median_ms(go), nbytes, check())
        try:
            import torch
            tv = torch.as_tensor(vals, device="cuda")
            tl = torch.as_tensor(cp.asarray(lengths.astype(np.int64)), device="cuda")
            fn = lambda: torch.segment_reduce(tv, "sum", lengths=tl)
            ms = median_ms(fn)
            record(case, "torch.segment_reduce", ms, nbytes, 0.0)
        except Exception as e:  # noqa: BLE001
            print("torch:", e)
        del vals, offs, out

    # ---- scan of one long line ----
    names = []
    configs = [(256, 4, 1), (256, 16, 1), (128, 16, 1), (128, 32, 1), (256, 24, 1), (512, 16, 1), (256, 32, 1)]
    for th, k, pk in configs:
        names.append(f"lookback<{th},{k},{pk}>")
    scanmod = cp.RawModule(code=SCAN_SRC, options=("-std=c++17", "-arch=sm_90"), name_expressions=names)
    for n in (1 << 28, (1 << 24) + 77):
        src = cp.random.random(n, dtype=cp.float32) - 0.5
        dst = cp.empty_like(src)
        nbytes = 2 * n * 4
        host = cp.asnumpy(src).astype(np.float64)
        ref = np.cumsum(host)
        for (th, k, pk), name in zip(configs, names):
            tile = th * 4 * k
            tiles = -(-n // tile)
            fn = scanmod.get_function(name)
            agg = cp.zeros(tiles, dtype=cp.float32)
            inc = cp.zeros(tiles, dtype=cp.float32)
            flag = cp.zeros(tiles, dtype=cp.uint32)
            status = cp.zeros(tiles, dtype=cp.uint64)
            tickets = cp.zeros(1000, dtype=cp.uint64)
            state = {"epoch": 0}

            def go(fn=fn, tiles=tiles, th=th, agg=agg, inc=inc, flag=flag, status=status, tickets=tickets,
                   state=state):
                state["epoch"] += 1
                fn((tiles,), (th,), (src, dst, np.int64(n), agg, inc, flag, status,
                                     tickets[state["epoch"]:], np.uint32(state["epoch"])))

            dst.fill(np.nan)
            go()
            o = cp.asnumpy(dst).astype(np.float64)
            # f32 running sums drift; compare against the float64 scan relative to the sum of |x|
            err = float(np.max(np.abs(o - ref)) / max(1.0, np.max(np.abs(ref)))) if np.all(np.isfinite(o)) else float("inf")
            record(f"cumsum of {n}", f"lookback th={th} K={k} packed={pk} tile={tile}", median_ms(go, 20), nbytes, err)
        try:
            import torch
            ts = torch.as_tensor(src, device="cuda")
            record(f"cumsum of {n}", "torch.cumsum", median_ms(lambda: torch.cumsum(ts, 0)), nbytes, 0.0)
            cs = lambda: cp.cumsum(src)  # noqa: E731
            record(f"cumsum of {n}", "cupy.cumsum", median_ms(cs), nbytes, 0.0)
        except Exception as e:  # noqa: BLE001
            print("peer:", e)
        del src, dst

    print()
    print("| case | variant | ms | GB/s | % of copy | err |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['variant']} | {r['ms']:.4f} | {r['gb_s']:.0f} | {r['pct']:.1f}% | {r['err']:.1e} |")
    if args.out:
        import os
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "proto.json"), "w") as f:
            json.dump({"ceiling": ceiling, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
