"""The device sort and mask-compaction kernels (kernels/sort.cu, compress.cu,
scan.cu) driven from CuPy exactly as src/backend/cuda/sort.rs drives them:
checks against NumPy and times against cupy.sort / cupy.argsort / x[mask],
with the device's copy bandwidth measured in the same run. A development
harness for the kernels alone; `bench/run.py` measures them through Arr.

    python3 bench/sort_kernels.py [--log 28] [--arr target/device/arr]

With --arr, the same sort, argsort and x[mask] also run through Arr (an
`.arr` script timing each statement with perf_counter, synchronised by
reading one element back; the first of 6 iterations, which compiles, is
left out), and torch.sort joins the peers.
"""
import argparse
import math
import pathlib
import subprocess
import tempfile
import time

import cupy as cp
import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
KERNELS = ROOT / "kernels"
SCAN = (KERNELS / "scan.cu").read_text()
THREADS = 256
SM = cp.cuda.Device().attributes["MultiProcessorCount"]
_modules = {}
PROFILE = {}


def launch(f, name, grid, block, args):
    """Launches `f`; with profiling on, adds its time to PROFILE[name]."""
    if not PROFILE.get("on"):
        f(grid, block, args)
        return
    s, e = cp.cuda.Event(), cp.cuda.Event()
    s.record()
    f(grid, block, args)
    e.record()
    e.synchronize()
    PROFILE[name] = PROFILE.get(name, 0.0) + cp.cuda.get_elapsed_time(s, e)


BLOCKS_PER_SM = 4


def module(kind, t):
    key = (kind, t)
    if key not in _modules:
        body = (KERNELS / f"{kind}.cu").read_text().replace("@T@" if kind == "sort" else "@E@", t)
        _modules[key] = cp.RawModule(code=SCAN + "\n" + body, options=("--std=c++17",))
        if kind == "sort":
            # all of the SM's memory for shared memory (the driver's default carve-out fits fewer blocks)
            _modules[key].get_function("sort_downsweep").preferred_shared_memory_carveout = 100
    return _modules[key]


CTYPE = {np.float32: "float", np.float64: "double", np.int32: "int", np.int64: "long long"}


def device_sort(x, rows=1, argsort=False):
    """Sorts each of `rows` equal rows of the flat `x` (stable)."""
    t = CTYPE[x.dtype.type]
    m = module("sort", t)
    n = x.size
    row_len = n // rows
    kbytes = x.dtype.itemsize
    items = 16 if kbytes == 4 else 8
    tile = THREADS * items
    canon = 1 if argsort else 0
    passes = [(False, 8 * p) for p in range(kbytes)]
    if rows > 1:
        passes += [(True, 8 * r) for r in range(math.ceil((rows - 1).bit_length() / 8))]
    payload = argsort or rows > 1
    ntiles = math.ceil(n / tile)
    nblocks = min(ntiles, SM * BLOCKS_PER_SM)
    tpb = math.ceil(ntiles / nblocks)
    nblocks = math.ceil(ntiles / tpb)
    kdt = cp.uint32 if kbytes == 4 else cp.uint64
    keys = [cp.empty(n, kdt), cp.empty(n, kdt)]
    pay = [cp.empty(n, cp.uint32), cp.empty(n, cp.uint32)] if payload else [keys[0], keys[0]]
    result = cp.empty(n, cp.int64 if argsort else x.dtype)
    offs = cp.empty(256 * nblocks + 1, cp.uint32)
    up, scan, down = (m.get_function(f) for f in ("arr_main", "offsets_scan", "sort_downsweep"))
    trivial = cp.zeros(1, cp.uint32)
    ran = 0
    for i, (row, shift) in enumerate(passes):
        last = i == len(passes) - 1
        flags = (1 if ran == 0 else 0) | (2 if last else 0) | (4 if payload else 0)
        flags |= (8 if row else 0) | (16 if argsort else 0) | (32 if canon else 0)
        src, dst = ran % 2, (ran + 1) % 2
        launch(up, "upsweep", (nblocks,), (THREADS,), (x, keys[src], pay[src], np.int64(n), np.int64(tpb), np.int64(shift),
                                                       np.int64(row_len), offs, np.int64(nblocks), np.int64(flags)))
        trivial[0] = 0
        launch(scan, "scan", (1,), (1024,), (offs, np.int64(256 * nblocks), np.int64(nblocks), trivial))
        if not last and int(trivial.get()[0]):
            continue
        launch(down, "downsweep", (nblocks,), (THREADS,), (x, keys[src], pay[src], keys[dst], pay[dst], result, np.int64(n),
                                                            np.int64(tpb), np.int64(shift), np.int64(row_len), offs,
                                                            np.int64(nblocks), np.int64(flags)))
        ran += 1
    return result, ran


ETYPE = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}


def device_compress(x, mask, indices=False):
    n = mask.size
    m = module("compress", "long long" if indices else ETYPE[x.dtype.itemsize])
    tile = THREADS * 16
    ntiles = max(1, math.ceil(n / tile))
    nblocks = min(ntiles, SM * 8)
    tpb = math.ceil(ntiles / nblocks)
    nblocks = math.ceil(ntiles / tpb)
    offs = cp.empty(nblocks + 1, cp.uint32)
    launch(m.get_function("arr_main"), "mask count", (nblocks,), (THREADS,), (mask, np.int64(n), np.int64(tpb), offs))
    launch(m.get_function("offsets_scan"), "mask scan", (1,), (1024,), (offs, np.int64(nblocks), np.int64(0), np.uint64(0)))
    count = int(offs[nblocks].get())
    out = cp.empty(count, cp.int64 if indices else x.dtype)
    launch(m.get_function("compress_scatter"), "mask scatter", (nblocks,), (THREADS,), (x if not indices else out, mask, np.int64(n),
                                                                  np.int64(tpb), offs, out, np.int64(indices)))
    return out


ARR_SCRIPT = """
let n = {n}
let x = rand([n])
let m = rand([n]) < 0.5
realize(x)
realize(m)
for i in 0..6 {{
    let t0 = perf_counter()
    let y = sort(x)
    if y[n - 1] > 2.0 {{ print("unreachable") }}
    let t1 = perf_counter()
    let a = argsort(x)
    if a[0] < 0 {{ print("unreachable") }}
    let t2 = perf_counter()
    let s = x[m]
    if s[0] > 2.0 {{ print("unreachable") }}
    let t3 = perf_counter()
    print(f"times {{i}} {{(t1 - t0) * 1000.0}} {{(t2 - t1) * 1000.0}} {{(t3 - t2) * 1000.0}}")
}}
"""


def arr_times(arr, n):
    """Arr's best sort, argsort and x[mask] ms over iterations 1..5 of ARR_SCRIPT."""
    with tempfile.NamedTemporaryFile("w", suffix=".arr", delete=False) as f:
        f.write(ARR_SCRIPT.format(n=n))
    p = subprocess.run([arr, "--backend", "cuda", "run", f.name], capture_output=True, text=True)
    if p.returncode != 0:
        print("arr failed:", p.stdout[-2000:], p.stderr[-2000:])
        return None
    rows = [l.split()[1:] for l in p.stdout.splitlines() if l.startswith("times ")]
    return [min(float(r[k]) for r in rows if int(r[0]) > 0) for k in (1, 2, 3)]


def timed(f, reps=5):
    f()
    cp.cuda.Device().synchronize()
    best = float("inf")
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        f()
        e.record()
        e.synchronize()
        best = min(best, cp.cuda.get_elapsed_time(s, e))
    return best


def check(name, ok):
    print(f"{'ok  ' if ok else 'FAIL'} {name}")
    return ok


def checks():
    rng = np.random.default_rng(1)
    good = True
    special = np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 1.0, -1.0, np.nan, 0.0, -0.0], np.float32)
    for dt in (np.float32, np.float64, np.int32, np.int64):
        for n in (1, 7, 4095, 4097, 100_003, 1 << 20):
            if dt in (np.float32, np.float64):
                h = rng.standard_normal(n).astype(dt)
                h[rng.integers(0, n, n // 10 + 1)] = 0.5  # ties
                if n > 20:
                    h[:10] = special.astype(dt)
            else:
                h = rng.integers(-1000, 1000, n).astype(dt)
            x = cp.asarray(h)
            s, _ = device_sort(x)
            ref = np.sort(h, kind="stable")
            good &= check(f"sort {dt.__name__} n={n}", np.array_equal(s.get(), ref, equal_nan=True))
            a, _ = device_sort(x, argsort=True)
            good &= check(f"argsort {dt.__name__} n={n}", np.array_equal(a.get(), np.argsort(h, kind="stable")))
        for rows, cols in ((3, 5), (1000, 1000), (300, 70000), (70000, 3)):
            h = rng.integers(0, 50, rows * cols).astype(dt)
            x = cp.asarray(h)
            s, _ = device_sort(x, rows=rows)
            good &= check(f"sort rows {dt.__name__} {rows}x{cols}",
                          np.array_equal(s.get(), np.sort(h.reshape(rows, cols), axis=1, kind="stable").ravel()))
            a, _ = device_sort(x, rows=rows, argsort=True)
            good &= check(f"argsort rows {dt.__name__} {rows}x{cols}",
                          np.array_equal(a.get(), np.argsort(h.reshape(rows, cols), axis=1, kind="stable").ravel()))
    big = np.arange(1 << 20, dtype=np.int64) * 3 + (1 << 40)
    rng.shuffle(big)
    s, npass = device_sort(cp.asarray(big))
    good &= check(f"i64 with constant high bytes ({npass} of 8 passes)", np.array_equal(s.get(), np.sort(big)) and npass < 8)
    for dt in (np.bool_, np.float16, np.float32, np.float64, np.int64):
        for n in (0, 1, 15, 4097, 1_000_003):
            h = (rng.standard_normal(n) * 10).astype(dt)
            mk = rng.random(n) < 0.3
            out = device_compress(cp.asarray(h), cp.asarray(mk))
            good &= check(f"compress {dt.__name__} n={n}", np.array_equal(out.get(), h[mk]))
            idx = device_compress(None, cp.asarray(mk), indices=True)
            good &= check(f"mask positions n={n}", np.array_equal(idx.get(), np.flatnonzero(mk)))
    unaligned = cp.asarray(rng.random(100_001) < 0.5)[3:]
    vals = cp.asarray(rng.standard_normal(100_001).astype(np.float32))[3:]
    good &= check("compress of unaligned views", np.array_equal(device_compress(vals, unaligned).get(), vals.get()[unaligned.get()]))
    return good


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--log", type=int, default=28)
    p.add_argument("--arr", help="an arr binary: time the same operations through Arr")
    p.add_argument("--once", action="store_true", help="one f32 sort and nothing else (for a profiler)")
    args = p.parse_args()
    print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), f"SMs={SM}")
    for t in ("float", "double"):
        for f in ("arr_main", "sort_downsweep"):
            k = module("sort", t).get_function(f)
            print(f"{t} {f}: {k.num_regs} registers, {k.shared_size_bytes} B shared, {k.local_size_bytes} B local")
    if args.once:
        xv = cp.random.default_rng(3).random(1 << args.log, dtype=cp.float32)
        device_sort(xv)
        cp.cuda.Device().synchronize()
        return
    t = time.time()
    good = checks()
    print(f"checks {'passed' if good else 'FAILED'} in {time.time() - t:.1f} s")
    n = 1 << args.log
    rng = cp.random.default_rng(7)
    rows = []
    x = rng.random(n, dtype=cp.float32)
    y = cp.empty_like(x)
    copy_ms = timed(lambda: y.__setitem__(slice(None), x))
    copy_gbs = 2 * x.nbytes / copy_ms / 1e6
    rows.append(("copy f32", copy_ms, None, f"{copy_gbs:.0f} GB/s"))
    for dt in (cp.float32, cp.float64, cp.int64):
        xs = x.astype(dt) if dt != cp.int64 else rng.integers(0, 1 << 40, n, dtype=cp.int64)
        arr = timed(lambda: device_sort(xs))
        peer = timed(lambda: cp.sort(xs))
        rows.append((f"sort {cp.dtype(dt).name} 2^{args.log}", arr, peer, f"{peer / arr:.2f}x cupy"))
    arr = timed(lambda: device_sort(x, argsort=True))
    peer = timed(lambda: cp.argsort(x))
    rows.append((f"argsort f32 2^{args.log}", arr, peer, f"{peer / arr:.2f}x cupy"))
    r = 1 << (args.log // 2)
    arr = timed(lambda: device_sort(x, rows=r))
    peer = timed(lambda: cp.sort(x.reshape(r, -1), axis=1))
    rows.append((f"sort rows {r}x{n // r} f32", arr, peer, f"{peer / arr:.2f}x cupy"))
    mk = rng.random(n) < 0.5
    arr = timed(lambda: device_compress(x, mk))
    peer = timed(lambda: x[mk])
    sel = int(mk.sum())
    moved = x.nbytes + mk.nbytes + sel * 4
    rows.append((f"x[mask] f32 2^{args.log} (50%)", arr, peer,
                 f"{peer / arr:.2f}x cupy, {moved / arr / 1e6 / copy_gbs:.0%} of copy"))
    if args.arr:
        import torch
        xt = torch.as_tensor(x, device="cuda")
        mt = torch.as_tensor(mk, device="cuda")
        torch_ms = [timed(lambda: torch.sort(xt, stable=True)), timed(lambda: torch.argsort(xt, stable=True)),
                    timed(lambda: xt[mt])]
        got = arr_times(args.arr, n)
        names = [f"sort f32 2^{args.log}", f"argsort f32 2^{args.log}", f"x[mask] f32 2^{args.log} (50%)"]
        cupy_ms = [timed(lambda: cp.sort(x)), timed(lambda: cp.argsort(x)), timed(lambda: x[mk])]
        for k, name in enumerate(names):
            if got is None:
                break
            note = f"{cupy_ms[k] / got[k]:.2f}x cupy, {torch_ms[k] / got[k]:.2f}x torch"
            if k == 2:
                note += f", {moved / got[k] / 1e6 / copy_gbs:.0%} of copy"
            rows.append((f"arr: {name}", got[k], cupy_ms[k], note + f" (torch {torch_ms[k]:.3f} ms)"))
    PROFILE["on"] = True
    device_sort(x)
    device_compress(x, mk)
    print("per kernel, one f32 sort and one x[mask]:",
          ", ".join(f"{k} {v:.3f} ms" for k, v in PROFILE.items() if k != "on"))
    print(f"{'workload':<28} {'arr ms':>9} {'peer ms':>9}  note")
    for name, a, b, note in rows:
        print(f"{name:<28} {a:9.3f} {'' if b is None else f'{b:9.3f}':>9}  {note}")


if __name__ == "__main__":
    main()
