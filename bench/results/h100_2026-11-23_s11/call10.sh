# Session 11, call 10: after the review's simplification of the worker pool (one lock):
# the GPU programs and the worker test, and cold NVRTC with and without workers.
D=bench/results/h100_2026-11-23_s11
ARR=target/device/arr
export PYTHONUNBUFFERED=1 ARR_CACHE_DIR=/tmp/arr-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
./target/device/gpu-programs --ignored --nocapture > $OUT/programs.log 2>&1; grep -E "programs on cuda|test result|FAIL|panicked|^test " $OUT/programs.log | head
{
python3 $D/cold_programs.py --arr $ARR --label workers
python3 $D/cold_programs.py --arr $ARR --env ARR_COMPILE_WORKERS=0 --label in-process
} 2>&1 | tee $OUT/cold.log | grep "^|"
