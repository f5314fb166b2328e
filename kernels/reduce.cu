// Arr reduction kernels. Holes: @ACC@ accumulator type, @IDENT@ identity,
// arr_comb (emitted by the codegen), @ROWS@/@LEN@ kept and reduced sizes,
// @STEP@ accumulates the body at reduced index `j` from row bases,
// @STORE@ writes the epilogue of `a` for output `row`.

//@@ common
__device__ __forceinline__ @ACC@ arr_block_reduce(@ACC@ a, @ACC@* sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int d = 16; d > 0; d >>= 1) a = arr_comb(a, arr_shfl_xor(a, d, 32));
    if (lane == 0) sh[warp] = a;
    __syncthreads();
    const int warps = (blockDim.x + 31) >> 5;
    a = (threadIdx.x < warps) ? sh[threadIdx.x] : @IDENT@;
    if (warp == 0)
        for (int d = 16; d > 0; d >>= 1) a = arr_comb(a, arr_shfl_xor(a, d, 32));
    __syncthreads();
    return a;
}

//@@ rows_warp
// @LANES@ lanes per row; the loop runs warp-uniformly so every shuffle sees the whole warp.
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    const IDX rows = (IDX)@ROWS@, len = (IDX)@LEN@;
    const int lane = threadIdx.x % @LANES@;
    const IDX group = ((IDX)blockIdx.x * blockDim.x + threadIdx.x) / @LANES@;
    const IDX groups = (IDX)gridDim.x * blockDim.x / @LANES@;
    const IDX per_warp = 32 / @LANES@;
    for (IDX base = group - group % per_warp; base < rows; base += groups) {
        const IDX row = base + group % per_warp;
        const bool active = row < rows;
        @ACC@ a = @IDENT@;
        if (active) {
@ROW_BASE@
            for (IDX j = (IDX)lane * @V@; j < len; j += @LANES@ * @V@) {
@STEP@
            }
        }
        for (int d = @LANES@ / 2; d > 0; d >>= 1) a = arr_comb(a, arr_shfl_xor(a, d, @LANES@));
        if (active && lane == 0) {
@STORE@
        }
    }
}

//@@ rows_block
extern "C" __global__ void __launch_bounds__(1024) arr_main(@PARAMS@) {
    __shared__ @ACC@ sh[32];
    const IDX rows = (IDX)@ROWS@, len = (IDX)@LEN@;
    for (IDX row = blockIdx.x; row < rows; row += gridDim.x) {
@ROW_BASE@
        @ACC@ a = @IDENT@;
        for (IDX j = (IDX)threadIdx.x * @V@; j < len; j += (IDX)blockDim.x * @V@) {
@STEP@
        }
        a = arr_block_reduce(a, sh);
        if (threadIdx.x == 0) {
@STORE@
        }
    }
}

//@@ rows_split
// Few long rows: blockIdx.y is the row, blockIdx.x one of @SPLIT@ slices of
// it. Each block stores its partial; the last block of a row to finish (a
// counter per row in this module's globals, reset by that block) combines the
// row's partials and writes the result.
__device__ unsigned arr_done[@ROWS@];

extern "C" __global__ void __launch_bounds__(1024) arr_main(@PARAMS@) {
    __shared__ @ACC@ sh[32];
    __shared__ bool last;
    const IDX row = blockIdx.y;
    const IDX units = (IDX)@LEN@ / @V@;
    const IDX per = (units + @SPLIT@ - 1) / @SPLIT@;
    const IDX u0 = (IDX)blockIdx.x * per;
    const IDX u1 = min(units, u0 + per);
    {
@ROW_BASE@
        @ACC@ a = @IDENT@;
        for (IDX u = u0 + threadIdx.x; u < u1; u += blockDim.x) {
            const IDX j = u * @V@;
@STEP@
        }
        a = arr_block_reduce(a, sh);
        if (threadIdx.x == 0) {
            part[row * @SPLIT@ + blockIdx.x] = a;
            __threadfence();
            last = atomicAdd(&arr_done[row], 1u) == @SPLIT@ - 1;
            if (last) arr_done[row] = 0;
        }
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    @ACC@ a = @IDENT@;
    for (int k = threadIdx.x; k < @SPLIT@; k += blockDim.x) a = arr_comb(a, part[row * @SPLIT@ + k]);
    a = arr_block_reduce(a, sh);
    if (threadIdx.x == 0) {
@STORE@
    }
}

//@@ all
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    __shared__ @ACC@ sh[32];
    const IDX len = (IDX)@LEN@;
    const IDX units = len / @V@;
    const IDX stride = (IDX)gridDim.x * blockDim.x;
    const IDX row = 0;
@ROW_BASE@
    @ACC@ a = @IDENT@;
    for (IDX u = (IDX)blockIdx.x * blockDim.x + threadIdx.x; u < units; u += stride) {
        const IDX j = u * @V@;
@STEP@
    }
    for (IDX j = units * @V@ + (IDX)blockIdx.x * blockDim.x + threadIdx.x; j < len; j += stride) {
@SCALAR_STEP@
    }
    a = arr_block_reduce(a, sh);
    if (threadIdx.x == 0) part[blockIdx.x] = a;
}

extern "C" __global__ void __launch_bounds__(256) arr_finish(@PARAMS@) {
    __shared__ @ACC@ sh[32];
    @ACC@ a = @IDENT@;
    for (int k = threadIdx.x; k < @BLOCKS@; k += blockDim.x) a = arr_comb(a, part[k]);
    a = arr_block_reduce(a, sh);
    const IDX row = 0;
    if (threadIdx.x == 0) {
@STORE@
    }
}

//@@ cols
// A thread per kept column; blockIdx.y takes a slice of the reduced axis.
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    const IDX row = (IDX)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= (IDX)@ROWS@) return;
    const IDX chunk = ((IDX)@LEN@ + @SPLIT@ - 1) / @SPLIT@;
    const IDX j0 = (IDX)blockIdx.y * chunk;
    const IDX j1 = min((IDX)@LEN@, j0 + chunk);
@ROW_BASE@
    @ACC@ a = @IDENT@;
    #pragma unroll 4
    for (IDX j = j0; j < j1; ++j) {
@SCALAR_STEP@
    }
    if (@SPLIT@ == 1) {
@STORE@
    } else {
        part[(IDX)blockIdx.y * (IDX)@ROWS@ + row] = a;
    }
}

extern "C" __global__ void __launch_bounds__(256) arr_finish(@PARAMS@) {
    const IDX row = (IDX)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= (IDX)@ROWS@) return;
    @ACC@ a = @IDENT@;
    for (int s = 0; s < @SPLIT@; ++s) a = arr_comb(a, part[(IDX)s * (IDX)@ROWS@ + row]);
@STORE@
}

//@@ general
// A thread per output element, looping over the reduced elements in order
// (which is what argmin/argmax need for "first index").
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
    const IDX stride = (IDX)gridDim.x * blockDim.x;
    for (IDX row = (IDX)blockIdx.x * blockDim.x + threadIdx.x; row < (IDX)@ROWS@; row += stride) {
@ROW_BASE@
@GENERAL_LOOP@
@STORE@
    }
}
