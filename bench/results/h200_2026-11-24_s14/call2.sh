# Session 14, call 2: the A/B of call 1 again (its `--time` parse read stdout;
# the figure is on stderr), then the GPU suite.
export ARR_CACHE_DIR=/tmp/arr-cache
python3 - <<'PY' > $OUT/ab.log 2>&1
import subprocess, json, statistics, tempfile
def t(binary, script, profile=False):
    if profile:
        p = tempfile.mktemp(suffix=".jsonl")
        subprocess.run([binary, "--backend", "cuda", "run", "--profile-json", p, script], capture_output=True, check=True)
        ls = [json.loads(l) for l in open(p)]
        return sum(l["median_ms"] for l in ls if l.get("runs", 0) > 1)
    out = subprocess.run([binary, "--backend", "cuda", "run", "--time", script], capture_output=True, text=True, check=True)
    line = [l for l in out.stderr.splitlines() if l.startswith("time:")][-1]
    return float(line.split()[1])
for script, prof in [("bench/programs/nbody.arr", False), ("bench/programs/nbody.arr", True), ("bench/workloads/mean_var_rows.arr", True), ("bench/workloads/var_rows.arr", True)]:
    res = {"base": [], "new": []}
    for b in ["base", "new"]:
        t("target/device/arr" if b == "new" else "target/device/arr_base", script, prof)
    for i in range(5):
        for b in ["base", "new"]:
            res[b].append(t("target/device/arr" if b == "new" else "target/device/arr_base", script, prof))
    print(script, "profiled kernels ms" if prof else "wall ms", {k: (round(min(v), 3), round(statistics.median(v), 3)) for k, v in res.items()}, flush=True)
PY
cat $OUT/ab.log
timeout 420 ./target/device/gpu-tests --ignored --test-threads=1 > $OUT/gpu.log 2>&1; echo "gpu-tests rc=$?"; grep -E "test result|FAILED|panicked" $OUT/gpu.log | head -20
