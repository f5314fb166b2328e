# Session 15, call 1: the planner's recompute rule changed (a pairwise table
# over a value the plan stores is recomputed) and the host path of a statement
# got cheaper (plan cache, literal casts). The GPU suite and every program on
# CUDA against the CPU, then the programs and the latency rows against the peers.
export ARR_CACHE_DIR=/tmp/arr-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cat target/device/COMMIT
./target/device/gpu-tests --ignored --test-threads=1 > $OUT/gpu.log 2>&1; grep -E "test result|FAILED|panicked" $OUT/gpu.log | head -20
./target/device/gpu-programs --ignored --nocapture > $OUT/programs.log 2>&1; grep -E "programs on cuda|test result|differ|FAIL" $OUT/programs.log | head -20
ARR_COMMIT=$(cat target/device/COMMIT) timeout 400 python3 bench/run.py --arr target/device/arr --only copy,fused_chain --programs nbody,lu,shallow_water,black_scholes --out $OUT/bench > $OUT/bench.log 2>&1; echo "bench rc=$?"; tail -32 $OUT/bench.log
