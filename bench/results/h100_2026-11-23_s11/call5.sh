# Session 11, call 5: compile workers (child processes) against NVRTC in the arr process.
D=bench/results/h100_2026-11-23_s11
ARR=target/device/arr
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader
{
python3 $D/cold_programs.py --arr $ARR --label workers-default
python3 $D/cold_programs.py --arr $ARR --env ARR_COMPILE_WORKERS=0 --label in-process
python3 $D/cold_programs.py --arr $ARR --env ARR_COMPILE_WORKERS=1 --label workers-1
python3 $D/cold_programs.py --arr $ARR --env ARR_COMPILE_WORKERS=8 --label workers-8
} 2>&1 | tee $OUT/cold.log | grep "^|"
grep -h '"rc": [^0]' $OUT/cold.log | head -3
e=/tmp/e.arr; printf 'print(1)\n' > $e
for i in 1 2 3; do s=$(date +%s%N); $ARR --backend cuda run $e >/dev/null; echo "empty script: $((($(date +%s%N)-s)/1000000)) ms"; done
printf 'let x = ones([1000])\nprint(sum(x))\n' > /tmp/k.arr
for i in 1 2 3; do s=$(date +%s%N); ARR_CACHE_DIR=/tmp/kc $ARR --backend cuda run /tmp/k.arr >/dev/null; echo "one-kernel script (warm cache): $((($(date +%s%N)-s)/1000000)) ms"; done
