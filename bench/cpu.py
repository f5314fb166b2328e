#!/usr/bin/env python3
"""The CPU variant of bench/run.py, for a machine without a GPU: `arr --backend cpu`
against NumPy on the same workloads (sizes divided by --divisor, default 64) and
the same whole programs (sizes divided by --program-divisor, default 20).

    python3 bench/cpu.py --arr target/release/arr --out bench/results/cpu-today

Arr: the median wall time of each realized graph that ran once per loop
iteration (`arr run --profile-json` on the CPU backend), summed. NumPy: 2
warm-up calls, then the median of --iters calls (time.perf_counter). Inputs
are fresh uniform random f32 for both. Effective GB/s = inputs read once +
output written, over the time. Whole programs as in bench/run.py: Arr's time as
`arr run --time` reports it (after start-up), NumPy in-process after one
warm-up call; median of 3 each.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

F32 = 4


def numpy_case(name, d):
    """(inputs, function, bytes) with bench/peers.py's shapes, the scaled axis divided by d."""
    rng = np.random.default_rng(0)

    def r(*shape):
        return rng.random(shape, dtype=np.float32)

    def nb(*arrays, out=0):
        return sum(a.nbytes for a in arrays) + F32 * out

    s = lambda v: max(1, v // d)  # noqa: E731
    if name == "copy":
        a = r(s(2**28))
        return [a], lambda a: a.copy(), 2 * a.nbytes
    if name in ("add_row", "add_col", "add_outer", "add_rank3"):
        shapes = {"add_row": ((s(16384), 16384), (16384,)), "add_col": ((s(16384), 16384), (s(16384), 1)),
                  "add_outer": ((s(16384), 1), (1, 16384)), "add_rank3": ((s(256), 256, 256), (s(256), 1, 256))}
        a, b = (r(*sh) for sh in shapes[name])
        return [a, b], np.add, nb(a, b, out=int(np.prod(np.broadcast_shapes(a.shape, b.shape))))
    if name == "fused_chain":
        a, b, c = r(s(2**26)), r(s(2**26)), r(s(2**26))
        return [a, b, c], lambda a, b, c: np.exp(a * b + c) - np.float32(0.5) * np.tanh(a), 4 * a.nbytes
    reductions = {"sum_all": ((s(2**28),), None), "sum_axis1": ((s(16384), 16384), 1),
                  "sum_axis0": ((s(16384), 16384), 0), "sum_tiny_rows": ((s(2**24), 8), 1),
                  "sum_short_rows": ((s(2**22), 32), 1), "sum_medium_rows": ((s(2**18), 1024), 1),
                  "sum_long_rows": ((64, s(2**22)), 1), "sum_middle": ((64, s(4096), 64), 1)}
    if name in reductions:
        shape, axis = reductions[name]
        x = r(*shape)
        out = 1 if axis is None else x.size // shape[axis]
        return [x], lambda x: x.sum(axis), nb(x, out=out)
    if name == "segsum_ragged":
        lengths = rng.integers(1, 64, size=s(3_000_000), dtype=np.int64)
        x = r(int(lengths.sum()))
        starts = np.cumsum(lengths) - lengths
        return [x, starts], np.add.reduceat, nb(x, lengths, out=lengths.size)
    if name == "cumsum_rows":
        x = r(s(16384), 16384)
        return [x], lambda x: x.cumsum(1), 2 * x.nbytes
    if name == "cumsum_all":
        x = r(s(2**28))
        return [x], lambda x: x.cumsum(), 2 * x.nbytes
    if name == "nbody_stream":
        a, b = r(s(16384)), r(s(16384))
        return [a, b], lambda a, b: ((a[:, None] - b[None, :]) ** 2).sum(1), 3 * a.nbytes
    if name == "matmul":
        a, b = r(s(8192), s(8192)), r(s(8192), s(8192))
        return [a, b], np.matmul, 3 * a.nbytes
    raise KeyError(name)


def time_numpy(fn, inputs, runs):
    for _ in range(2):
        fn(*inputs)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn(*inputs)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--arr", default=os.path.join(common.HERE, "..", "target", "release", "arr"))
    p.add_argument("--out", default=os.path.join(common.HERE, "results", "cpu-latest"))
    p.add_argument("--divisor", type=int, default=64)
    p.add_argument("--program-divisor", type=int, default=20)
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--only", help="comma-separated workload names")
    p.add_argument("--programs", default="heat,shallow_water,nbody,leibniz_pi,monte_carlo_pi,black_scholes")
    args = p.parse_args()
    arr = os.path.abspath(args.arr)
    os.makedirs(args.out, exist_ok=True)
    logf = open(os.path.join(args.out, "log.txt"), "w")

    def log(*parts):
        text = " ".join(str(x) for x in parts)
        print(text, file=sys.stderr, flush=True)
        logf.write(text + "\n")

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=common.HERE).stdout.strip()
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), cpu)
    except OSError:
        pass
    device = f"{cpu}, {os.cpu_count()} cores"
    header = (f"date {datetime.date.today()}, device {device}, commit {commit}, NumPy {np.__version__}, "
              f"command: python3 bench/cpu.py {' '.join(sys.argv[1:])}")
    log(header)
    rows = []
    table = ["| workload | size | Arr ms | Arr GB/s | NumPy ms | NumPy GB/s | NumPy / Arr | Arr graphs |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name in (args.only.split(",") if args.only else common.ORDER):
        inputs, fn, nbytes = numpy_case(name, args.divisor)
        iters = 3 if name == "matmul" else args.iters
        with open(os.path.join(common.WORKLOADS, name + ".arr")) as f:
            text = common.prepare(f.read(), args.divisor, iters)
        wall, lines, out, err, rc = common.run_arr(arr, text, "cpu")
        ms, first, looped, _ = common.per_iteration(lines, iters)
        np_ms = time_numpy(fn, inputs, args.iters)
        size = " x ".join(str(tuple(a.shape)) for a in inputs)
        row = {"workload": name, "size": size, "arr_ms": ms, "arr_first_ms": first, "numpy_ms": np_ms,
               "bytes": nbytes, "rc": rc, "graphs": [g["plan"] for g in looped]}
        rows.append(row)
        log(json.dumps(row))
        if rc != 0 or not ms:
            table.append(f"| {name} | {size} | error: {err.strip()[-80:]} | | {np_ms:.3f} | | | |")
            continue
        gb = lambda t: nbytes / (t * 1e-3) / 1e9  # noqa: E731
        bw = name not in common.TIME_ONLY
        table.append(f"| {name} | {size} | {ms:.3f} | {gb(ms):.1f} | {np_ms:.3f} | "
                     f"{gb(np_ms):.1f} | {np_ms / ms:.2f}x | {len(looped)} |" if bw else
                     f"| {name} | {size} | {ms:.3f} | - | {np_ms:.3f} | - | {np_ms / ms:.2f}x | {len(looped)} |")
        del inputs

    # whole programs
    prog = [x for x in args.programs.split(",") if x]
    ptable = ["| program | size | Arr ms | NumPy ms | NumPy / Arr | Arr result | NumPy result |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    if prog:
        np_lines = subprocess.run([sys.executable, os.path.join(common.PROGRAMS, "programs.py"), "--peers", "numpy",
                                   "--divisor", str(args.program_divisor), "--only", ",".join(prog)],
                                  capture_output=True, text=True).stdout.splitlines()
        np_rows = {r["program"]: r for r in map(json.loads, np_lines)}
        for name in prog:
            with open(os.path.join(common.PROGRAMS, name + ".arr")) as f:
                text = common.prepare(f.read(), args.program_divisor)
            walls = []
            for _ in range(3):
                wall, _, out, err, rc = common.run_arr(arr, text, "cpu", profile=False)
                walls.append(wall * 1e3)
            ms = statistics.median(walls)
            n = np_rows.get(name, {})
            row = {"program": name, "arr_ms": ms, "arr_walls_ms": walls,
                   "arr_result": out.strip(), "numpy": n}
            rows.append(row)
            log(json.dumps(row))
            ratio = f"{n['ms'] / ms:.2f}x" if n.get("ms") and ms > 0 else "-"
            ptable.append(f"| {name} | {json.dumps(n.get('size'))} | {ms:.1f} | {n.get('ms', '-')} | {ratio} | "
                          f"{out.strip()} | {json.dumps(n.get('result', n.get('error')))} |")
    with open(os.path.join(args.out, "cpu.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    text = header + "\n\n" + "\n".join(table) + "\n\n" + "\n".join(ptable)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text + "\n")
    logf.write("\n" + text + "\n")
    print(text)


if __name__ == "__main__":
    main()
