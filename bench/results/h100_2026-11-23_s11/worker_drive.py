#!/usr/bin/env python3
"""Drives `arr nvrtc-worker` directly with Arr's dumped modules: the time of each compile
as the worker sees it, to compare with bench/nvrtc_cold.py in a Python process.
Usage: worker_drive.py ARR DUMP_DIR..."""
import glob, os, statistics, struct, subprocess, sys, time
arr, dirs = sys.argv[1], sys.argv[2:]
srcs = [open(p).read() for d in dirs for p in sorted(glob.glob(os.path.join(d, "*.cu")), key=os.path.getmtime)]
opts = ["--gpu-architecture=sm_90", "--std=c++17", "-minimal"]
t0 = time.perf_counter()
p = subprocess.Popen([arr, "nvrtc-worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def req(src):
    b = struct.pack("<I", len(opts)) + b"".join(struct.pack("<I", len(o)) + o.encode() for o in opts)
    b += struct.pack("<Q", len(src)) + src.encode()
    p.stdin.write(b); p.stdin.flush()
    st = p.stdout.read(1)[0]; n = struct.unpack("<Q", p.stdout.read(8))[0]; p.stdout.read(n)
    return st
times = []
for i, s in enumerate(srcs):
    t = time.perf_counter(); st = req(s); times.append(time.perf_counter() - t)
    if i == 0:
        print(f"first module answered {times[0]*1e3:.1f} ms after the request, {(time.perf_counter()-t0)*1e3:.0f} ms after spawn (status {st})")
rss = next((l.split()[1] for l in open(f"/proc/{p.pid}/status") if l.startswith("VmRSS")), "?")
hwm = next((l.split()[1] for l in open(f"/proc/{p.pid}/status") if l.startswith("VmHWM")), "?")
print(f"worker memory after the compiles: VmRSS {int(rss)//1024} MiB, peak {int(hwm)//1024} MiB")
p.stdin.close(); p.wait()
print(f"worker {os.environ.get('GLIBC_TUNABLES', '')!r}: {len(srcs)} modules, mean {statistics.mean(times[1:])*1e3:.1f} ms, "
      f"median {statistics.median(times[1:])*1e3:.1f} ms, sum {sum(times):.3f} s")
