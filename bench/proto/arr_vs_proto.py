"""Times Arr's generated kernels (bench/proto/arr_src/*.cu, git-ignored: write them
here with `cargo test --release --test plan dump_issue4_sources -- --ignored` and
carry `bench/proto/arr_src` to the device) beside the prototype variants they came
from (segscan_proto.py), in one process with the same inputs and the same event
timing, to tell the kernel's code apart from how Arr's own harness times it."""

import os
import re
import sys

import cupy as cp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import segscan_proto as sp  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ceiling = sp.copy_ceiling()
    print(f"copy ceiling {ceiling:.0f} GB/s")
    rows = []

    def rec(case, name, ms, nbytes, err):
        gbs = nbytes / (ms * 1e-3) / 1e9
        rows.append((case, name, ms, gbs, 100 * gbs / ceiling, err))

    # ---- segsum ----
    rng = np.random.default_rng(0)
    nseg = 3_000_000
    lengths = rng.integers(1, 64, size=nseg)
    offs_h, n, vals, offs, ref, nbytes = sp.ragged_case(lengths)
    out = cp.empty(nseg, dtype=cp.float32)
    ts = sp.tile_starts(offs_h, 4096)
    tiles = len(ts) - 1
    tile_seg = cp.asarray(ts.astype(np.int64))
    tile_end = cp.asarray(offs_h[ts[1:]].astype(np.int64))
    lay = cp.asarray(np.concatenate([ts, offs_h[ts[1:]]]).astype(np.int64))
    err = lambda: sp.rel_err(out, ref)  # noqa: E731

    s3 = ["stream3<4096,64,64>", "stream3<2048,64,64>", "stream3<8192,64,64>"]
    proto = cp.RawModule(code=sp.SEG_SRC, options=("-std=c++17", "-arch=sm_90"),
                         name_expressions=["stream2<4096,64,1,256,64>"] + s3)
    fn = proto.get_function("stream2<4096,64,1,256,64>")
    go = lambda fn=fn: fn((tiles,), (256,), (vals, offs, tile_seg, tile_end, out, np.int32(n)))  # noqa: E731
    out.fill(np.nan)
    go()
    rec("segsum 3M of 1..63", "proto stream2<4096,64,1,256,64>", sp.median_ms(go), nbytes, err())
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    for name in s3:
        tt = int(name.split("<")[1].split(",")[0])
        tss = sp.tile_starts(offs_h, tt)
        ntiles = len(tss) - 1
        lay3 = cp.asarray(np.concatenate([tss, offs_h[tss[1:]]]).astype(np.int64))
        fn = proto.get_function(name)
        for per_sm in (3, 4, 6, 8):
            grid = min(ntiles, sms * per_sm)
            go = lambda fn=fn, grid=grid, lay3=lay3, ntiles=ntiles: fn(  # noqa: E731
                (grid,), (256,), (vals, offs, lay3, out, np.int32(n), np.int32(ntiles)))
            out.fill(np.nan)
            go()
            rec("segsum 3M of 1..63", f"proto {name} grid {per_sm}/SM", sp.median_ms(go), nbytes, err())
    src = open(os.path.join(HERE, "arr_src", "segsum.cu")).read()
    src = re.sub(r"\(IDX\)ARR_TILE, \(IDX\)\d+\)", f"(IDX)ARR_TILE, (IDX){n})", src)
    src = re.sub(r"lay\[\(IDX\)\d+ \+ 1 \+", f"lay[(IDX){tiles} + 1 +", src)
    for label, s in [("arr", src), ("arr, no vector loads", src.replace("#define ARR_VEC_PTR", "#define ARR_NO_VEC"))]:
        fn = cp.RawModule(code=s, options=("--std=c++17", "-arch=sm_90")).get_function("arr_main")
        go = lambda fn=fn: fn((tiles,), (256,), (out, out, vals, np.int64(0), offs, lay))  # noqa: E731
        out.fill(np.nan)
        go()
        rec("segsum 3M of 1..63", label, sp.median_ms(go), nbytes, err())
    # the same kernel with the GPU idle 20 ms before each run (as between Arr's realizes)
    import time
    fn = cp.RawModule(code=src, options=("--std=c++17", "-arch=sm_90")).get_function("arr_main")
    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(20):
        cp.cuda.Device().synchronize()
        time.sleep(0.02)
        e0.record()
        fn((tiles,), (256,), (out, out, vals, np.int64(0), offs, lay))
        e1.record()
        e1.synchronize()
        times.append(cp.cuda.get_elapsed_time(e0, e1))
    rec("segsum 3M of 1..63", "arr, 20 ms idle before each run", float(np.median(times)), nbytes, err())
    del vals, offs, out

    # ---- cumsum of 2^28 ----
    n = 1 << 28
    x = cp.random.random(n, dtype=cp.float32) - 0.5
    y = cp.empty_like(x)
    host = cp.asnumpy(x).astype(np.float64)
    ref = np.cumsum(host)

    def serr():
        o = cp.asnumpy(y).astype(np.float64)
        return float(np.max(np.abs(o - ref)) / max(1.0, np.max(np.abs(ref)))) if np.all(np.isfinite(o)) else float("inf")

    scan = cp.RawModule(code=sp.SCAN_SRC, options=("-std=c++17", "-arch=sm_90"),
                        name_expressions=["lookback<256,16,1>"])
    fn = scan.get_function("lookback<256,16,1>")
    tiles = n // 16384
    dummy_f = cp.zeros(tiles, dtype=cp.float32)
    flag = cp.zeros(tiles, dtype=cp.uint32)
    status = cp.zeros(tiles, dtype=cp.uint64)
    tickets = cp.zeros(100, dtype=cp.uint64)
    st = {"e": 0}

    def go_proto():
        st["e"] += 1
        fn((tiles,), (256,), (x, y, np.int64(n), dummy_f, dummy_f, flag, status, tickets[st["e"]:], np.uint32(st["e"])))

    y.fill(np.nan)
    go_proto()
    rec("cumsum 2^28", "proto lookback<256,16,1>", sp.median_ms(go_proto), 2 * n * 4, serr())
    arr_fn = cp.RawModule(code=open(os.path.join(HERE, "arr_src", "cumsum.cu")).read(),
                          options=("--std=c++17", "-arch=sm_90")).get_function("arr_main")
    go = lambda: arr_fn((tiles,), (256,), (y, y, x, np.int64(0)))  # noqa: E731
    y.fill(np.nan)
    go()
    rec("cumsum 2^28", "arr", sp.median_ms(go), 2 * n * 4, serr())
    y.fill(np.nan)
    go_proto()
    rec("cumsum 2^28", "proto lookback<256,16,1> again", sp.median_ms(go_proto), 2 * n * 4, serr())
    text = open(os.path.join(HERE, "arr_src", "cumsum.cu")).read()
    variants = {
        "arr, 64-bit IDX": text.replace("typedef int IDX;", "typedef long long IDX;"),
        "arr, float4 loads": text.replace("const Vec<float, 4> q = *reinterpret_cast<const Vec<float, 4>*>(src + j);",
                                          "const float4 f4 = *reinterpret_cast<const float4*>(src + j); "
                                          "Vec<float, 4> q; q.x[0] = f4.x; q.x[1] = f4.y; q.x[2] = f4.z; q.x[3] = f4.w;"),
        "arr, no ticket division": text.replace("(IDX)(ticket % (unsigned long long)16384)", "(IDX)(ticket & 16383ull)"),
    }
    for label, src2 in variants.items():
        f2 = cp.RawModule(code=src2, options=("--std=c++17", "-arch=sm_90")).get_function("arr_main")
        go = lambda f2=f2: f2((tiles,), (256,), (y, y, x, np.int64(0)))  # noqa: E731
        y.fill(np.nan)
        go()
        rec("cumsum 2^28", label, sp.median_ms(go), 2 * n * 4, serr())

    print("| case | kernel | ms | GB/s | % of copy | err |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]:.4f} | {r[3]:.0f} | {r[4]:.1f}% | {r[5]:.1e} |")


if __name__ == "__main__":
    main()
