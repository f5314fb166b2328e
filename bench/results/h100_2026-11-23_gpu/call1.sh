#!/usr/bin/env bash
# gpu branch, device call 1: tiles correctness + timing, NVRTC breakdown, programs per NVRTC options
G=target/gpu-dev
cd "$(dirname "$0")/../.."
for f in $G/*.xz; do xz -dkf "$f"; done
chmod +x $G/arr $G/arr-before $G/gpu-tests
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv,noheader
export ARR_CACHE_DIR=/tmp/arr-cache
S=$(date +%s)
timeout 50 $G/gpu-tests --ignored --test-threads=1 tiles transposed > $OUT/gpu.log 2>&1; echo "gpu-tests rc $? at $(( $(date +%s) - S )) s"
grep -E "passed|failed|FAIL|panicked" $OUT/gpu.log | head -20
PYTHONUNBUFFERED=1 timeout 95 python3 $G/bench/run.py --arr $G/arr --only copy,transpose_add,transpose_add_other,permute_add_rank3 --programs "" --out $OUT/bench > $OUT/bench.log 2>&1; echo "bench rc $? at $(( $(date +%s) - S )) s"
PYTHONUNBUFFERED=1 timeout 95 python3 $G/progs_probe.py $G/bench /tmp/dump new=$G/arr before=$G/arr-before "ofc-max=$G/arr:-minimal --Ofast-compile=max" > $OUT/progs.log 2>&1; echo "progs rc $? at $(( $(date +%s) - S )) s"
PYTHONUNBUFFERED=1 timeout 35 python3 $G/nvrtc_probe.py /tmp/dump/new/* > $OUT/nvrtc.log 2>&1; echo "nvrtc rc $? at $(( $(date +%s) - S )) s"
tail -22 $OUT/nvrtc.log
sed -n '/^| program/,$p' $OUT/progs.log; grep -c '"program"' $OUT/progs.log
grep -B2 -A8 "^| workload" $OUT/bench.log | head -14
