// Arr ragged segmented reductions (the `segmented` strategy). Holes: @ACC@,
// @IDENT@, arr_comb and ARR_VAL(j) (the fused value expression at value j,
// as @ACC@) from the codegen. `offs` holds the segment offsets, `lay` the
// layout (see graph::op::SegLayout). Two sections: `stream` when every
// segment is short, `classes` otherwise.

//@@ stream
// Every segment short (at most @EXT@ values): a block per tile of @TILE@
// values. Block t loads its region, the tile plus the rest of the last
// segment that starts in it (lay[@TILES@ + 1 + t] is where the region ends),
// into shared memory with every load in flight before the first is used
// (coalesced 4- or 8-byte loads; 16-byte ones measured no faster), then
// reduces the segments that start in the tile (lay[t] .. lay[t + 1]): a
// thread each, and a warp each for the few longer than @LONG@. Each value is
// read from device memory once (the region's overhang again, from L2, by the
// next block) and no partial crosses blocks, so nothing needs a second pass
// and results do not depend on timing. Measured on an H200 (3M segments of
// 1..63, f32): 79% to 91% of the copy ceiling over five runs, against 56%
// for a sub-warp per segment reading device memory directly.
#define ARR_TILE @TILE@
#define ARR_EXT @EXT@
#define ARR_LONG @LONG@
#define ARR_PER_THREAD (ARR_TILE / 256)

extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    __shared__ @ACC@ sv[ARR_TILE + ARR_EXT];
    __shared__ int longs[(ARR_TILE + ARR_EXT) / (ARR_LONG + 1) + 1];
    __shared__ int nlong;
    const int tid = threadIdx.x;
    const IDX b = (IDX)blockIdx.x * ARR_TILE;
    const IDX e = min(b + (IDX)ARR_TILE, (IDX)@N@);
    const IDX re = (IDX)lay[(IDX)@TILES@ + 1 + (IDX)blockIdx.x];
    const IDX s_lo = (IDX)lay[blockIdx.x], s_hi = (IDX)lay[blockIdx.x + 1];
    // the first round's offsets, loaded before the values
    IDX lo = 0, hi = 0;
    if (s_lo + tid < s_hi) {
        lo = (IDX)offs[s_lo + tid];
        hi = (IDX)offs[s_lo + tid + 1];
    }
    if (tid == 0) nlong = 0;
    @ACC@ xe[(ARR_EXT + 255) / 256];
#pragma unroll
    for (int k = 0; k < (ARR_EXT + 255) / 256; k++) {
        const IDX j = e + (IDX)(k * 256 + tid);
        xe[k] = j < re ? ARR_VAL(j) : @IDENT@;
    }
    {
        @ACC@ x[ARR_PER_THREAD];
#pragma unroll
        for (int k = 0; k < ARR_PER_THREAD; k++) {
            const IDX j = b + (IDX)(k * 256 + tid);
            x[k] = j < e ? ARR_VAL(j) : @IDENT@;
        }
#pragma unroll
        for (int k = 0; k < ARR_PER_THREAD; k++) sv[k * 256 + tid] = x[k];
    }
#pragma unroll
    for (int k = 0; k < (ARR_EXT + 255) / 256; k++) {
        const IDX j = e + (IDX)(k * 256 + tid);
        if (j < re) sv[j - b] = xe[k];
    }
    __syncthreads();
    for (IDX s0 = s_lo; s0 < s_hi; s0 += 256) {
        const IDX s = s0 + tid;
        if (s >= s_hi) break;
        if (s0 != s_lo) {
            lo = (IDX)offs[s];
            hi = (IDX)offs[s + 1];
        }
        if (hi - lo > ARR_LONG) {
            longs[atomicAdd(&nlong, 1)] = (int)(s - s_lo);
        } else {
            @ACC@ a = @IDENT@;
#pragma unroll 4
            for (IDX j = lo; j < hi; j++) a = arr_comb(a, sv[j - b]);
            out[s] = a;
        }
    }
    __syncthreads();
    const int lane = tid & 31, count = nlong;
    for (int i = tid >> 5; i < count; i += 8) {
        const IDX s = s_lo + (IDX)longs[i];
        const IDX l0 = (IDX)offs[s], l1 = (IDX)offs[s + 1];
        @ACC@ a = @IDENT@;
        for (IDX j = l0 + lane; j < l1; j += 32) a = arr_comb(a, sv[j - b]);
        for (int d = 16; d > 0; d >>= 1) a = arr_comb(a, arr_shfl_xor(a, d, 32));
        if (lane == 0) out[s] = a;
    }
}

//@@ classes
// Class sizes @SHORT@, @BLOCK@, @SPLIT@, @CHUNKS@, @SEGS@ (segments), @CHUNK@
// (values per chunk), @LANES@, and @ORDERED@ (1 when the layout lists segment
// ids class by class).

__device__ __forceinline__ IDX arr_seg_id(const i64* __restrict__ lay, IDX k) {
    return @ORDERED@ ? (IDX)lay[k] : k;
}

// Short segments: @LANES@ lanes each, 32/@LANES@ segments per warp; the loop
// runs warp-uniformly so every sub-warp shuffle sees the whole warp. Four
// loads are issued before they are combined, to keep memory busy.
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    const IDX n = (IDX)@SHORT@;
    const int lane = threadIdx.x % @LANES@;
    const IDX group = ((IDX)blockIdx.x * blockDim.x + threadIdx.x) / @LANES@;
    const IDX groups = (IDX)gridDim.x * blockDim.x / @LANES@;
    const IDX per_warp = 32 / @LANES@;
    for (IDX base = group - group % per_warp; base < n; base += groups) {
        const IDX g = base + group % per_warp;
        const bool active = g < n;
        @ACC@ a = @IDENT@;
        IDX s = 0;
        if (active) {
            s = arr_seg_id(lay, g);
            const IDX lo = (IDX)offs[s], hi = (IDX)offs[s + 1];
            IDX j = lo + lane;
            for (; j + 3 * @LANES@ < hi; j += 4 * @LANES@) {
                const @ACC@ x0 = ARR_VAL(j), x1 = ARR_VAL(j + @LANES@);
                const @ACC@ x2 = ARR_VAL(j + 2 * @LANES@), x3 = ARR_VAL(j + 3 * @LANES@);
                a = arr_comb(a, arr_comb(arr_comb(x0, x1), arr_comb(x2, x3)));
            }
            for (; j < hi; j += @LANES@) a = arr_comb(a, ARR_VAL(j));
        }
        for (int d = @LANES@ / 2; d > 0; d >>= 1) a = arr_comb(a, arr_shfl_xor(a, d, @LANES@));
        if (active && lane == 0) out[s] = a;
    }
}

// A block over one segment's values [lo, hi): 256 threads, four loads in flight each.
__device__ __forceinline__ @ACC@ arr_seg_block(@PARAMS@, IDX lo, IDX hi, @ACC@* sh) {
    @ACC@ a = @IDENT@;
    IDX j = lo + threadIdx.x;
    for (; j + 768 < hi; j += 1024) {
        const @ACC@ x0 = ARR_VAL(j), x1 = ARR_VAL(j + 256), x2 = ARR_VAL(j + 512), x3 = ARR_VAL(j + 768);
        a = arr_comb(a, arr_comb(arr_comb(x0, x1), arr_comb(x2, x3)));
    }
    for (; j < hi; j += 256) a = arr_comb(a, ARR_VAL(j));
    return arr_block_reduce(a, sh);
}

// Medium segments: a block each.
extern "C" __global__ void __launch_bounds__(256) arr_block(@PARAMS@) {
    __shared__ @ACC@ sh[32];
    for (IDX k = blockIdx.x; k < (IDX)@BLOCK@; k += gridDim.x) {
        const IDX s = arr_seg_id(lay, (IDX)@SHORT@ + k);
        const @ACC@ a = arr_seg_block(@ARGS@, (IDX)offs[s], (IDX)offs[s + 1], sh);
        if (threadIdx.x == 0) out[s] = a;
    }
}

// Long segments: chunk c of all split segments' chunks; its segment is found
// by binary search in the chunk prefix that follows the ids in the layout.
extern "C" __global__ void __launch_bounds__(256) arr_split(@PARAMS@) {
    __shared__ @ACC@ sh[32];
    const i64* __restrict__ prefix = lay + @SEGS@;
    for (IDX c = blockIdx.x; c < (IDX)@CHUNKS@; c += gridDim.x) {
        IDX lo_k = 0, hi_k = @SPLIT@;
        while (hi_k - lo_k > 1) {
            const IDX m = (lo_k + hi_k) / 2;
            if ((IDX)prefix[m] <= c) lo_k = m; else hi_k = m;
        }
        const IDX s = (IDX)lay[(IDX)@SHORT@ + (IDX)@BLOCK@ + lo_k];
        const IDX start = (IDX)offs[s] + (c - (IDX)prefix[lo_k]) * (IDX)@CHUNK@;
        const IDX end = min((IDX)offs[s + 1], start + (IDX)@CHUNK@);
        const @ACC@ a = arr_seg_block(@ARGS@, start, end, sh);
        if (threadIdx.x == 0) part[c] = a;
    }
}

// Second pass: each long segment combines its chunks' partials, in order.
extern "C" __global__ void __launch_bounds__(256) arr_finish(@PARAMS@) {
    __shared__ @ACC@ sh[32];
    const i64* __restrict__ prefix = lay + @SEGS@;
    for (IDX k = blockIdx.x; k < (IDX)@SPLIT@; k += gridDim.x) {
        @ACC@ a = @IDENT@;
        for (IDX c = (IDX)prefix[k] + threadIdx.x; c < (IDX)prefix[k + 1]; c += blockDim.x) a = arr_comb(a, part[c]);
        a = arr_block_reduce(a, sh);
        if (threadIdx.x == 0) out[(IDX)lay[(IDX)@SHORT@ + (IDX)@BLOCK@ + k]] = a;
    }
}
