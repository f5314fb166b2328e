# Session 41, device call 2 (H200): programs on CUDA against the CPU (the pool's
# arena, `out=`), then bench/run.py's whole programs with Arr's warm runs timed
# in-process as the peers' are, and a few workload rows. Logs under $OUT.
export ARR_CACHE_DIR=/tmp/arr-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "commit $(cat target/device/COMMIT)"
./target/device/gpu-programs --ignored --nocapture > $OUT/programs.log 2>&1; grep -E "programs on cuda|test result" $OUT/programs.log | tail -3
for f in bench/programs/monte_carlo_pi.arr bench/programs/black_scholes.arr; do
  ./target/device/arr --backend cuda run $f > /dev/null 2>&1
  ./target/device/arr --backend cuda run --profile $f 2>&1 | grep -E "host:|allocations|total"
done
ARR_COMMIT=$(cat target/device/COMMIT) timeout 420 python3 bench/run.py --arr target/device/arr --only copy,transpose_add,softmax,layer_norm --out $OUT/bench > $OUT/run.log 2>&1; tail -30 $OUT/run.log
