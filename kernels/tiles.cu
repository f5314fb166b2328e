// Arr tiled transposition (src/backend/cuda/codegen_tiles.rs fills the holes):
// a block takes 32 x 32 tiles of the [@N0@, @N1@] iteration space in turn.
// @STAGE@ reads each operand that is contiguous down the columns (a
// transpose) into a shared tile, a warp along its contiguous axis; after the
// barrier @UNIT@ computes element (r, c) with a warp along the rows, taking
// those operands from the tile, so both the reads and the writes coalesce.

//@@ tiles
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
@SHARED@
    const IDX n0 = (IDX)@N0@, n1 = (IDX)@N1@;
    const IDX tiles1 = (n1 + 31) / 32;
    const IDX tiles = ((n0 + 31) / 32) * tiles1;
    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    for (IDX t = blockIdx.x; t < tiles; t += gridDim.x) {
        const IDX r0 = (t / tiles1) * 32, c0 = (t % tiles1) * 32;
        for (int k = ty; k < 32; k += 8) {
            const IDX r = r0 + tx, c = c0 + k;
            if (r < n0 && c < n1) {
@STAGE@
            }
        }
        __syncthreads();
        for (int k = ty; k < 32; k += 8) {
            const IDX r = r0 + k, c = c0 + tx;
            if (r < n0 && c < n1) {
@UNIT@
            }
        }
        __syncthreads();
    }
}
