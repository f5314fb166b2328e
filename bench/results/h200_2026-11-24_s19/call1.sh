# Session 19, call 1 (commit in target/device/COMMIT): the row-resident
# merge now computes identical steps once (n-body's differences, read by the
# three sums, were computed again in each) and the CPU row-resident changes:
# the GPU suite, every program on CUDA against the CPU, then the row
# normalisations and the programs that hold row-resident kernels, against
# the peers.
export ARR_CACHE_DIR=/tmp/arr-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cat target/device/COMMIT
./target/device/gpu-tests --ignored --test-threads=1 > $OUT/gpu.log 2>&1; grep -E "test result|FAILED|panicked" $OUT/gpu.log | head -20
./target/device/gpu-programs --ignored --nocapture > $OUT/programs.log 2>&1; grep -E "programs on cuda|test result|differ|FAIL" $OUT/programs.log | head -20
ARR_COMMIT=$(cat target/device/COMMIT) timeout 360 python3 bench/run.py --arr target/device/arr --only softmax_rows,log_softmax_rows,layer_norm_rows,var_rows,nbody_stream --programs nbody,heat,shallow_water,lbm --out $OUT/bench > $OUT/bench.log 2>&1; echo "bench rc=$?"; tail -40 $OUT/bench.log
