// Arr: boolean-mask compaction on the device (src/backend/cuda/sort.rs drives
// it): `x[mask]` and the positions of `nonzero`. Each block owns a run of
// tiles; `arr_main` counts the true mask bytes of each block, `offsets_scan`
// (kernels/scan.cu, which comes first) turns the counts into offsets and their sum, and
// `compress_scatter` writes each tile's selected elements (or their indices)
// from its block's offset on, in order. Masks are bool bytes, 0 or 1.
// @E@: an unsigned type of the element's size, or long long for indices.

typedef @E@ E;

#define THREADS 256
#define PER 16 // mask bytes a thread takes per tile
constexpr int TILE = THREADS * PER;

__device__ __forceinline__ unsigned int block_sum(unsigned int v, unsigned int* s_w) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) s_w[threadIdx.x >> 5] = v;
    __syncthreads();
    unsigned int t = 0;
    for (int w = 0; w < THREADS / 32; ++w) t += s_w[w];
    return t;
}

// The thread's PER mask bytes from `g` on (fewer at the end), as 0/1 values.
__device__ __forceinline__ void load_mask(const unsigned char* __restrict__ mask, long long g, long long hi,
                                          bool aligned, unsigned char m[PER]) {
    if (aligned && g + PER <= hi) {
        const uint4 v = *(const uint4*)(mask + g);
        const unsigned int w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int i = 0; i < PER; ++i) m[i] = (w[i / 4] >> (8 * (i % 4))) & 0xff;
    } else {
#pragma unroll
        for (int i = 0; i < PER; ++i) m[i] = g + i < hi ? mask[g + i] : 0;
    }
}

extern "C" __global__ void __launch_bounds__(THREADS) arr_main(const unsigned char* __restrict__ mask, long long n,
                                                               long long tiles_per_block,
                                                               unsigned int* __restrict__ counts) {
    __shared__ unsigned int s_w[THREADS / 32];
    const long long lo = (long long)blockIdx.x * tiles_per_block * TILE;
    const long long hi = min(n, lo + tiles_per_block * TILE);
    const bool aligned = ((unsigned long long)mask & 15) == 0;
    unsigned int c = 0;
    for (long long g = lo + threadIdx.x * PER; g < hi; g += TILE) {
        unsigned char m[PER];
        load_mask(mask, g, hi, aligned, m);
#pragma unroll
        for (int i = 0; i < PER; ++i) c += m[i];
    }
    c = block_sum(c, s_w);
    if (threadIdx.x == 0) counts[blockIdx.x] = c;
}

extern "C" __global__ void __launch_bounds__(THREADS)
    compress_scatter(const E* __restrict__ values, const unsigned char* __restrict__ mask, long long n,
                     long long tiles_per_block, const unsigned int* __restrict__ offsets, E* __restrict__ out,
                     long long indices) {
    __shared__ unsigned int s_w[THREADS / 32];
    __shared__ E s_out[TILE];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long lo = (long long)blockIdx.x * tiles_per_block * TILE;
    const long long hi = min(n, lo + tiles_per_block * TILE);
    const bool aligned = ((unsigned long long)mask & 15) == 0;
    const bool values_aligned = ((unsigned long long)values & 15) == 0 && (PER * sizeof(E)) % 16 == 0;
    unsigned long long run = offsets[blockIdx.x];
    for (long long b = lo; b < hi; b += TILE) {
        const long long g = b + threadIdx.x * PER;
        unsigned char m[PER];
        load_mask(mask, g, hi, aligned, m);
        unsigned int c = 0;
#pragma unroll
        for (int i = 0; i < PER; ++i) c += m[i];
        const unsigned int incl = warp_inclusive_sum(c);
        __syncthreads();
        if (lane == 31) s_w[warp] = incl;
        __syncthreads();
        unsigned int before = incl - c, tile_total = 0;
        for (int w = 0; w < THREADS / 32; ++w) {
            if (w < warp) before += s_w[w];
            tile_total += s_w[w];
        }
        // staged in shared memory, so that the tile's selection is written in order, coalesced
        unsigned int k = before;
        if (indices) {
#pragma unroll
            for (int i = 0; i < PER; ++i)
                if (m[i]) s_out[k++] = (E)(g + i);
        } else if (c && values_aligned && g + PER <= hi) {
            union {
                uint4 q[(PER * sizeof(E) + 15) / 16];
                E e[PER];
            } v;
#pragma unroll
            for (int q = 0; q < (int)((PER * sizeof(E) + 15) / 16); ++q) v.q[q] = ((const uint4*)(values + g))[q];
#pragma unroll
            for (int i = 0; i < PER; ++i)
                if (m[i]) s_out[k++] = v.e[i];
        } else if (c) {
#pragma unroll
            for (int i = 0; i < PER; ++i)
                if (m[i]) s_out[k++] = values[g + i];
        }
        __syncthreads();
        for (unsigned int j = threadIdx.x; j < tile_total; j += THREADS) out[run + j] = s_out[j];
        run += tile_total;
    }
}
