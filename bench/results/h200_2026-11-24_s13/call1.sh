# Session 13, call 1: after the CPU executor's changes (vectorised generator fills,
# 32-lane reductions) that the GPU suite uses as its oracle: the GPU suite and every
# program on CUDA against the CPU.
export ARR_CACHE_DIR=/tmp/arr-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cat target/device/COMMIT
./target/device/gpu-programs --ignored --nocapture > $OUT/programs.log 2>&1; grep -E "programs on cuda|test result" $OUT/programs.log
timeout 480 ./target/device/gpu-tests --ignored --test-threads=1 > $OUT/gpu.log 2>&1; echo "gpu-tests rc=$?"; grep -E "test result|FAILED|panicked" $OUT/gpu.log | head -20
