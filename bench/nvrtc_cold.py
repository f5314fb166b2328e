#!/usr/bin/env python3
"""Why a process's NVRTC compiles are slow at first: compiles Arr's dumped modules
(`ARR_DUMP_DIR`) in a fresh process, in the order they were written, and prints each
compile's time with the page faults it took (getrusage), so that a warm-up cost shows
as a falling curve. With --threads N the modules are compiled N at a time, either on
N threads kept for the whole run or (--fresh-threads) on new threads for each batch,
as a realize that compiles its modules on scoped threads does.

Run it once per setting, each in its own process, e.g. with and without
GLIBC_TUNABLES, to compare the curves.

Usage: nvrtc_cold.py [--threads N] [--fresh-threads] [--thread-init] [--opts "..."] DUMP_DIR..."""
import argparse
import concurrent.futures
import ctypes
import glob
import os
import resource
import statistics
import subprocess
import threading
import time


def load_nvrtc():
    if os.environ.get("NVRTC_LIB"):
        return os.environ["NVRTC_LIB"], ctypes.CDLL(os.environ["NVRTC_LIB"])
    out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    cands = [l.split("=>")[-1].strip() for l in out.splitlines() if "libnvrtc.so" in l and "builtins" not in l]
    cands += glob.glob("/usr/local/cuda*/lib64/libnvrtc.so*")
    for c in sorted(set(cands)):
        try:
            return c, ctypes.CDLL(c)
        except OSError:
            continue
    raise SystemExit("no libnvrtc found")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--fresh-threads", action="store_true")
    ap.add_argument("--cuda", action="store_true", help="create a CUDA context first")
    ap.add_argument("--thread-init", action="store_true", help="time a trivial compile on new threads too")
    ap.add_argument("--opts", default="--gpu-architecture=sm_90 --std=c++17 -minimal")
    args = ap.parse_args()
    if args.cuda:
        # a CUDA context in the process, as Arr has while it compiles
        cu = ctypes.CDLL("libcuda.so.1")
        dev, ctx, ptr = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_uint64()
        assert cu.cuInit(0) == 0 and cu.cuDeviceGet(ctypes.byref(dev), 0) == 0
        assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0 and cu.cuCtxSetCurrent(ctx) == 0
        assert cu.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(1 << 20)) == 0
        print("CUDA context created")
    path, nv = load_nvrtc()
    opts = args.opts.split()

    def compile_one(src):
        prog = ctypes.c_void_p()
        t0 = time.perf_counter()
        assert nv.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"arr.cu", 0, None, None) == 0
        arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
        rc = nv.nvrtcCompileProgram(prog, len(opts), arr)
        size = ctypes.c_size_t()
        if rc == 0:
            nv.nvrtcGetCUBINSize(prog, ctypes.byref(size))
        nv.nvrtcDestroyProgram(ctypes.byref(prog))
        return time.perf_counter() - t0, rc

    def faults():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_minflt + r.ru_majflt

    srcs = []
    for d in args.dirs:
        for p in sorted(glob.glob(os.path.join(d, "*.cu")), key=os.path.getmtime):
            srcs.append(open(p).read())
    print(f"{path}; {len(srcs)} modules; threads {args.threads}{' (fresh per batch)' if args.fresh_threads else ''}; "
          f"GLIBC_TUNABLES={os.environ.get('GLIBC_TUNABLES', '')!r}")
    trivial = 'extern "C" __global__ void k(float* x) { x[threadIdx.x] += 1.0f; }'
    f0 = faults()
    t, _ = compile_one(trivial)
    print(f"first (trivial) compile: {t * 1e3:.1f} ms, {faults() - f0} page faults")
    if args.thread_init:
        # is the first compile's cost the process's or each thread's?
        got = []
        for _ in range(2):
            th = threading.Thread(target=lambda: got.append(compile_one(trivial)[0]))
            th.start()
            th.join()
        print(f"then on this thread {compile_one(trivial)[0] * 1e3:.1f} ms; on two new threads "
              + ", ".join(f"{g * 1e3:.1f} ms" for g in got))

    times, bad = [], 0
    wall0 = time.perf_counter()
    f_all = faults()
    if args.threads == 1:
        for s in srcs:
            f0 = faults()
            t, rc = compile_one(s)
            bad += rc != 0
            times.append((t, faults() - f0))
    else:
        results = [None] * len(srcs)

        def work(indices):
            for i in indices:
                results[i] = compile_one(srcs[i])

        batches = [list(range(b, min(b + args.threads, len(srcs)))) for b in range(0, len(srcs), args.threads)]
        if args.fresh_threads:
            for batch in batches:
                ths = [threading.Thread(target=work, args=([i],)) for i in batch]
                for th in ths:
                    th.start()
                for th in ths:
                    th.join()
        else:
            # the same N threads serve every batch
            with concurrent.futures.ThreadPoolExecutor(args.threads) as pool:
                for batch in batches:
                    list(pool.map(lambda i: work([i]), batch))
        times = [(r[0], 0) for r in results]
        bad = sum(r[1] != 0 for r in results)
    wall = time.perf_counter() - wall0
    ts = [t for t, _ in times]
    print(f"modules: wall {wall:.3f} s, sum {sum(ts):.3f} s, mean {statistics.mean(ts) * 1e3:.1f} ms, "
          f"failed {bad}, page faults {faults() - f_all}")
    r = resource.getrusage(resource.RUSAGE_SELF)
    print(f"process so far: {r.ru_utime:.2f} s user, {r.ru_stime:.2f} s sys")
    tenth = max(1, len(times) // 10)
    for k in range(0, len(times), tenth):
        part = times[k:k + tenth]
        print(f"  modules {k:3d}-{k + len(part) - 1:3d}: mean {statistics.mean(t for t, _ in part) * 1e3:6.1f} ms, "
              f"faults {statistics.mean(f for _, f in part):8.0f} a module")


if __name__ == "__main__":
    main()
