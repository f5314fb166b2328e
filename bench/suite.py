#!/usr/bin/env python3
"""Benchpress-style programs (bench/suite/NAME.arr with a NumPy twin NAME.py),
run on the CPU: each pair's printed checksums are compared, then both are timed.

Each twin defines `run(n, iters)` returning a list of floats: the same numbers,
in the same order, as the Arr script prints (one `print` a line). Each .arr
script starts with `let n = N  # scale` and, where it loops, `let iters = K  #
iters`; this runner writes a copy with the sizes it wants into a temporary file,
so both sides run the same sizes. Inputs are computed from indices (no random
numbers), so both sides compute the same values.

Timing, both sides the same way: one untimed warm-up run, then the median of
--runs runs. Arr runs `arr --backend cpu run --time --runs K+1` (the script
parsed and checked once; the first run plans its kernels); NumPy calls `run` in
this process.

    python3 bench/suite.py --arr target/release/arr            # every program
    python3 bench/suite.py --only jacobi,sor --divisor 4       # a quick look
"""

import argparse
import importlib.util
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUITE = os.path.join(ROOT, "bench", "suite")
SCALE = re.compile(r"^let n = (\d+)  # scale$", re.M)
ITERS = re.compile(r"^let iters = (\d+)  # iters$", re.M)
FLOAT = re.compile(r"^[-+]?(\d+\.?\d*([eE][-+]?\d+)?|inf|nan|true|false)$")


def programs():
    return sorted(f[:-4] for f in os.listdir(SUITE) if f.endswith(".arr"))


def sized(src, divisor):
    """The script's sizes: n divided by `divisor` (at least 1); the iterations as written."""
    m = SCALE.search(src)
    if not m:
        raise SystemExit("a suite script must start with `let n = N  # scale`")
    n = max(1, int(m.group(1)) // divisor)
    it = ITERS.search(src)
    iters = int(it.group(1)) if it else 1
    return SCALE.sub(f"let n = {n}  # scale", src, count=1), n, iters


def numbers(text):
    out = []
    for line in text.split():
        if line in ("true", "false"):
            out.append(1.0 if line == "true" else 0.0)
        elif FLOAT.match(line):
            out.append(float(line))
    return out


def agree(a, b, rtol):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if math.isnan(x) and math.isnan(y):
            continue
        if not math.isclose(x, y, rel_tol=rtol, abs_tol=rtol):
            return False
    return True


def twin(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(SUITE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def time_numpy(mod, n, iters, runs):
    mod.run(n, iters)
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        mod.run(n, iters)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def time_arr(arr, path, runs):
    r = subprocess.run([arr, "--backend", "cpu", "run", "--time", "--runs", str(runs + 1), path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr
    ts = [float(x) for x in re.findall(r"time: ([\d.]+) ms", r.stderr)]
    return statistics.median(ts[1:]), None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--arr", default=os.path.join(ROOT, "target", "release", "arr"))
    p.add_argument("--only", help="comma-separated program names")
    p.add_argument("--divisor", type=int, default=1, help="divide each `# scale` size by this")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--rtol", type=float, default=1e-3)
    args = p.parse_args()
    names = args.only.split(",") if args.only else programs()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            with open(os.path.join(SUITE, name + ".arr")) as f:
                src, n, iters = sized(f.read(), args.divisor)
            path = os.path.join(tmp, name + ".arr")
            with open(path, "w") as f:
                f.write(src)
            mod = twin(name)
            r = subprocess.run([args.arr, "--backend", "cpu", "run", path], capture_output=True, text=True)
            if r.returncode != 0:
                rows.append((name, n, "FAILS", r.stderr.strip().splitlines()[0:3], None, None))
                continue
            got = numbers(r.stdout)
            want = [float(x) for x in mod.run(n, iters)]
            ok = agree(got, want, args.rtol)
            np_ms = time_numpy(mod, n, iters, args.runs)
            arr_ms, err = time_arr(args.arr, path, args.runs)
            rows.append((name, n, "agree" if ok else f"DIFFERS {got} vs {want}", None, arr_ms, np_ms))
            print(f"{name}: n={n} {rows[-1][2]} arr {arr_ms} ms numpy {np_ms:.3f} ms", file=sys.stderr)
    print("| program | n | result | Arr ms | NumPy ms | NumPy / Arr |")
    print("| --- | --- | --- | --- | --- | --- |")
    ratios = []
    for name, n, res, err, a, b in rows:
        if a is None:
            print(f"| {name} | {n} | {res} {err or ''} | | | |")
            continue
        ratios.append(b / a)
        print(f"| {name} | {n} | {res} | {a:.3f} | {b:.3f} | {b / a:.2f} |")
    if ratios:
        print(f"\nmedian NumPy / Arr: {statistics.median(ratios):.2f} over {len(ratios)} programs")


if __name__ == "__main__":
    main()
