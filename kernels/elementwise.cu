// Arr elementwise kernels. The codegen fills @NAME@ holes: @PARAMS@ (pointers,
// offsets, keys), @N@ sizes, @V@ elements per access, @UNIT@ the per-element
// body (loads, fused expression, store) written for coordinates/offsets at `i`.

//@@ map
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    const IDX n = (IDX)@N@;
    const IDX units = n / @V@;
    const IDX stride = (IDX)gridDim.x * blockDim.x;
    for (IDX u = (IDX)blockIdx.x * blockDim.x + threadIdx.x; u < units; u += stride) {
        const IDX i = u * @V@;
@UNIT@
    }
    for (IDX i = units * @V@ + (IDX)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
@SCALAR_UNIT@
    }
}

//@@ broadcast
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    const IDX units = (IDX)@N@ / @V@;
    const IDX stride = (IDX)gridDim.x * blockDim.x;
    for (IDX u = (IDX)blockIdx.x * blockDim.x + threadIdx.x; u < units; u += stride) {
        const IDX i = u * @V@;
@UNRAVEL@
@UNIT@
    }
}

//@@ sliding
// A thread owns @V@ adjacent columns and walks @ROWS@ rows: operands broadcast
// down the rows are loaded once per thread (the unrolled loads are common subexpressions).
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    const IDX cols = (IDX)@N1@ / @V@;
    const IDX units = cols * (((IDX)@N0@ + @ROWS@ - 1) / @ROWS@);
    const IDX stride = (IDX)gridDim.x * blockDim.x;
    for (IDX u = (IDX)blockIdx.x * blockDim.x + threadIdx.x; u < units; u += stride) {
        const IDX c1 = (u % cols) * @V@;
        const IDX r0 = (u / cols) * @ROWS@;
#pragma unroll
        for (int rr = 0; rr < @ROWS@; ++rr) {
            const IDX c0 = r0 + rr;
            if (c0 < (IDX)@N0@) {
                const IDX i = c0 * (IDX)@N1@ + c1;
@UNIT@
            }
        }
    }
}
