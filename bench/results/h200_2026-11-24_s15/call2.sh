# Session 15, call 2: per-statement latency on CUDA, this commit (arr) against
# the one before the session (arr_base, 911e78a: the session-13 binary; the commits between touched only GPU row kernels), interleaved: a loop of
# `x = x + 1.0` on 1000 f32 (bench/run.py's latency row) and LU of 1000.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 - <<'PY' 2>&1 | tee $OUT/ab.log
import subprocess, statistics, tempfile, os
loop = "let x = ones([1000])\nfor t in 0..20000 {\n    x = x + 1.0\n}\nprint(sum(x))\n"
path = tempfile.mktemp(suffix=".arr"); open(path, "w").write(loop)
def t(binary, script):
    out = subprocess.run([binary, "--backend", "cuda", "run", "--time", script], capture_output=True, text=True, check=True)
    line = [l for l in (out.stdout + out.stderr).splitlines() if l.startswith("time:")][-1]
    return float(line.split()[1])
for name, script, per in [("x = x + 1.0, us per statement", path, 20000), ("LU of 1000, ms", "bench/programs/lu.arr", 1)]:
    res = {"base": [], "new": []}
    for b in ["base", "new"]:
        t("target/device/arr" if b == "new" else "target/device/arr_base", script)
    for i in range(5):
        for b in ["base", "new"]:
            res[b].append(t("target/device/arr" if b == "new" else "target/device/arr_base", script) * (1e3 / per if per > 1 else 1))
    print(name, {k: (round(min(v), 2), round(statistics.median(v), 2)) for k, v in res.items()})
PY
