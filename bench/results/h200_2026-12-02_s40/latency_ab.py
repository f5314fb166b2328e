"""Per-statement latency of two arr binaries on CUDA, interleaved in one run:
microseconds per `x = x + 1.0` on 1000 f32 in a loop (bench/run.py's
latency row: the wall time of 20000 iterations minus that of 2000, over the
18000 between), five rounds, each round running both binaries.

    python3 latency_ab.py BASE NEW
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

TEXT = """let x = realize(rand([1000]))
let iters = {n}
for i in 0..iters {{ x = x + 1.0 }}
print(sum(x))
"""


def wall(binary, n, env):
    path = os.path.join(tempfile.mkdtemp(), "s.arr")
    with open(path, "w") as f:
        f.write(TEXT.format(n=n))
    t = time.perf_counter()
    p = subprocess.run([binary, "--backend", "cuda", "run", path], capture_output=True, text=True, env=env)
    if p.returncode:
        raise SystemExit(p.stderr[-500:])
    return time.perf_counter() - t


def main():
    bins = sys.argv[1:]
    env = {**os.environ, "ARR_CACHE_DIR": tempfile.mkdtemp()}
    us = {b: [] for b in bins}
    for b in bins:
        wall(b, 2000, env)  # compile once
    for r in range(5):
        for b in bins:
            lo = min(wall(b, 2000, env) for _ in range(2))
            hi = min(wall(b, 20000, env) for _ in range(2))
            us[b].append((hi - lo) * 1e6 / 18000)
    for b in bins:
        print(f"{b}: per statement {statistics.median(us[b]):.2f} us (rounds {[round(x, 2) for x in us[b]]})")


if __name__ == "__main__":
    main()
