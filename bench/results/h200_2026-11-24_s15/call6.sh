# Session 15, call 6: after the review commit 7aceb77 (the plan cache's id mapping
# rewritten on top of rebind_in_place): every program on CUDA against the CPU, and
# the GPU tests that exercise the plan cache.
export ARR_CACHE_DIR=/tmp/arr-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cat target/device/COMMIT
./target/device/gpu-programs --ignored --nocapture > $OUT/programs.log 2>&1; grep -E "programs on cuda|test result" $OUT/programs.log
./target/device/gpu-tests --ignored --test-threads=1 plan > $OUT/gpu.log 2>&1; grep -E "^test |test result" $OUT/gpu.log
