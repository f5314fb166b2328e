#!/usr/bin/env python3
"""Arr against its peers on one GPU, in one run: the copy ceiling, PyTorch eager,
torch.compile and CuPy (bench/peers.py), the Arr workloads (bench/workloads/),
the whole programs (bench/programs/) and the latency figures. Prints one table
last and writes the full log and the raw JSON to --out.

    python3 bench/run.py --arr target/release/arr --out bench/results/today
    python3 bench/run.py --arr ./arr --quick --out /tmp/smoke    # sizes / 16

Arr timing: each workload script realizes its inputs, then runs the operation
`iters` times in a loop; `arr run --profile-json` times every kernel with CUDA
events (after the inputs exist; each launch is synchronised) and the figure is
the sum of the per-kernel medians of the kernels that ran once per iteration.
The first iteration (cold caches, and on the first script the module load) is
reported separately. The peers: 5 warm-up calls, then the median of 30 calls,
each between CUDA events (bench/peers.py). Effective bandwidth for both is the
peers' byte count (every input read once + the output written) over the time.

Whole programs: Arr is the wall time of the script as `arr run --time --runs 4`
reports it for each run (after start-up: CUDA context, standard library; the
disk cache warm), in 3 processes: "Arr ms" is the median of the 9 later runs,
timed as the peers are (the peers run the same statements in-process, one
warm-up call, then the median of 3 calls, each synchronised;
bench/programs/programs.py) and as bench/cpu.py times Arr; "first run in a
process" is the median of the 3 first runs, which also load the modules from
the disk cache, make their sources (the cache's key) and the memory pool's
first allocations. The start-up is reported apart.

Cold columns: Arr's first run of each program with an empty kernel cache, as the
wall time of the whole `arr run` process (start-up included), not profiled (the
profiler waits for every kernel); its NVRTC seconds and module count come from a
second, profiled cold run. Each peer in a fresh process with an empty CuPy kernel
cache, from the process's start (import, CUDA context) to the end of its first run
(`first_total_ms`). NVRTC keeps the machine code it makes in the driver's compute
cache (~/.nv/ComputeCache), so a second "cold" run there compiles 3 to 20 times
faster: every cold run of either side gets an empty one (CUDA_CACHE_PATH).
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

LOG = None


def log(*parts):
    text = " ".join(str(p) for p in parts)
    print(text, file=sys.stderr, flush=True)
    if LOG:
        LOG.write(text + "\n")
        LOG.flush()


def save_jsonl(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def run_peers(args):
    cmd = [sys.executable, os.path.join(common.HERE, "peers.py")] + (["--quick"] if args.quick else [])
    if args.only:
        cmd += ["--only", ",".join(args.only)]
    log("$", " ".join(cmd))
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    log(p.stderr[-4000:])
    rows = [json.loads(l) for l in p.stdout.splitlines() if l.strip().startswith("{")]
    log(f"peers: {len(rows)} lines in {time.perf_counter() - t0:.1f} s, rc {p.returncode}")
    return rows


def run_arr_workloads(args, cache):
    rows = []
    for name in args.names:
        with open(os.path.join(common.WORKLOADS, name + ".arr")) as f:
            text = common.prepare(f.read(), args.divisor)
        iters = common.iterations(text)
        wall, lines, out, err, rc = common.run_arr(args.arr, text, args.backend, env={"ARR_CACHE_DIR": cache})
        ms, first, looped, summary = common.per_iteration(lines, iters)
        row = {"workload": name, "iters": iters, "rc": rc, "wall_s": round(wall, 3), "ms": ms,
               "first_ms": first, "kernels": [k.get("strategy", k.get("plan")) + " -> " + k.get("output", "")
                                               for k in looped],
               "arr_bytes": sum(k.get("bytes", 0) for k in looped),
               "compile_s": summary.get("compile_s"), "compiles": summary.get("compiles"),
               "disk_hits": summary.get("disk_hits"), "copy_gb_s": summary.get("copy_gb_s"),
               "profile": lines}
        if rc != 0:
            row["error"] = err.strip()[-1000:]
        log(f"arr {name}: {ms:.4f} ms per iteration (first {first:.3f}), rc {rc}, "
            f"compiled {row['compiles']} in {row['compile_s']} s, kernels {row['kernels']}")
        if err.strip():
            log(err.strip()[-2000:])
        rows.append(row)
    return rows


def arr_wall(args, text, env, processes, runs=4):
    """`arr run --time --runs RUNS` in each of `processes` processes: (each process's
    first run, the later runs of all of them, the last output). The later runs are
    timed as the peers' calls are, in a warm process after a warm-up call; the first
    run of a process also pays for loading its modules from the disk cache, making
    their sources' keys and the memory pool's first allocations."""
    firsts, warms, out = [], [], ""
    for _ in range(processes):
        times, out, err, rc = common.run_arr_times(args.arr, text, args.backend, runs, env=env)
        if rc != 0 or len(times) != runs:
            raise RuntimeError(err.strip()[-500:])
        firsts.append(times[0])
        warms.extend(times[1:])
    return firsts, warms, out.strip()


def write_script(text):
    path = os.path.join(tempfile.mkdtemp(prefix="arr-bench-"), "script.arr")
    with open(path, "w") as f:
        f.write(text)
    return path


def run_arr_programs(args):
    rows = []
    cache = tempfile.mkdtemp(prefix="arr-cache-programs-")
    env = {"ARR_CACHE_DIR": cache}
    base = []
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run([args.arr, "--backend", args.backend, "run", os.path.join(common.PROGRAMS, "empty.arr")],
                       capture_output=True, env={**os.environ, **env})
        base.append((time.perf_counter() - t0) * 1e3)
    base_ms = common.median(base)
    log(f"arr start-up (process of an empty script): {base} ms, median {base_ms:.1f}")
    for name in args.programs:
        with open(os.path.join(common.PROGRAMS, name + ".arr")) as f:
            text = common.prepare(f.read(), args.divisor)
        row = {"program": name, "peer": "arr", "startup_ms": base_ms}
        try:
            # first run: empty caches (Arr's and the driver's), the whole process, not profiled
            cold_env = {"ARR_CACHE_DIR": tempfile.mkdtemp(prefix="arr-cache-cold-"),
                        "CUDA_CACHE_PATH": tempfile.mkdtemp(prefix="cuda-cache-cold-")}
            t0 = time.perf_counter()
            p = subprocess.run([args.arr, "--backend", args.backend, "run", write_script(text)],
                               capture_output=True, text=True, env={**os.environ, **cold_env}, timeout=600)
            row.update(first_wall_ms=round((time.perf_counter() - t0) * 1e3, 1))
            if p.returncode != 0:
                raise RuntimeError(p.stderr.strip()[-500:])
            # the same again, profiled, for the compile counts and seconds
            env["CUDA_CACHE_PATH"] = tempfile.mkdtemp(prefix="cuda-cache-")
            wall, lines, out, err, rc = common.run_arr(args.arr, text, args.backend, env=env)
            summary = next((l for l in lines if l.get("kind") == "summary"), {})
            row.update(first_profiled_ms=round(wall * 1e3, 1), first_compiles=summary.get("compiles"),
                       first_compile_s=summary.get("compile_s"))
            if rc != 0:
                raise RuntimeError(err.strip()[-500:])
            firsts, warms, out = arr_wall(args, text, env, 3)
            row.update(ms=round(common.median(warms), 3), warm_ms=[round(w, 2) for w in warms],
                       first_in_process_ms=round(common.median(firsts), 3),
                       firsts_ms=[round(w, 2) for w in firsts], result=out)
            # the second run of the same script: everything from the disk cache
            _, lines, _, _, _ = common.run_arr(args.arr, text, args.backend, env=env)
            summary = next((l for l in lines if l.get("kind") == "summary"), {})
            row.update(second_compiles=summary.get("compiles"), second_disk_hits=summary.get("disk_hits"))
        except Exception as e:
            row["error"] = str(e)
        log("arr program", json.dumps(row))
        rows.append(row)
    return rows


def run_peer_programs(args):
    cmd = [sys.executable, os.path.join(common.PROGRAMS, "programs.py"), "--peers", args.program_peers,
           "--divisor", str(args.divisor), "--only", ",".join(args.programs), "--fresh"]
    log("$", " ".join(cmd))
    p = subprocess.run(cmd, capture_output=True, text=True)
    log(p.stderr[-3000:])
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip().startswith("{")]


OVERHEAD = """let x = realize(rand([1000]))
let iters = {n}
for i in 0..iters {{ x = x + 1.0 }}
print(sum(x))
"""


def arr_overhead(args):
    env = {"ARR_CACHE_DIR": tempfile.mkdtemp(prefix="arr-cache-overhead-")}
    lo, hi = 2000, 20000
    _, a, _ = arr_wall(args, OVERHEAD.format(n=lo), env, 3)
    _, b, _ = arr_wall(args, OVERHEAD.format(n=hi), env, 3)
    return (common.median(b) - common.median(a)) * 1e3 / (hi - lo)


def peer_overhead(peer):
    """Microseconds per `x = x + 1.0` on 1000 f32 elements, eager, in a loop."""
    code = r"""
import time, statistics, sys
peer = sys.argv[1]
if peer == "torch":
    import torch
    x = torch.rand(1000, device="cuda"); sync = torch.cuda.synchronize
else:
    import cupy
    x = cupy.random.random(1000, dtype=cupy.float32); sync = cupy.cuda.Device().synchronize
res = []
for rep in range(4):
    sync(); t0 = time.perf_counter()
    for i in range(20000):
        x = x + 1.0
    sync(); res.append((time.perf_counter() - t0) / 20000 * 1e6)
print(statistics.median(res[1:]))
"""
    p = subprocess.run([sys.executable, "-c", code, peer], capture_output=True, text=True)
    try:
        return float(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        log(f"overhead {peer} failed: {p.stderr[-500:]}")
        return None


def best_peer(peers, name):
    # a peer whose output differs from PyTorch eager's (err > 1e-3, e.g. CuPy's reduceat on
    # ragged segments) is not a result to compare against
    cands = [r for r in peers if r.get("workload") == name and r.get("ms") and (r.get("err") or 0) <= 1e-3]
    return min(cands, key=lambda r: r["ms"]) if cands else None


def fmt(x, spec):
    return "-" if x is None else format(x, spec)


def tables(args, peers, arr_rows, prog_rows, peer_prog_rows, latency):
    ceiling = next((r.get("gb_s") for r in peers if r.get("workload") == "copy" and r.get("peer") == "torch"), None)
    arr_copy = next((r.get("copy_gb_s") for r in arr_rows if r.get("copy_gb_s")), None)
    out = []
    out.append(f"copy ceiling (PyTorch device-to-device copy of 2^28 f32, this run): {fmt(ceiling, '.0f')} GB/s; "
               f"Arr's profiler measured {fmt(arr_copy, '.0f')} GB/s (cuMemcpyDtoD, 2^26 f32)")
    out.append("")
    out.append("| workload | size | Arr ms | Arr GB/s | best peer | peer ms | peer GB/s | Arr / best peer | Arr / ceiling | Arr kernels |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in arr_rows:
        name = r["workload"]
        if "skipped" in r:
            out.append(f"| {name} | | {r['skipped']} | | | | | | | |")
            continue
        bp = best_peer(peers, name)
        size = bp["size"] if bp else ""
        if r.get("error") or not r.get("ms"):
            out.append(f"| {name} | {size} | error: {r.get('error', 'no kernels timed')[:80]} | | | | | | | |")
            continue
        nbytes = (bp or {}).get("bytes") or r["arr_bytes"]
        time_only = name in common.TIME_ONLY
        gbs = None if time_only else nbytes / (r["ms"] * 1e-3) / 1e9
        speed = bp["ms"] / r["ms"] if bp else None
        pct = f"{100 * gbs / ceiling:.0f}%" if gbs and ceiling else "-"
        peer_gbs = None if time_only else (bp or {}).get("gb_s")
        if name == "matmul" and bp:
            flops = 2 * int(size.split("(")[1].split(",")[0]) ** 3
            gbs_txt = f"{flops / (r['ms'] * 1e-3) / 1e12:.1f} TFLOP/s"
            peer_txt = f"{bp.get('tflops')} TFLOP/s"
        else:
            gbs_txt, peer_txt = fmt(gbs, ".0f"), fmt(peer_gbs, ".0f")
        out.append(f"| {name} | {size} | {r['ms']:.4f} | {gbs_txt} | {bp['peer'] if bp else '-'} | "
                   f"{fmt((bp or {}).get('ms'), '.4f')} | {peer_txt} | {fmt(speed, '.2f')}x | {pct} | "
                   f"{'; '.join(dict.fromkeys(r['kernels']))} |")
    out.append("")
    out.append("Arr / best peer is the best peer's time over Arr's (above 1: Arr is faster). "
               "Arr / ceiling is Arr's GB/s over the copy ceiling.")
    out.append("")
    out.append("| program | size | Arr cold ms | PyTorch cold ms | CuPy cold ms | Arr NVRTC s (modules) "
               "| Arr first run in a process ms | Arr ms | PyTorch ms | CuPy ms | best peer / Arr | Arr result | peer result |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in prog_rows:
        name = r["program"]
        pr = {p["peer"]: p for p in peer_prog_rows if p["program"] == name}
        t = pr.get("torch", {})
        c = pr.get("cupy", {})
        best = min([x["ms"] for x in (t, c) if x.get("ms")], default=None)
        ratio = best / r["ms"] if best and r.get("ms") else None
        size = json.dumps(t.get("size") or c.get("size") or "")
        nvrtc = f"{fmt(r.get('first_compile_s'), '.2f')} ({r.get('first_compiles')})"
        out.append(f"| {name} | {size} | {fmt(r.get('first_wall_ms'), '.0f')} | {fmt(t.get('first_total_ms'), '.0f')} | "
                   f"{fmt(c.get('first_total_ms'), '.0f')} | {nvrtc} | {fmt(r.get('first_in_process_ms'), '.2f')} | {fmt(r.get('ms'), '.2f')} | {fmt(t.get('ms'), '.1f')} | "
                   f"{fmt(c.get('ms'), '.1f')} | {fmt(ratio, '.2f')}x | {r.get('result', r.get('error', ''))} | "
                   f"{json.dumps(t.get('result', t.get('error', '')))} |")
    out.append("")
    out.append("| latency | Arr | PyTorch eager | CuPy |")
    out.append("| --- | --- | --- | --- |")
    for row in latency:
        out.append(row)
    return "\n".join(out)


def main():
    global LOG
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--arr", default=os.path.join(common.HERE, "..", "target", "release", "arr"))
    p.add_argument("--out", default=os.path.join(common.HERE, "results", "latest"))
    p.add_argument("--quick", action="store_true", help="sizes / 16 (smoke test)")
    p.add_argument("--only", help="comma-separated workload names")
    p.add_argument("--programs", default=",".join(["heat", "shallow_water", "nbody", "leibniz_pi",
                                                    "monte_carlo_pi", "black_scholes", "lu", "lbm"]))
    p.add_argument("--program-peers", default="torch,cupy")
    p.add_argument("--skip-peers", action="store_true", help="Arr alone (no PyTorch here)")
    p.add_argument("--backend", default="cuda", help="arr --backend (cpu only to test this script)")
    args = p.parse_args()
    args.arr = os.path.abspath(args.arr)
    args.divisor = 16 if args.quick else 1
    args.only = args.only.split(",") if args.only else None
    # GPU-only rows (bench/cpu.py has no NumPy twins for them)
    args.names = args.only or common.ORDER + ["transpose_add_other", "permute_add_rank3"]
    args.programs = [x for x in args.programs.split(",") if x]
    os.makedirs(args.out, exist_ok=True)
    LOG = open(os.path.join(args.out, "log.txt"), "w")
    started = datetime.datetime.now(datetime.timezone.utc)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=common.HERE).stdout.strip() or os.environ.get("ARR_COMMIT", "unknown")
    version = subprocess.run([args.arr, "--version"], capture_output=True, text=True).stdout.strip()
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip() if args.backend == "cuda" else ""
    log(f"bench/run.py {' '.join(sys.argv[1:])}")
    log(f"date {started.isoformat(timespec='seconds')}; {version}; commit {os.environ.get('ARR_COMMIT', commit)}; "
        f"device {smi or args.backend}")

    t0 = time.perf_counter()
    peers = [] if args.skip_peers else run_peers(args)
    save_jsonl(os.path.join(args.out, "peers.jsonl"), peers)
    cache = tempfile.mkdtemp(prefix="arr-cache-")  # empty: every workload's first run compiles
    arr_rows = run_arr_workloads(args, cache)
    save_jsonl(os.path.join(args.out, "arr.jsonl"), arr_rows)

    latency = []
    compiled = [r for r in arr_rows if r.get("compiles")]
    n_mod = sum(r["compiles"] for r in compiled)
    secs = sum(r["compile_s"] for r in compiled)
    if n_mod:
        worst = max(compiled, key=lambda r: r["compile_s"] / r["compiles"])
        latency.append(f"| first run: NVRTC per module (mean over {n_mod} modules of the workloads; worst script "
                       f"{worst['workload']} {1e3 * worst['compile_s'] / worst['compiles']:.1f} ms) | "
                       f"{1e3 * secs / n_mod:.1f} ms | | |")
    second = None
    if "fused_chain" in args.names:
        with open(os.path.join(common.WORKLOADS, "fused_chain.arr")) as f:
            text = common.prepare(f.read(), args.divisor)
        _, lines, _, _, _ = common.run_arr(args.arr, text, args.backend, env={"ARR_CACHE_DIR": cache})
        second = next((l for l in lines if l.get("kind") == "summary"), {})
        latency.append(f"| second run of fused_chain.arr: modules compiled / loaded from disk | "
                       f"{second.get('compiles')} / {second.get('disk_hits')} | | |")

    prog_rows = run_arr_programs(args) if args.programs else []
    peer_prog_rows = [] if args.skip_peers or not args.programs else run_peer_programs(args)
    save_jsonl(os.path.join(args.out, "programs.jsonl"), prog_rows + peer_prog_rows)
    if prog_rows:
        first = [r for r in prog_rows if r.get("first_compiles") is not None]
        latency.append("| whole programs, second run: modules compiled (should be 0) | "
                       + ", ".join(f"{r['program']} {r.get('second_compiles')}" for r in first) + " | | |")
        latency.append(f"| start-up: `arr run` of an empty script | {prog_rows[0]['startup_ms']:.0f} ms | | |")

    arr_us = arr_overhead(args)
    torch_us = None if args.skip_peers else peer_overhead("torch")
    cupy_us = None if args.skip_peers else peer_overhead("cupy")
    latency.append(f"| per statement in a loop, `x = x + 1.0` on 1000 f32 (us) | {arr_us:.1f} | "
                   f"{fmt(torch_us, '.1f')} | {fmt(cupy_us, '.1f')} |")
    save_jsonl(os.path.join(args.out, "latency.jsonl"),
               [{"arr_overhead_us": arr_us, "torch_overhead_us": torch_us, "cupy_overhead_us": cupy_us,
                 "nvrtc_modules": n_mod, "nvrtc_s": secs, "second_run": second}])
    log(f"total bench time {time.perf_counter() - t0:.1f} s")
    table = tables(args, peers, arr_rows, prog_rows, peer_prog_rows, latency)
    header = (f"date {started.date()}, device {smi or args.backend}, commit {os.environ.get('ARR_COMMIT', commit)}, "
              f"command: python3 bench/run.py {' '.join(sys.argv[1:])}")
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(header + "\n\n" + table + "\n")
    LOG.write("\n" + header + "\n\n" + table + "\n")
    LOG.close()
    print(header + "\n\n" + table)


if __name__ == "__main__":
    main()
