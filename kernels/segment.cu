// Arr ragged segmented reductions (the `segmented` strategy). Holes: @ACC@,
// @IDENT@, arr_comb and ARR_VAL(j) (the fused value expression at value j,
// as @ACC@) from the codegen; class sizes @SHORT@, @BLOCK@, @SPLIT@,
// @CHUNKS@, @SEGS@ (segments), @CHUNK@ (values per chunk), @LANES@, and
// @ORDERED@ (1 when the layout lists segment ids class by class).
// `offs` holds the segment offsets, `lay` the layout (see graph::op::SegLayout).

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
