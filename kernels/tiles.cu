// Arr tiled transposition (src/backend/cuda/codegen_tiles.rs fills the holes).
// The iteration space is @BATCH@ batches of [@N0@, @N1@]: rows along the tile
// axis (along which the transposed operands are contiguous), columns along the
// output's contiguous axis. A block takes 32 x 32 tiles in turn; @BASES@ finds
// the batch's base offsets. Operands contiguous down the rows go through
// shared tiles read a warp along the rows; the output and the other operands
// go a warp along the columns, so that every read and write coalesces.

//
// tiles: @STAGE@ reads the transposed operands into their tiles; after the
// barrier @UNIT@ computes element (r, c), taking those operands from the tiles.
//
// paired: square [@N0@, @N0@] batches where a buffer is read both directly and
// transposed: a block takes the output tiles (I, J) and (J, I), I <= J,
// together. @PAIRS_A@ and @PAIRS_B@ read the buffer's source tiles (I, J)
// into pa* and (J, I) into pb*, a warp along the rows, once each; @BOTH@ then
// writes the two output tiles from them (and stages any unpaired transposed
// operand per output tile), @DIAG@ the one tile of a diagonal pair.

//@@ tiles
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
@SHARED@
    const IDX n0 = (IDX)@N0@, n1 = (IDX)@N1@;
    const IDX tiles1 = (n1 + 31) / 32;
    const IDX per = ((n0 + 31) / 32) * tiles1;
    const IDX tiles = per * (IDX)@BATCH@;
    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    for (IDX t = blockIdx.x; t < tiles; t += gridDim.x) {
        const IDX bt = t / per, tt = t - bt * per;
@BASES@
        const IDX r0 = (tt / tiles1) * 32, c0 = (tt % tiles1) * 32;
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

//@@ paired
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
@SHARED@
    const IDX n0 = (IDX)@N0@;
    const IDX tn = (n0 + 31) / 32;
    const IDX per = tn * tn;
    const IDX tiles = per * (IDX)@BATCH@;
    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
    for (IDX t = blockIdx.x; t < tiles; t += gridDim.x) {
        const IDX bt = t / per, tt = t - bt * per;
        const IDX ti = tt / tn, tj = tt - ti * tn;
        if (ti > tj) continue;
@BASES@
        const IDX r0 = ti * 32, c0 = tj * 32;
        for (int k = ty; k < 32; k += 8) {
            if (r0 + k < n0 && c0 + tx < n0) {
                const IDX r = r0 + k, c = c0 + tx;
@PAIRS_A@
            }
            if (ti != tj && c0 + k < n0 && r0 + tx < n0) {
                const IDX r = c0 + k, c = r0 + tx;
@PAIRS_B@
            }
        }
        if (ti != tj) {
@BOTH@
        } else {
@DIAG@
        }
        __syncthreads();
    }
}
