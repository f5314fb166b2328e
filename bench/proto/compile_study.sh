#!/usr/bin/env bash
# Where a cold program's NVRTC seconds go on the device: the first run of a
# program with an empty cache under several compile-worker counts (the
# profile's NVRTC line and the wall time), then each of its modules compiled
# alone in a fresh process (bench/nvrtc_cold.py) for the per-module cost.
# Usage: bench/proto/compile_study.sh ARR PROGRAM OUTDIR
set -u
ARR=$1; PROG=$2; OUT=$3
mkdir -p "$OUT"
for w in 1 2 4 8 12; do
    rm -rf /tmp/cs-cache
    /usr/bin/time -f "wall %e s" env ARR_CACHE_DIR=/tmp/cs-cache ARR_COMPILE_WORKERS=$w "$ARR" run --profile "$PROG" > "$OUT/w$w.log" 2>&1
    echo "workers $w: $(grep -E 'NVRTC' "$OUT/w$w.log" | head -1) | $(grep wall "$OUT/w$w.log")"
done
rm -rf /tmp/cs-cache /tmp/cs-dump
ARR_CACHE_DIR=/tmp/cs-cache ARR_DUMP_DIR=/tmp/cs-dump "$ARR" run "$PROG" > /dev/null 2>&1
python3 bench/nvrtc_cold.py /tmp/cs-dump 2>&1 | tail -24
for f in $(ls -tr /tmp/cs-dump/*.cu); do echo "$(head -1 $f | cut -c1-90) $(wc -c < $f)"; done
