// Arr: one block's exclusive scan of per-block counts, shared by the device
// sort (kernels/sort.cu) and mask compaction (kernels/compress.cu), which
// src/backend/cuda/sort.rs appends it to.

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
        unsigned int incl = sum;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            const unsigned int y = __shfl_up_sync(0xffffffffu, incl, o);
            if (lane >= o) incl += y;
        }
        if (lane == 31) s_w[warp] = incl;
        __syncthreads();
        if (warp == 0) {
            unsigned int t = s_w[lane];
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const unsigned int y = __shfl_up_sync(0xffffffffu, t, o);
                if (lane >= o) t += y;
            }
            s_w[lane] = t;
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
