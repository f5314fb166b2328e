# Session 16, call 3: the planner stores a costly expression read through a
# broadcast (random numbers, real functions), on every device; the GPU suite
# and every program on CUDA against the CPU, LU's host buckets, then the
# programs against the peers (n-body's first step changes plan).
export ARR_CACHE_DIR=/tmp/arr-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cat target/device/COMMIT
./target/device/gpu-tests --ignored --test-threads=1 > $OUT/gpu.log 2>&1; grep -E "test result|FAILED|panicked" $OUT/gpu.log | head -20
./target/device/gpu-programs --ignored --nocapture > $OUT/programs.log 2>&1; grep -E "programs on cuda|test result|differ|FAIL" $OUT/programs.log | head -20
for i in 1 2 3; do ./target/device/arr --backend cuda run --time bench/programs/lu.arr 2>&1 | tail -1; done
./target/device/arr --backend cuda run --profile bench/programs/lu.arr > $OUT/lu_profile.txt 2>&1; grep -iE "host|realiz|generat|plann" $OUT/lu_profile.txt | head -12
ARR_COMMIT=$(cat target/device/COMMIT) timeout 400 python3 bench/run.py --arr target/device/arr --only copy,fused_chain --programs nbody,lu,shallow_water,black_scholes --out $OUT/bench > $OUT/bench.log 2>&1; echo "bench rc=$?"; tail -32 $OUT/bench.log
