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
