# Session 11, call 8 (the landing check): GPU tests touching compilation, the 23 programs,
# the worker test; cold programs with workers (default) and in-process; the worker's memory;
# then bench/run.py's program table (cold and warm, NVRTC, peers) and latency rows.
D=bench/results/h100_2026-11-23_s11
ARR=target/device/arr
export PYTHONUNBUFFERED=1 ARR_CACHE_DIR=/tmp/arr-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
./target/device/gpu-programs --ignored --nocapture > $OUT/programs.log 2>&1; grep -E "programs on cuda|test result|FAIL|panicked" $OUT/programs.log | head
tar xzf $D/dumps.tgz -C /tmp
python3 $D/worker_drive.py $ARR /tmp/dumps/* 2>&1 | tee $OUT/worker.log
{
python3 $D/cold_programs.py --arr $ARR --label workers
python3 $D/cold_programs.py --arr $ARR --env ARR_COMPILE_WORKERS=0 --label in-process
} 2>&1 | tee $OUT/cold.log | grep "^|"
ARR_COMMIT=$(cat target/device/COMMIT) timeout 420 python3 bench/run.py --arr $ARR --only copy,fused_chain,sum_axis1,softmax_rows --out $OUT/bench 2>&1 | tail -32
