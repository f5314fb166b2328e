#!/usr/bin/env bash
# Session 39's device call: the GPU suite, every program on CUDA against the CPU,
# partition/argpartition and in-place `+=` on CUDA, then the whole bench/run.py.
export ARR_CACHE_DIR=/tmp/arr-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
./target/device/gpu-tests --ignored --test-threads=1 > $OUT/gpu.log 2>&1; grep -E "passed|failed" $OUT/gpu.log | tail -4
./target/device/gpu-programs --ignored --nocapture > $OUT/programs.log 2>&1; grep -E "programs on cuda|passed|failed" $OUT/programs.log | tail -4
cat > /tmp/p.arr <<'ARR'
let x = sin(arange(100000) * 0.37)
let p = partition(x, [5, 500, -3])
let i = argpartition(x, 7)
let s = sort(x)
print(p[5] == s[5], p[500] == s[500], p[99997] == s[99997], max(p[:5]) <= s[5], x[i[7]] == s[7])
let g = zeros([4, 4])
let c = g[1:-1, 1:-1]
c += 1.0
print(sum(g), sum(x ** 0.5 == sqrt(x)))
ARR
./target/device/arr --backend cuda run /tmp/p.arr 2>&1 | tee $OUT/cuda_checks.log; ./target/device/arr --backend cpu run /tmp/p.arr 2>&1 | tee -a $OUT/cuda_checks.log
ARR_COMMIT=$(cat target/device/COMMIT) python3 bench/run.py --arr target/device/arr --out $OUT/bench > $OUT/bench.log 2>&1; tail -70 $OUT/bench.log
