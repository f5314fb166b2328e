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
// A thread per output element; the (k) loop reads A's row and B's column.
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    const IDX stride = (IDX)gridDim.x * blockDim.x;
    for (IDX q = (IDX)blockIdx.x * blockDim.x + threadIdx.x; q < (IDX)@M@ * (IDX)@N@; q += stride) {
        const IDX r = q / (IDX)@N@, c = q % (IDX)@N@;
        @T@ a = 0;
        for (IDX k = 0; k < (IDX)@K@; ++k)
            a += p0[(IDX)off0 + r * (IDX)@AS0@ + k * (IDX)@AS1@] * p1[(IDX)off1 + k * (IDX)@BS0@ + c * (IDX)@BS1@];
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
