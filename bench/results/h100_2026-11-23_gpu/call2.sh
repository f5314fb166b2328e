#!/usr/bin/env bash
# gpu branch, device call 2: every bench/programs program, cold and warm, before (8864346) and after, one run
G=target/gpu-dev
cd "$(dirname "$0")/../.."
for f in $G/*.xz; do xz -dkf "$f"; done
chmod +x $G/arr $G/arr-before
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv,noheader
S=$(date +%s)
PYTHONUNBUFFERED=1 timeout 200 python3 $G/progs_probe.py $G/bench /tmp/dump before=$G/arr-before after=$G/arr $EXTRA > $OUT/progs.log 2>&1; echo "progs rc $? at $(( $(date +%s) - S )) s"
sed -n '/^| program/,$p' $OUT/progs.log; grep -c '"program"' $OUT/progs.log; grep FAILED $OUT/progs.log | head
