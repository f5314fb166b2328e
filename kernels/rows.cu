// Arr row-resident kernels (src/backend/cuda/codegen_rows.rs fills the holes):
// @LANES@ threads per row (a warp, several rows to a @BLOCK@-thread block; or
// the whole block), rows taken block-uniformly so every shuffle and barrier
// sees all its threads. @SETUP@ reads the row's constants and, when the row is
// held, its elements into registers; @STAGES@ reduces the row once per stage
// (each result in every lane as red<k>); @WRITE@ stores the result.

//@@ rows
extern "C" __global__ void __launch_bounds__(@BLOCK@) arr_main(@PARAMS@) {
@SHARED@
    const IDX rows = (IDX)@ROWS@, len = (IDX)@LEN@;
    const int lane = threadIdx.x % @LANES@;
    const IDX per_block = @BLOCK@ / @LANES@;
    for (IDX base = (IDX)blockIdx.x * per_block; base < rows; base += (IDX)gridDim.x * per_block) {
        const IDX row = base + threadIdx.x / @LANES@;
        const bool active = row < rows;
@SETUP@
@STAGES@
@WRITE@
    }
}
