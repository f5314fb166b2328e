// Arr kernels for operations that do not fuse: scan, matmul, concat, take.
// Holes: @PARAMS@, @T@ element type, sizes, and per-op index code.

//@@ scan
// A thread per line along the scanned axis (sequential inclusive scan).
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    const IDX stride = (IDX)gridDim.x * blockDim.x;
    for (IDX line = (IDX)blockIdx.x * blockDim.x + threadIdx.x; line < (IDX)@LINES@; line += stride) {
@LINE_BASE@
        @T@ a = @IDENT@;
        for (IDX j = 0; j < (IDX)@LEN@; ++j) {
            a = arr_comb(a, p0[ib + j * (IDX)@IN_STRIDE@]);
            out[ob + j * (IDX)@OUT_STRIDE@] = a;
        }
    }
}

//@@ matmul
// A thread per output element of a stack of @B@ products (batch strides
// ASB/BSB, 0 when broadcast); the (k) loop reads A's row and B's column.
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    const IDX stride = (IDX)gridDim.x * blockDim.x;
    for (IDX q = (IDX)blockIdx.x * blockDim.x + threadIdx.x; q < (IDX)@B@ * (IDX)@M@ * (IDX)@N@; q += stride) {
        const IDX t = q / ((IDX)@M@ * (IDX)@N@), rc = q % ((IDX)@M@ * (IDX)@N@);
        const IDX r = rc / (IDX)@N@, c = rc % (IDX)@N@;
        const IDX ab = (IDX)off0 + t * (IDX)@ASB@, bb = (IDX)off1 + t * (IDX)@BSB@;
        @T@ a = 0;
        for (IDX k = 0; k < (IDX)@K@; ++k)
            a += p0[ab + r * (IDX)@AS0@ + k * (IDX)@AS1@] * p1[bb + k * (IDX)@BS0@ + c * (IDX)@BS1@];
        out[q] = a;
    }
}

//@@ gather
// A thread per output element: concat and take, with per-op coordinate code.
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    const IDX stride = (IDX)gridDim.x * blockDim.x;
    for (IDX i = (IDX)blockIdx.x * blockDim.x + threadIdx.x; i < (IDX)@N@; i += stride) {
@UNRAVEL@
@GATHER@
    }
}

//@@ scan_chunked
// Long lines: blockIdx.y is the line, blockIdx.x a chunk of @CHUNK@ elements.
// arr_main stores each chunk's total; arr_finish combines the totals of the
// chunks before its own (the carry), then scans its chunk tile by tile.
__device__ __forceinline__ @T@ arr_block_scan(@T@ v, @T@* sh, @T@* total) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int d = 1; d < 32; d <<= 1) {
        const @T@ y = arr_shfl_up(v, d);
        if (lane >= d) v = arr_comb(y, v);
    }
    if (lane == 31) sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        @T@ w = (lane < 8) ? sh[lane] : @IDENT@;
        for (int d = 1; d < 8; d <<= 1) {
            const @T@ y = arr_shfl_up(w, d);
            if (lane >= d) w = arr_comb(y, w);
        }
        if (lane < 8) sh[lane] = w;
    }
    __syncthreads();
    if (warp > 0) v = arr_comb(sh[warp - 1], v);
    *total = sh[7];
    __syncthreads();
    return v;
}

extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    __shared__ @T@ sh[32];
    const IDX line = blockIdx.y;
@LINE_BASE@
    const IDX j0 = (IDX)blockIdx.x * @CHUNK@;
    const IDX j1 = min((IDX)@LEN@, j0 + @CHUNK@);
    @T@ a = @IDENT@;
    for (IDX j = j0 + threadIdx.x; j < j1; j += blockDim.x) a = arr_comb(a, p0[ib + j * (IDX)@IN_STRIDE@]);
    a = arr_block_reduce(a, sh);
    if (threadIdx.x == 0) part[line * @CHUNKS@ + blockIdx.x] = a;
}

extern "C" __global__ void __launch_bounds__(256) arr_finish(@PARAMS@) {
    __shared__ @T@ sh[32];
    __shared__ @T@ carry_in;
    const IDX line = blockIdx.y;
@LINE_BASE@
    const IDX j0 = (IDX)blockIdx.x * @CHUNK@;
    const IDX j1 = min((IDX)@LEN@, j0 + @CHUNK@);
    @T@ c = @IDENT@;
    for (int k = threadIdx.x; k < (int)blockIdx.x; k += blockDim.x) c = arr_comb(c, part[line * @CHUNKS@ + k]);
    c = arr_block_reduce(c, sh);
    if (threadIdx.x == 0) carry_in = c;
    __syncthreads();
    c = carry_in;
    for (IDX t0 = j0; t0 < j1; t0 += blockDim.x) {
        const IDX j = t0 + threadIdx.x;
        @T@ v = (j < j1) ? p0[ib + j * (IDX)@IN_STRIDE@] : @IDENT@;
        @T@ total;
        v = arr_block_scan(v, sh, &total);
        if (j < j1) out[ob + j * (IDX)@OUT_STRIDE@] = arr_comb(c, v);
        c = arr_comb(c, total);
    }
}

//@@ scan_warp
// Pieces of the contiguous scans. For each k < @K@, lane l holds the @V@
// elements at j0 + (k * 32 + l) * @V@: every access of the warp is one
// coalesced run of 32 * @V@ elements (16-byte vectors when @V@ > 1), and a
// warp tile is 32 * @V@ * @K@ consecutive elements of a line. Combines keep
// earlier elements on the left, as the CPU backend's sequential scan does.
template <class T> __device__ __forceinline__ T arr_shfl_idx(T v, int src) { return __shfl_sync(0xffffffffu, v, src); }
template <> __device__ __forceinline__ bool arr_shfl_idx<bool>(bool v, int src) {
    return __shfl_sync(0xffffffffu, (int)v, src) != 0;
}
template <class T> __device__ __forceinline__ T arr_shfl_down(T v, int d) { return __shfl_down_sync(0xffffffffu, v, d); }
template <> __device__ __forceinline__ bool arr_shfl_down<bool>(bool v, int d) {
    return __shfl_down_sync(0xffffffffu, (int)v, d) != 0;
}

__device__ __forceinline__ void arr_scan_load(@T@ (&x)[@K@][@V@], const @T@* __restrict__ src, IDX j0, int lane) {
    #pragma unroll
    for (int k = 0; k < @K@; ++k) {
        const IDX j = j0 + ((IDX)k * 32 + lane) * @V@;
        if (j + (@V@ - 1) < (IDX)@LEN@) {
            const Vec<@T@, @V@> q = *reinterpret_cast<const Vec<@T@, @V@>*>(src + j);
            #pragma unroll
            for (int v = 0; v < @V@; ++v) x[k][v] = q.x[v];
        } else {
            // element by element: a branch the compiler keeps, so every access's load is
            // issued before the scan starts (predicated loads were interleaved with the
            // scan, 11 of 16 issued first: 70% of the copy ceiling against 77% on an H200)
            #pragma unroll
            for (int v = 0; v < @V@; ++v) x[k][v] = (j + v < (IDX)@LEN@) ? src[j + v] : @IDENT@;
        }
    }
}

__device__ __forceinline__ void arr_scan_store(const @T@ (&x)[@K@][@V@], @T@* __restrict__ dst, IDX j0, int lane) {
    #pragma unroll
    for (int k = 0; k < @K@; ++k) {
        const IDX j = j0 + ((IDX)k * 32 + lane) * @V@;
        if (j < (IDX)@LEN@) {
            Vec<@T@, @V@> q;
            #pragma unroll
            for (int v = 0; v < @V@; ++v) q.x[v] = x[k][v];
            *reinterpret_cast<Vec<@T@, @V@>*>(dst + j) = q;
        }
    }
}

// Scans a warp tile in place, starting from `carry` (the combined elements
// before it); returns the carry after it, in every lane.
__device__ __forceinline__ @T@ arr_warp_scan(@T@ (&x)[@K@][@V@], int lane, @T@ carry) {
    #pragma unroll
    for (int k = 0; k < @K@; ++k) {
        #pragma unroll
        for (int v = 1; v < @V@; ++v) x[k][v] = arr_comb(x[k][v - 1], x[k][v]);
        @T@ s = x[k][@V@ - 1];
        #pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const @T@ y = arr_shfl_up(s, d);
            if (lane >= d) s = arr_comb(y, s);
        }
        const @T@ before = arr_shfl_up(s, 1);
        const @T@ pre = (lane == 0) ? carry : arr_comb(carry, before);
        #pragma unroll
        for (int v = 0; v < @V@; ++v) x[k][v] = arr_comb(pre, x[k][v]);
        carry = arr_comb(carry, arr_shfl_idx(s, 31));
    }
    return carry;
}

//@@ scan_rows
// A warp per line (warp-uniform loop, so every shuffle sees the whole warp);
// the carry between warp tiles stays in a register.
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    const int lane = threadIdx.x & 31;
    const IDX warps = (IDX)gridDim.x * (blockDim.x >> 5);
    for (IDX line = ((IDX)blockIdx.x * blockDim.x + threadIdx.x) >> 5; line < (IDX)@LINES@; line += warps) {
@LINE_BASE@
        @T@ carry = @IDENT@;
        for (IDX j0 = 0; j0 < (IDX)@LEN@; j0 += 32 * @V@ * @K@) {
            @T@ x[@K@][@V@];
            arr_scan_load(x, p0 + ib, j0, lane);
            carry = arr_warp_scan(x, lane, carry);
            arr_scan_store(x, out + ob, j0, lane);
        }
    }
}

//@@ scan_lookback
// Single pass over few long lines: tile t of a line (8 warp tiles, @TILE@
// elements) publishes its aggregate, then warp 0 looks back over the earlier
// tiles of its line, 32 at a time, combining aggregates until it meets an
// inclusive prefix. Blocks take tiles in the order they start (a ticket), so
// every tile a block waits on belongs to a block already running. The state
// lives in this module's globals, tagged with the launch's number (ticket /
// tiles + 1), so no launch reads an earlier one's state and nothing needs
// clearing. Status kinds: 1 aggregate ready, 2 inclusive ready.
//
// Types of at most 4 bytes (@PACKED@ = 1) publish one 64-bit word, tag and
// kind in the high half and the value's bits in the low half, written and
// read whole: one round trip to L2 per look-back step and no fence. Measured
// on an H200 (2^28 f32): 67% of the copy ceiling against 42.5% with separate
// flag and value arrays. Wider types keep the separate arrays, ordered by
// fences.
__device__ unsigned long long arr_ticket;
#if @PACKED@
__device__ unsigned long long arr_word[@TOTAL@];

__device__ __forceinline__ void arr_publish(IDX i, @T@ v, unsigned status) {
    union { @T@ v; unsigned u; } c;
    c.u = 0u;
    c.v = v;
    *(volatile unsigned long long*)&arr_word[i] = ((unsigned long long)status << 32) | c.u;
}

// Waits for tile i's status under `tag`; returns its kind and sets `v`.
__device__ __forceinline__ unsigned arr_wait(IDX i, unsigned tag, @T@& v) {
    unsigned long long w;
    do {
        w = *(volatile unsigned long long*)&arr_word[i];
    } while (((unsigned)(w >> 32) & ~3u) != tag || ((unsigned)(w >> 32) & 3u) == 0u);
    union { @T@ v; unsigned u; } c;
    c.u = (unsigned)w;
    v = c.v;
    return (unsigned)(w >> 32) & 3u;
}
#else
__device__ @T@ arr_agg[@TOTAL@];
__device__ @T@ arr_inc[@TOTAL@];
__device__ unsigned arr_flag[@TOTAL@];

__device__ __forceinline__ void arr_publish(IDX i, @T@ v, unsigned status) {
    if (status & 2u) arr_inc[i] = v; else arr_agg[i] = v;
    __threadfence();
    *(volatile unsigned*)&arr_flag[i] = status;
}

__device__ __forceinline__ unsigned arr_wait(IDX i, unsigned tag, @T@& v) {
    unsigned f;
    do {
        f = *(volatile unsigned*)&arr_flag[i];
    } while ((f & ~3u) != tag || (f & 3u) == 0u);
    __threadfence();
    v = (f & 2u) ? *(volatile @T@*)&arr_inc[i] : *(volatile @T@*)&arr_agg[i];
    return f & 3u;
}
#endif

extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    __shared__ @T@ sh[8];
    __shared__ unsigned long long sh_ticket;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) sh_ticket = atomicAdd(&arr_ticket, 1ULL);
    __syncthreads();
    const unsigned long long ticket = sh_ticket;
    const IDX vid = (IDX)(ticket % (unsigned long long)@TOTAL@);
    const unsigned tag = (unsigned)(ticket / (unsigned long long)@TOTAL@ + 1ULL) << 2;
    const IDX line = vid / (IDX)@TILES@, t = vid % (IDX)@TILES@;
@LINE_BASE@
    const IDX j0 = t * (IDX)@TILE@ + (IDX)warp * (32 * @V@ * @K@);
    @T@ x[@K@][@V@];
    arr_scan_load(x, p0 + ib, j0, lane);
    const @T@ wtot = arr_warp_scan(x, lane, @IDENT@);
    if (lane == 0) sh[warp] = wtot;
    __syncthreads();
    if (warp == 0) {
        // the warps' totals: inclusive scan over 8, the tile's aggregate, each warp's prefix
        @T@ w = (lane < 8) ? sh[lane] : @IDENT@;
        for (int d = 1; d < 8; d <<= 1) {
            const @T@ y = arr_shfl_up(w, d);
            if (lane >= d) w = arr_comb(y, w);
        }
        const @T@ agg = arr_shfl_idx(w, 7);
        const @T@ wbefore = arr_shfl_up(w, 1);
        @T@ excl = @IDENT@;
        if (t == 0) {
            if (lane == 0) arr_publish(vid, agg, tag | 2u);
        } else {
            if (lane == 0) arr_publish(vid, agg, tag | 1u);
            const IDX first_tile = vid - t;
            for (IDX pos = vid - 1;; pos -= 32) {
                const IDX i = pos - lane;
                @T@ v = @IDENT@;
                unsigned kind = 2u;
                if (i >= first_tile) kind = arr_wait(i, tag, v);
                const unsigned incl = __ballot_sync(0xffffffffu, (kind & 2u) != 0u);
                const int stop = __ffs(incl) - 1;
                if (incl != 0u && lane > stop) v = @IDENT@;
                // lane 0 is the nearest tile: higher lanes are earlier, so they go on the left
                for (int d = 1; d < 32; d <<= 1) {
                    const @T@ y = arr_shfl_down(v, d);
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
    const @T@ pre = sh[warp];
    #pragma unroll
    for (int k = 0; k < @K@; ++k) {
        #pragma unroll
        for (int v = 0; v < @V@; ++v) x[k][v] = arr_comb(pre, x[k][v]);
    }
    arr_scan_store(x, out + ob, j0, lane);
}
