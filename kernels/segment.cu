// Arr ragged segmented reductions (the `segmented` strategy). Holes: @ACC@,
// @IDENT@, arr_comb and ARR_VAL(j) (the fused value expression at value j,
// as @ACC@) from the codegen. `offs` holds the segment offsets, `lay` the
// layout (see graph::op::SegLayout). Two sections: `tile` when every segment
// is short, `classes` otherwise.

//@@ tile
// @TV@ values per thread, tiles of 256 * @TV@. A persistent grid of @MINB@
// blocks per multiprocessor; each block owns a contiguous run of the spans
// (span k is segments lay[k]..lay[k+1]), i.e. whole segments, so no partial
// crosses blocks: results are deterministic and need no second pass. Per tile: coalesced loads (the next tile's are
// issued before this one is reduced), a transpose through shared memory to
// @TV@ consecutive values per thread, head marks from the offsets, a serial
// segmented reduction per thread, then a block-wide segmented scan of the
// threads' (has-head, value, segment) triples that completes each segment
// open at a thread's start. The segment open at the tile's end carries on.

#define ARR_TV @TV@
#define ARR_T (256 * ARR_TV)
// one pad slot per 32 keeps both the strided stores and the blocked reads conflict-free
#define ARR_PAD(p) ((p) + ((p) >> 5))

struct ArrSeg {
    int f;
    @ACC@ v;
    IDX id;
};
// a then b: b's value alone if b starts a segment, else both combined in a's segment
__device__ __forceinline__ ArrSeg arr_seg_op(const ArrSeg& a, const ArrSeg& b) {
    if (b.f) return b;
    ArrSeg r;
    r.f = a.f;
    r.v = arr_comb(a.v, b.v);
    r.id = a.id;
    return r;
}
__device__ __forceinline__ ArrSeg arr_seg_up(const ArrSeg& a, int d) {
    ArrSeg r;
    r.f = __shfl_up_sync(0xffffffffu, a.f, d);
    r.v = arr_shfl_up(a.v, d);
    r.id = __shfl_up_sync(0xffffffffu, a.id, d);
    return r;
}

extern "C" __global__ void __launch_bounds__(256, @MINB@) arr_main(@PARAMS@) {
    __shared__ @ACC@ sv[ARR_PAD(ARR_T)];
    __shared__ IDX heads[ARR_PAD(ARR_T)];
    __shared__ ArrSeg warps[8];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    // this block's spans, balanced over the grid: one contiguous range of whole segments
    const i64 spans = (i64)@SPANS@;
    IDX s_cur = (IDX)lay[(i64)blockIdx.x * spans / gridDim.x];
    const IDX s_hi = (IDX)lay[((i64)blockIdx.x + 1) * spans / gridDim.x];
    const IDX end = (IDX)offs[s_hi];
    IDX base = (IDX)offs[s_cur];
    // the next batch of offsets, loaded a tile ahead
    IDX o_lo = 0, o_hi = 0;
    if (s_cur + tid < s_hi) {
        o_lo = (IDX)offs[s_cur + tid];
        o_hi = (IDX)offs[s_cur + tid + 1];
    }
    ArrSeg carry;
    carry.f = 1;
    carry.v = @IDENT@;
    carry.id = -1;
    @ACC@ x[ARR_TV];
#pragma unroll
    for (int k = 0; k < ARR_TV; k++) {
        const IDX j = base + (IDX)(k * 256 + tid);
        x[k] = j < end ? ARR_VAL(j) : @IDENT@;
    }
    for (;;) {
        const IDX tend = min(base + (IDX)ARR_T, end);
        const bool last = tend >= end;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < ARR_TV; k++) {
            sv[ARR_PAD(k * 256 + tid)] = x[k];
            heads[ARR_PAD(k * 256 + tid)] = -1;
        }
        if (!last) {
#pragma unroll
            for (int k = 0; k < ARR_TV; k++) {
                const IDX j = tend + (IDX)(k * 256 + tid);
                x[k] = j < end ? ARR_VAL(j) : @IDENT@;
            }
        }
        __syncthreads();
        // segments starting in this tile (all the block's rest in its last tile): mark
        // the non-empty ones' heads, write the empty ones' identity
        for (bool first = true;; first = false) {
            const IDX s = s_cur + tid;
            if (!first && s < s_hi) {
                o_lo = (IDX)offs[s];
                o_hi = (IDX)offs[s + 1];
            }
            bool in = false;
            if (s < s_hi) {
                in = last || o_lo < tend;
                if (in) {
                    if (o_hi == o_lo) out[s] = @IDENT@;
                    else heads[ARR_PAD(o_lo - base)] = s;
                }
            }
            const int count = __syncthreads_count(in);
            s_cur += count;
            if (count < 256) break;
        }
        if (!last && s_cur + tid < s_hi) {
            o_lo = (IDX)offs[s_cur + tid];
            o_hi = (IDX)offs[s_cur + tid + 1];
        }
        ArrSeg mine;
        mine.f = 0;
        mine.v = @IDENT@;
        mine.id = -1;
        @ACC@ pre = @IDENT@;
#pragma unroll
        for (int k = 0; k < ARR_TV; k++) {
            const int p = ARR_PAD(tid * ARR_TV + k);
            const @ACC@ v = sv[p];
            const IDX h = heads[p];
            if (h >= 0) {
                if (mine.f) out[mine.id] = mine.v;
                mine.f = 1;
                mine.id = h;
                mine.v = v;
            } else if (mine.f) {
                mine.v = arr_comb(mine.v, v);
            } else {
                pre = arr_comb(pre, v);
            }
        }
        ArrSeg inc = mine;
        if (!inc.f) inc.v = pre;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const ArrSeg o = arr_seg_up(inc, d);
            if (lane >= d) inc = arr_seg_op(o, inc);
        }
        if (lane == 31) warps[warp] = inc;
        __syncthreads();
        ArrSeg before = carry;
#pragma unroll
        for (int w = 0; w < 8; w++) {
            const ArrSeg t = warps[w];
            if (w < warp) before = arr_seg_op(before, t);
            carry = arr_seg_op(carry, t);
        }
        ArrSeg ex = arr_seg_up(inc, 1);
        ex = lane == 0 ? before : arr_seg_op(before, ex);
        // this thread's first head ends the segment open at its start
        if (mine.f && ex.id >= 0) out[ex.id] = arr_comb(ex.v, pre);
        if (last) {
            if (tid == 0 && carry.id >= 0) out[carry.id] = carry.v;
            break;
        }
        base = tend;
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
