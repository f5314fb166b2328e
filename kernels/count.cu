// Arr counting kernels (src/backend/cuda/count.rs): bincount with atomics.
// Holes: @X@ the index type, @W@ the count type (u64 counts or f64 weights),
// @WEIGHT@ one element's contribution, @BINS@ the bin count.

//@@ bincount_shared
// Few bins: each block counts into a private shared-memory histogram, then
// adds it to the global one (one global atomic a bin a block, not an element).
extern "C" __global__ void __launch_bounds__(256) arr_main(const @X@* __restrict__ x, const double* __restrict__ w, i64 n, @W@* counts) {
    __shared__ @W@ h[@BINS@];
    for (int b = threadIdx.x; b < @BINS@; b += blockDim.x) h[b] = 0;
    __syncthreads();
    const i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&h[x[i]], @WEIGHT@);
    __syncthreads();
    for (int b = threadIdx.x; b < @BINS@; b += blockDim.x)
        if (h[b] != 0) atomicAdd(&counts[b], h[b]);
}

//@@ bincount_global
// Many bins: atomics straight into the global histogram.
extern "C" __global__ void __launch_bounds__(256) arr_main(const @X@* __restrict__ x, const double* __restrict__ w, i64 n, @W@* counts) {
    const i64 stride = (i64)gridDim.x * blockDim.x;
    for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&counts[x[i]], @WEIGHT@);
}
