#!/usr/bin/env python3
"""Each bench program in a fresh process with empty caches (Arr's and the driver's):
NVRTC seconds and modules from --profile-json, the first run's wall time, then the
warm time (`--time`, disk cache warm) twice, under the environment given by --env
(KEY=VALUE ...). Dumps every module's source under --dump/<program>.
Usage: cold_programs.py --arr ARR [--env K=V ...] [--dump DIR] [--label L]"""
import argparse, json, os, re, subprocess, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--arr", required=True)
ap.add_argument("--env", nargs="*", default=[])
ap.add_argument("--dump")
ap.add_argument("--label", default="")
ap.add_argument("--programs", default="heat,shallow_water,nbody,leibniz_pi,monte_carlo_pi,black_scholes,lu,lbm")
a = ap.parse_args()
extra = dict(kv.split("=", 1) for kv in a.env)
rows = []
for p in a.programs.split(","):
    src = os.path.join("bench/programs", p + ".arr")
    env = {**os.environ, **extra, "ARR_CACHE_DIR": tempfile.mkdtemp(), "CUDA_CACHE_PATH": tempfile.mkdtemp()}
    if a.dump:
        env["ARR_DUMP_DIR"] = os.path.join(a.dump, p)
    prof = tempfile.mktemp(suffix=".json")
    t0 = time.perf_counter()
    r = subprocess.run([a.arr, "--backend", "cuda", "run", "--profile-json", prof, src], capture_output=True, text=True, env=env)
    first = (time.perf_counter() - t0) * 1e3
    summ = {}
    if os.path.exists(prof):
        for l in open(prof):
            d = json.loads(l)
            if d.get("kind") == "summary":
                summ = d
    env.pop("ARR_DUMP_DIR", None)
    warm = []
    for _ in range(2):
        w = subprocess.run([a.arr, "--backend", "cuda", "run", "--time", src], capture_output=True, text=True, env=env)
        m = re.search(r"^time: ([\d.]+) ms$", w.stderr, re.M)
        warm.append(float(m.group(1)) if m else None)
    row = dict(label=a.label, program=p, rc=r.returncode, first_ms=round(first), nvrtc_s=summ.get("compile_s"),
               modules=summ.get("compiles"), warm_ms=warm, out=r.stdout.strip()[-80:], err=r.stderr.strip()[-300:] if r.returncode else "")
    rows.append(row)
    print(json.dumps(row), flush=True)
print(f"| {a.label} | " + " | ".join(f"{r['program']} {r['nvrtc_s'] and round(r['nvrtc_s'], 2)} s ({r['modules']}), warm {r['warm_ms']}" for r in rows))
