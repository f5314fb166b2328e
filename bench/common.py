"""Shared by bench/run.py (GPU) and bench/cpu.py (CPU): preparing the Arr
workload scripts, running `arr` with --profile-json, and reading its output.

A workload script marks the lines that may change: `let n = 16384  # scale`
is divided by the scale divisor (--quick, the CPU variant), `let iters = 35
# iters` may be replaced. Everything else is run as written.
"""

import json
import os
import re
import statistics
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = os.path.join(HERE, "workloads")
PROGRAMS = os.path.join(HERE, "programs")

# bench/peers.py's workload order.
ORDER = ["copy", "add_row", "add_col", "add_outer", "add_rank3", "fused_chain", "sum_all",
         "sum_axis1", "sum_axis0", "sum_tiny_rows", "sum_short_rows", "sum_medium_rows",
         "sum_long_rows", "sum_middle", "segsum_ragged", "cumsum_rows", "cumsum_all",
         "nbody_stream", "matmul", "softmax_rows", "log_softmax_rows", "layer_norm_rows", "var_rows",
         "mean_var_rows", "transpose_add"]
# Time, not bandwidth, is the figure for these (as in peers.py).
TIME_ONLY = {"nbody_stream", "matmul"}

_LINE = re.compile(r"^(\s*let\s+\w+\s*=\s*)(\d[\d_]*)(\s*#\s*(scale|iters)\b.*)$")


def prepare(text, divisor=1, iters=None):
    """The script with `# scale` values divided by `divisor` and `# iters` set."""
    out = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            value = int(m.group(2).replace("_", ""))
            if m.group(4) == "scale":
                value = max(1, value // divisor)
            elif iters is not None:
                value = iters
            line = f"{m.group(1)}{value}{m.group(3)}"
        out.append(line)
    return "\n".join(out) + "\n"


def iterations(text):
    m = re.search(r"let\s+iters\s*=\s*(\d+)\s*#\s*iters", text)
    return int(m.group(1)) if m else None


def run_arr(arr, script_text, backend, env=None, profile=True, timeout=600, workdir=None):
    """Runs a script; returns (seconds of wall time, profile lines or [], stdout, stderr, rc).
    Without `profile` the run is timed by `arr run --time` (after start-up), else by the
    wall time of the whole process."""
    workdir = workdir or tempfile.mkdtemp(prefix="arr-bench-")
    path = os.path.join(workdir, "script.arr")
    with open(path, "w") as f:
        f.write(script_text)
    prof = os.path.join(workdir, "profile.json")
    if os.path.exists(prof):
        os.remove(prof)
    cmd = [arr, "--backend", backend, "run", path]
    if profile:
        cmd += ["--profile-json", prof]
    else:
        cmd += ["--time"]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env={**os.environ, **(env or {})})
    wall = time.perf_counter() - t0
    m = re.search(r"^time: ([\d.]+) ms$", p.stderr, re.M)
    if m:
        wall = float(m.group(1)) / 1e3
    lines = []
    if profile and os.path.exists(prof):
        with open(prof) as f:
            lines = [json.loads(l) for l in f if l.strip()]
    return wall, lines, p.stdout, p.stderr, p.returncode


def run_arr_times(arr, script_text, backend, runs, timeout=600, env=None):
    """Runs a script `runs` times in one `arr run --time --runs` process; returns
    (each run's ms as `--time` reports it, stdout of the first run, stderr, rc).
    The first run is cold (every kernel planned, memory freshly mapped); later
    runs are warm, as a peer's runs after its warm-up are."""
    workdir = tempfile.mkdtemp(prefix="arr-bench-")
    path = os.path.join(workdir, "script.arr")
    with open(path, "w") as f:
        f.write(script_text)
    p = subprocess.run([arr, "--backend", backend, "run", path, "--time", "--runs", str(runs)],
                       capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})})
    times = [float(t) for t in re.findall(r"^time: ([\d.]+) ms$", p.stderr, re.M)]
    lines = p.stdout.splitlines()
    first = "\n".join(lines[: len(lines) // runs]) if runs and len(lines) % runs == 0 else p.stdout
    return times, first, p.stderr, p.returncode


def per_iteration(lines, iters):
    """From a profile: the kernels (GPU) or realized graphs (CPU) that ran once per
    loop iteration, and the sum of their medians (ms). Kernels that ran once
    (input generation) or a different number of times are left out."""
    items = [l for l in lines if l.get("kind") in ("kernel", "realize")]
    looped = [l for l in items if iters and l.get("runs", 0) > 0 and l["runs"] % iters == 0]
    if not looped:
        # the input's kernel may look the same as the loop's (copy(rand) is a map
        # like the copy): one group of iters + 1; the median hardly moves
        looped = [l for l in items if iters and iters < l.get("runs", 0) <= iters + 2]
    ms = sum(l["median_ms"] * max(1, l["runs"] // iters) for l in looped)
    first = sum(l.get("first_ms", 0.0) * max(1, l["runs"] // iters) for l in looped)
    summary = next((l for l in lines if l.get("kind") == "summary"), {})
    return ms, first, looped, summary


def median(xs):
    return statistics.median(xs) if xs else float("nan")
