# Session 40, device call A (H200): programs on CUDA against the CPU, per-statement
# latency of the session-start binary against this one, sort/compaction, and bench/run.py
# for bmm, copy, the transposed adds and the short programs. Logs under $OUT.
export ARR_CACHE_DIR=/tmp/arr-cache
D=bench/results/h200_2026-12-02_s40
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "commit $(cat target/device/COMMIT)"
./target/device/gpu-programs --ignored --nocapture > $OUT/programs.log 2>&1; grep -E "programs on cuda|test result" $OUT/programs.log | tail -3
python3 $D/latency_ab.py target/device/arr-base target/device/arr > $OUT/latency_ab.log 2>&1; cat $OUT/latency_ab.log
timeout 200 python3 bench/sort_kernels.py --log 28 --arr target/device/arr > $OUT/sort_kernels.log 2>&1; tail -14 $OUT/sort_kernels.log
ARR_COMMIT=$(cat target/device/COMMIT) timeout 250 python3 bench/run.py --arr target/device/arr --only copy,bmm,transpose_add,transpose_add_other,permute_add_rank3 --programs black_scholes,monte_carlo_pi,lu --out $OUT/bench > $OUT/run.log 2>&1; tail -32 $OUT/run.log
