# Session 14, call 1: row-resident kernels with extra per-row outputs (GPU only).
# Every program on CUDA against the CPU (tests/cases/row_outputs.arr among them),
# the row workloads and n-body against the peers, and an A/B of the binary before
# the change (arr_base, 911e78a) against this one on n-body and mean_var_rows.
export ARR_CACHE_DIR=/tmp/arr-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cat target/device/COMMIT
./target/device/gpu-programs --ignored --nocapture > $OUT/programs.log 2>&1; grep -E "programs on cuda|test result|differ|FAIL" $OUT/programs.log | head -20
ARR_COMMIT=$(cat target/device/COMMIT) timeout 300 python3 bench/run.py --arr target/device/arr --only copy,var_rows,mean_var_rows,softmax_rows,layer_norm_rows --programs nbody,black_scholes --out $OUT/bench > $OUT/bench.log 2>&1; echo "bench rc=$?"; tail -30 $OUT/bench.log
# A/B: whole n-body program (n = 4096, 10 steps), --time after start-up, interleaved
python3 - <<'PY' > $OUT/ab.log 2>&1
import subprocess, json, os, statistics, tempfile
def t(binary, script, profile=False):
    if profile:
        p = tempfile.mktemp(suffix=".jsonl")
        subprocess.run([binary, "--backend", "cuda", "run", "--profile-json", p, script], capture_output=True, check=True)
        ls = [json.loads(l) for l in open(p)]
        return sum(l["median_ms"] for l in ls if l.get("runs", 0) > 1)
    out = subprocess.run([binary, "--backend", "cuda", "run", "--time", script], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1].split()[1])
for script, prof in [("bench/programs/nbody.arr", False), ("bench/programs/nbody.arr", True), ("bench/workloads/mean_var_rows.arr", True), ("bench/workloads/var_rows.arr", True)]:
    res = {"base": [], "new": []}
    for b in ["base", "new"]:
        t("target/device/arr" if b == "new" else "target/device/arr_base", script, prof)
    for i in range(5):
        for b in ["base", "new"]:
            res[b].append(t("target/device/arr" if b == "new" else "target/device/arr_base", script, prof))
    print(script, "profiled kernels ms" if prof else "wall ms", {k: (round(min(v), 3), round(statistics.median(v), 3)) for k, v in res.items()})
PY
cat $OUT/ab.log
