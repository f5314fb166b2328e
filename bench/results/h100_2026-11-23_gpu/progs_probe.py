#!/usr/bin/env python3
"""Cold and warm times of every bench/programs program, per (binary, NVRTC options)
variant, in one process tree: cold = a fresh process with empty caches (Arr's and the
driver's), unprofiled wall time; NVRTC s and module count from a second, profiled cold
run; warm = median of `arr run --time` with the cache filled.
Usage: progs_probe.py BENCH_DIR DUMP_ROOT name=binary[:opts] ..."""
import json, os, subprocess, sys, tempfile, time, statistics
bench = sys.argv[1]
sys.path.insert(0, bench)
import common  # noqa: E402
dump_root = sys.argv[2]
variants = []
for v in sys.argv[3:]:
    name, rest = v.split("=", 1)
    binary, _, opts = rest.partition(":")
    variants.append((name, os.path.abspath(binary), opts))
programs = ["heat", "shallow_water", "nbody", "leibniz_pi", "monte_carlo_pi", "black_scholes", "lu", "lbm"]
rows = []
for prog in programs:
    text = common.prepare(open(os.path.join(bench, "programs", prog + ".arr")).read(), 1)
    for name, binary, opts in variants:
        env = {"ARR_NVRTC_OPTS": opts} if opts else {}
        fresh = lambda: {"ARR_CACHE_DIR": tempfile.mkdtemp(), "CUDA_CACHE_PATH": tempfile.mkdtemp()}
        wd = tempfile.mkdtemp()
        path = os.path.join(wd, "script.arr")
        open(path, "w").write(text)
        t0 = time.perf_counter()
        p = subprocess.run([binary, "--backend", "cuda", "run", path], capture_output=True, text=True,
                           env={**os.environ, **env, **fresh()}, timeout=300)
        cold = (time.perf_counter() - t0) * 1e3
        if p.returncode != 0:
            print(prog, name, "FAILED", p.stderr[-400:]); continue
        res = p.stdout.strip()
        cache = fresh()
        denv = {**env, **cache}
        if name == variants[0][0] or name == "new":
            denv["ARR_DUMP_DIR"] = os.path.join(dump_root, name, prog)
        _, lines, _, _, _ = common.run_arr(binary, text, "cuda", env=denv)
        summ = next((l for l in lines if l.get("kind") == "summary"), {})
        warm = []
        for _ in range(3):
            w, _, out, err, rc = common.run_arr(binary, text, "cuda", env={**env, **cache}, profile=False)
            warm.append(w * 1e3)
        row = dict(program=prog, variant=name, cold_ms=round(cold, 1), nvrtc_s=summ.get("compile_s"),
                   modules=summ.get("compiles"), warm_ms=round(statistics.median(warm), 2),
                   warm_all=[round(x, 2) for x in warm], result=res[-80:])
        print(json.dumps(row), flush=True)
        rows.append(row)
print()
print("| program | variant | cold ms | NVRTC s (modules) | warm ms | result |")
print("| --- | --- | --- | --- | --- | --- |")
for r in rows:
    ns = r["nvrtc_s"]
    print(f"| {r['program']} | {r['variant']} | {r['cold_ms']:.0f} | {ns if ns is None else round(ns, 3)} ({r['modules']}) | {r['warm_ms']:.1f} | {r['result'][:50]} |")
