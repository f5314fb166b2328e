// Arr: a warp's inclusive scan, and one block's exclusive scan of per-block
// counts, shared by the device sort (kernels/sort.cu) and mask compaction
// (kernels/compress.cu): src/backend/cuda/sort.rs puts this file first in both.

// The sum of `v` over this lane and the lanes below it.
__device__ __forceinline__ unsigned int warp_inclusive_sum(unsigned int v) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const unsigned int y = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += y;
    }
    return v;
}

// Exclusive scan in place of `m` counts by one block, their sum into v[m].
// With `trivial`, the counts are RADIX runs of `stride` (digit-major), and a
// digit holding every element sets *trivial.
extern "C" __global__ void __launch_bounds__(1024) offsets_scan(unsigned int* __restrict__ v, long long m,
                                                             long long stride, unsigned int* __restrict__ trivial) {
    constexpr int PER_THREAD = 8;
    __shared__ unsigned int s_w[32];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    unsigned int carry = 0;
    for (long long b = 0; b < m; b += 1024 * PER_THREAD) {
        const long long lo = b + (long long)tid * PER_THREAD;
        unsigned int x[PER_THREAD], sum = 0;
#pragma unroll
        for (int i = 0; i < PER_THREAD; ++i) {
            x[i] = lo + i < m ? v[lo + i] : 0u;
            sum += x[i];
        }
        const unsigned int incl = warp_inclusive_sum(sum);
        if (lane == 31) s_w[warp] = incl;
        __syncthreads();
        if (warp == 0) {
            s_w[lane] = warp_inclusive_sum(s_w[lane]);
        }
        __syncthreads();
        unsigned int run = carry + (warp ? s_w[warp - 1] : 0u) + incl - sum;
#pragma unroll
        for (int i = 0; i < PER_THREAD; ++i) {
            if (lo + i < m) v[lo + i] = run;
            run += x[i];
        }
        carry += s_w[31];
        __syncthreads();
    }
    if (tid == 0) v[m] = carry;
    if (trivial) {
        __syncthreads();
        if (tid < 256 && carry > 0 && v[(tid + 1) * stride] - v[tid * stride] == carry) *trivial = 1u;
    }
}
