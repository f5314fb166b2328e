#!/usr/bin/env python3
"""Interpreter overhead on scalar statements (issue 11): times CPython and Arr
on the same scalar loops of N iterations (`LOOPS`: `s += i` in a for loop; a
while loop with a comparison, a remainder and an if/else), in the same run,
and prints ns per iteration and the ratio. Startup is taken out by also
timing N = 0 and subtracting.
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


# Each loop: (name, Arr script of N, CPython script of N, the value both print).
LOOPS = [
    (
        "for, s += i",
        lambda k: f"let s = 0\nfor i in 0..{k} {{\n    s += i\n}}\nprint(s)\n",
        lambda k: f"s = 0\nfor i in range({k}):\n    s += i\nprint(s)\n",
        lambda k: k * (k - 1) // 2,
    ),
    (
        "while, if/else",
        lambda k: f"let s = 0\nlet i = 0\nwhile i < {k} {{\n    if i % 3 == 0 {{ s += i }} else {{ s -= 1 }}\n    i += 1\n}}\nprint(s)\n",
        lambda k: f"s = 0\ni = 0\nwhile i < {k}:\n    if i % 3 == 0:\n        s += i\n    else:\n        s -= 1\n    i += 1\nprint(s)\n",
        lambda k: sum(i if i % 3 == 0 else -1 for i in range(k)),
    ),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="?", type=int, default=1_000_000)
    ap.add_argument("--arr", default=os.path.join(ROOT, "target", "release", "arr"))
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    n = args.n
    print(f"N = {n}, CPython {sys.version.split()[0]} scripts (globals, as arr's top level); "
          "startup taken out of both")
    with tempfile.TemporaryDirectory() as tmp:
        for name, arr_src, py_src, value in LOOPS:
            def write(k, src, ext):
                path = os.path.join(tmp, f"loop{k}.{ext}")
                with open(path, "w") as f:
                    f.write(src(k))
                return path

            py_cmd = lambda p: [sys.executable, p]  # noqa: E731
            cmd = lambda p: [args.arr, "--backend", "cpu", "run", p]  # noqa: E731
            _, out = time_cmd(cmd(write(n, arr_src, "arr")))
            if int(out) != value(n):
                sys.exit(f"{name}: arr printed {out}, expected {value(n)}")
            per = {}
            for who, c, src, ext in (("py", py_cmd, py_src, "py"), ("arr", cmd, arr_src, "arr")):
                full = best_of(args.runs, lambda: time_cmd(c(write(n, src, ext)))[0])
                empty = best_of(args.runs, lambda: time_cmd(c(write(0, src, ext)))[0])
                per[who] = (full - empty) / n * 1e9
            print(f"{name:16s} CPython {per['py']:7.1f} ns/iteration, arr {per['arr']:7.1f}, "
                  f"ratio arr / CPython {per['arr'] / per['py']:.2f} (target: at most 2)")


if __name__ == "__main__":
    main()
