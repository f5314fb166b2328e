// Arr multi-output whole-array reductions (src/backend/cuda/codegen_multi.rs
// fills the holes): @STEP@ loads each operand once per element and folds
// every output's value into its accumulator a<k>; each block leaves one
// partial per output in part<k>; arr_finish, on one block, combines each
// output's partials in a fixed order and stores it through its epilogue.

//@@ all_multi
extern "C" __global__ void __launch_bounds__(256) arr_main(@PARAMS@) {
@SHARED@
@PART_PTRS@
    const IDX len = (IDX)@LEN@;
    const IDX units = len / @V@;
    const IDX stride = (IDX)gridDim.x * blockDim.x;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
@BASES@
@INIT@
    for (IDX u = (IDX)blockIdx.x * blockDim.x + threadIdx.x; u < units; u += stride) {
        const IDX j = u * @V@;
@STEP@
    }
    for (IDX j = units * @V@ + (IDX)blockIdx.x * blockDim.x + threadIdx.x; j < len; j += stride) {
@SCALAR_STEP@
    }
@PARTIALS@
}

extern "C" __global__ void __launch_bounds__(256) arr_finish(@PARAMS@) {
    // the launcher may give this entry the main grid: one block finishes
    if (blockIdx.x != 0 || blockIdx.y != 0) return;
@SHARED@
@PART_PTRS@
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
@FINISH@
}
