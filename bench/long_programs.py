#!/usr/bin/env python3
"""Run time of long straight-line programs (issue 10 item 10): N top-level
`let`s, and one sum of N terms, for growing N. Linear run time shows as a
roughly constant time per statement or term (CPU time of `arr run`, best of
`--runs`).

    python3 bench/long_programs.py [--arr target/release/arr]
"""

import argparse
import os
import resource
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_of(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, capture_output=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arr", default=os.path.join(ROOT, "target", "release", "arr"))
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    programs = {
        "lets": lambda n: "".join(f"let x{i} = {i}\n" for i in range(n)) + f"print(x{n - 1})\n",
        "sum terms": lambda n: "print(" + " + ".join(["1"] * n) + ")\n",
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in programs.items():
            for n in (10_000, 40_000):
                path = os.path.join(tmp, f"p{n}.arr")
                with open(path, "w") as f:
                    f.write(make(n))
                t = min(cpu_of([args.arr, "--backend", "cpu", "run", path]) for _ in range(args.runs))
                print(f"{name:10} N = {n:6}: {t * 1e3:7.1f} ms, {t / n * 1e6:6.2f} us each")


if __name__ == "__main__":
    main()
