#!/usr/bin/env python3
"""Interpreter overhead on scalar statements (issue 11): times CPython's
`s = 0; for i in range(N): s += i` and Arr's `let s = 0` / `for i in 0..N { s += i }`
/ `print(s)` on the same N, in the same run, and prints ns per iteration and
the ratio. Startup is taken out by also timing N = 0 and subtracting.
Times are CPU time (user + system), not wall time, so that other work on a
shared machine does not count; the best of `--runs` runs is kept.

    python3 bench/scalar_loop.py [N] [--arr target/release/arr]
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def best_of(runs, fn):
    return min(fn() for _ in range(runs))


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def time_cmd(cmd):
    t = children_cpu()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return children_cpu() - t, out.strip()


def python_loop(n):
    t = time.process_time()
    s = 0
    for i in range(n):
        s += i
    return time.process_time() - t, s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="?", type=int, default=1_000_000)
    ap.add_argument("--arr", default=os.path.join(ROOT, "target", "release", "arr"))
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    n = args.n

    with tempfile.TemporaryDirectory() as tmp:
        def script(k):
            path = os.path.join(tmp, f"loop{k}.arr")
            with open(path, "w") as f:
                f.write(f"let s = 0\nfor i in 0..{k} {{\n    s += i\n}}\nprint(s)\n")
            return path

        def py_script(k):
            path = os.path.join(tmp, f"loop{k}.py")
            with open(path, "w") as f:
                f.write(f"s = 0\nfor i in range({k}):\n    s += i\nprint(s)\n")
            return path

        full, empty = script(n), script(0)
        py_cmd = lambda p: [sys.executable, p]  # noqa: E731
        py_script_ns = (
            best_of(args.runs, lambda: time_cmd(py_cmd(py_script(n)))[0])
            - best_of(args.runs, lambda: time_cmd(py_cmd(py_script(0)))[0])
        ) / n * 1e9
        cmd = lambda p: [args.arr, "--backend", "cpu", "run", p]  # noqa: E731
        _, out = time_cmd(cmd(full))
        expected = n * (n - 1) // 2
        if int(out) != expected:
            sys.exit(f"arr printed {out}, expected {expected}")
        arr_full = best_of(args.runs, lambda: time_cmd(cmd(full))[0])
        arr_empty = best_of(args.runs, lambda: time_cmd(cmd(empty))[0])

    py = best_of(args.runs, lambda: python_loop(n)[0])
    arr_ns = (arr_full - arr_empty) / n * 1e9
    py_ns = py / n * 1e9
    print(f"N = {n}")
    print(f"CPython {sys.version.split()[0]}, a script (globals, as arr's top level): {py_script_ns:8.1f} ns/iteration")
    print(f"CPython, inside a function (fast locals):          {py_ns:8.1f} ns/iteration")
    print(f"arr (startup {arr_empty * 1e3:.0f} ms taken out):               {arr_ns:8.1f} ns/iteration")
    print(f"ratio arr / CPython script: {arr_ns / py_script_ns:.2f} (target: at most 2)")
    print(f"ratio arr / CPython function: {arr_ns / py_ns:.2f}")


if __name__ == "__main__":
    main()
