#!/usr/bin/env python3
"""Interleaved A/B of arr binaries on bench workloads (cpu.py's divisor 64). usage: ab.py N work1,work2 binA binB ..."""
import sys, os, statistics
sys.path.insert(0, "/work/wt-cpurows/bench")
import common
n = int(sys.argv[1]); works = sys.argv[2].split(","); bins = sys.argv[3:]
div = int(os.environ.get("DIV", "64")); iters = int(os.environ.get("ITERS", "35"))
for w in works:
    text = common.prepare(open(f"/work/wt-cpurows/bench/workloads/{w}.arr").read(), div, iters)
    res = {b: [] for b in bins}
    for _ in range(n):
        for b in bins:
            wall, lines, out, err, rc = common.run_arr(b, text, "cpu")
            if rc: print(b, err[-500:]); break
            ms, first, looped, summ = common.per_iteration(lines, iters)
            res[b].append(ms)
    print(w, "  ".join(f"{os.path.basename(os.path.dirname(b)) or b}:{os.path.basename(b)} med {statistics.median(v)*1e3:.1f}us min {min(v)*1e3:.1f}us" for b, v in res.items() if v), flush=True)
