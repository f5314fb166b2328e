#!/usr/bin/env python3
"""Where NVRTC time goes, per dumped Arr module: NVRTC front end (source -> PTX)
against the whole compile (source -> CUBIN, ptxas inside), for several option sets;
and the one-time cost of a process's first compile. Usage: nvrtc_probe.py DUMP_DIR..."""
import ctypes, glob, os, subprocess, sys, time, statistics

def find_lib():
    out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    cands = [l.split("=>")[-1].strip() for l in out.splitlines() if "libnvrtc.so" in l and "builtins" not in l]
    cands += glob.glob("/usr/local/cuda*/lib64/libnvrtc.so*") + glob.glob("/usr/local/cuda*/targets/*/lib/libnvrtc.so*")
    cands = sorted(set(cands), key=lambda p: ("13" not in p, p))
    return cands

libs = find_lib()
print("nvrtc candidates:", libs)
nv = ctypes.CDLL(libs[0])
maj, mnr = ctypes.c_int(), ctypes.c_int()
nv.nvrtcVersion(ctypes.byref(maj), ctypes.byref(mnr))
print("using", libs[0], "version", maj.value, mnr.value)

def compile_src(src, opts, want="cubin"):
    prog = ctypes.c_void_p()
    t0 = time.perf_counter()
    r = nv.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"arr.cu", 0, None, None)
    assert r == 0, r
    arr = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    r = nv.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    if r == 0:
        if want == "cubin":
            nv.nvrtcGetCUBINSize(prog, ctypes.byref(size))
        else:
            nv.nvrtcGetPTXSize(prog, ctypes.byref(size))
    dt = time.perf_counter() - t0
    if r != 0:
        ls = ctypes.c_size_t(); nv.nvrtcGetProgramLogSize(prog, ctypes.byref(ls))
        buf = ctypes.create_string_buffer(ls.value); nv.nvrtcGetProgramLog(prog, buf)
        log = buf.value.decode(errors="replace")[:300]
    else:
        log = ""
    nv.nvrtcDestroyProgram(ctypes.byref(prog))
    return dt, r, size.value, log

trivial = 'extern "C" __global__ void k(float* x) { x[threadIdx.x] += 1.0f; }'
t_first = compile_src(trivial, ["--gpu-architecture=sm_90", "-minimal"])[0]
t_second = compile_src(trivial, ["--gpu-architecture=sm_90", "-minimal"])[0]
print(f"first compile in this process (trivial kernel): {t_first*1e3:.1f} ms; second: {t_second*1e3:.1f} ms")

srcs = []
for d in sys.argv[1:]:
    for p in sorted(glob.glob(os.path.join(d, "*.cu"))):
        srcs.append((d, p, open(p).read()))
print(len(srcs), "sources")
base = ["--gpu-architecture=sm_90", "--std=c++17"]
variants = {
    "cubin -minimal": (base + ["-minimal"], "cubin"),
    "ptx only -minimal": (["--gpu-architecture=compute_90", "--std=c++17", "-minimal"], "ptx"),
    "cubin -minimal -Ofc=max": (base + ["-minimal", "--Ofast-compile=max"], "cubin"),
    "cubin -minimal -Ofc=mid": (base + ["-minimal", "--Ofast-compile=mid"], "cubin"),
    "cubin -minimal -Xptxas -O1": (base + ["-minimal", "--ptxas-options=-O1"], "cubin"),
    "cubin -minimal -dopt=off": (base + ["-minimal", "--dopt=off"], "cubin"),
}
# the prelude alone (first source's text up to its first extern "C")
pre = srcs[0][2].split('extern "C"')[0] if srcs else ""
for name, (opts, want) in variants.items():
    ts, bad, sizes = [], 0, []
    for d, p, s in srcs:
        dt, r, sz, log = compile_src(s, opts, want)
        if r != 0:
            bad += 1
            if bad == 1:
                print(f"  {name}: {os.path.basename(p)} failed rc {r}: {log}")
            continue
        ts.append(dt); sizes.append(sz)
    if ts:
        print(f"{name:32s} ok {len(ts):3d} bad {bad:2d}  sum {sum(ts):7.3f} s  mean {statistics.mean(ts)*1e3:6.1f} ms  "
              f"median {statistics.median(ts)*1e3:6.1f} ms  max {max(ts)*1e3:6.1f} ms  size {sum(sizes)//1024} KiB")
    else:
        print(f"{name:32s} all {bad} failed")
if pre:
    dt = [compile_src(pre + '\nextern "C" __global__ void arr_main(float* x) { x[threadIdx.x] += 1.0f; }',
                      base + ["-minimal"])[0] for _ in range(5)]
    print(f"prelude + trivial kernel: median {statistics.median(dt)*1e3:.1f} ms; trivial alone "
          f"{statistics.median([compile_src(trivial, base + ['-minimal'])[0] for _ in range(5)])*1e3:.1f} ms")
# per program: the slowest modules
per = {}
for d, p, s in srcs:
    dt = compile_src(s, base + ["-minimal"])[0]
    per.setdefault(d, []).append((dt, os.path.basename(p), s.splitlines()[0][:110]))
for d, xs in per.items():
    xs.sort(reverse=True)
    print(f"{os.path.basename(d)}: {len(xs)} modules, sum {sum(x[0] for x in xs):.3f} s; slowest:",
          "; ".join(f"{x[0]*1e3:.0f} ms {x[2]}" for x in xs[:3]))
