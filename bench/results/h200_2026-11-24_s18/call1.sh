# Session 18, call 1 (commit in target/device/COMMIT): the planner changes of
# session 16 (a costly broadcast stays stored, also in share_within_kernels)
# and 18 (read_needs_store) on the GPU: the GPU suite, every program on CUDA
# against the CPU, LU's time, then the programs against the peers.
export ARR_CACHE_DIR=/tmp/arr-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cat target/device/COMMIT
./target/device/gpu-tests --ignored --test-threads=1 > $OUT/gpu.log 2>&1; grep -E "test result|FAILED|panicked" $OUT/gpu.log | head -20
./target/device/gpu-programs --ignored --nocapture > $OUT/programs.log 2>&1; grep -E "programs on cuda|test result|differ|FAIL" $OUT/programs.log | head -20
for i in 1 2 3; do ./target/device/arr --backend cuda run --time bench/programs/lu.arr 2>&1 | tail -1; done
ARR_COMMIT=$(cat target/device/COMMIT) timeout 420 python3 bench/run.py --arr target/device/arr --out $OUT/bench > $OUT/bench.log 2>&1; echo "bench rc=$?"; tail -60 $OUT/bench.log
