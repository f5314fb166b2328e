#!/usr/bin/env python3
"""Half-float (f16, bf16) workloads on the GPU: Arr's native 16-bit kernels
against PyTorch eager, torch.compile and CuPy, in one run on one device.

    python3 bench/half.py --arr target/device/arr [--out DIR]

Arr's time per iteration is the sum of its looped kernels' medians from
`arr run --profile-json` (as bench/run.py reads them); each peer's is the best
of several CUDA-event-timed calls after a warm-up. Bytes count one read of
every input and one write of the output, so GB/s compares with the device's
copy bandwidth (measured here as a 16-bit torch copy of 2^28 elements).
A table is printed last; with --out, the raw rows go to DIR/half.json."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

ITERS = 20

# name: (Arr dtype, setup lines, loop body, torch function of the inputs, input shapes, output elements)
WORKLOADS = {
    "scale_f16": ("f16", ["let a = realize(randn([n], dtype=f16))"], "let d = a * 2 + 1",
                  lambda t, a: a * 2 + 1, [(1 << 28,)], 1 << 28),
    "fused_chain_f16": ("f16", [f"let {v} = realize(randn([n], dtype=f16))" for v in "abc"],
                        "let d = exp(a * b + c) - 0.5 * tanh(a)",
                        lambda t, a, b, c: t.exp(a * b + c) - 0.5 * t.tanh(a), [(1 << 26,)] * 3, 1 << 26),
    "fused_chain_bf16": ("bf16", [f"let {v} = realize(randn([n], dtype=bf16))" for v in "abc"],
                         "let d = exp(a * b + c) - 0.5 * tanh(a)",
                         lambda t, a, b, c: t.exp(a * b + c) - 0.5 * t.tanh(a), [(1 << 26,)] * 3, 1 << 26),
    "sum_all_f16": ("f16", ["let a = realize(randn([n], dtype=f16))"], "let d = sum(a)",
                    lambda t, a: a.sum(), [(1 << 28,)], 1),
    "sum_rows_bf16": ("bf16", ["let a = realize(randn([16384, 4096], dtype=bf16))"], "let d = sum(a, axis=1)",
                      lambda t, a: a.sum(1), [(16384, 4096)], 16384),
    "softmax_rows_f16": ("f16", ["let a = realize(randn([16384, 4096], dtype=f16))"],
                         "let e = exp(a - max(a, axis=1, keepdims=true))\n    let d = e / sum(e, axis=1, keepdims=true)",
                         lambda t, a: (lambda e: e / e.sum(1, keepdim=True))(t.exp(a - a.amax(1, keepdim=True))),
                         [(16384, 4096)], 16384 * 4096),
}


def arr_ms(arr, name):
    _, setup, body, _, shapes, _ = WORKLOADS[name]
    n = shapes[0][0]
    text = "\n".join([f"let n = {n}"] + setup + [f"for i in 0..{ITERS} {{\n    {body}\n}}"]) + "\n"
    wall, lines, out, err, rc = common.run_arr(arr, text, "cuda")
    if rc != 0:
        return None, err.strip()[-300:]
    ms, first, looped, _ = common.per_iteration(lines, ITERS)
    return ms, len(looped)


def timed(torch, f, reps=10):
    f()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        f()
        e.record()
        e.synchronize()
        best = min(best, s.elapsed_time(e))
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--arr", default=os.path.join(common.HERE, "..", "target", "device", "arr"))
    p.add_argument("--out")
    p.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    args = p.parse_args()
    import torch
    try:
        import cupy as cp
    except ImportError:
        cp = None
    dev = torch.cuda.get_device_name()
    x = torch.empty(1 << 28, dtype=torch.float16, device="cuda")
    y = torch.empty_like(x)
    copy_ms = timed(torch, lambda: y.copy_(x))
    ceiling = 2 * x.numel() * 2 / copy_ms / 1e6
    del x, y
    rows = []
    for name, (dt, _, _, fn, shapes, out_elems) in WORKLOADS.items():
        tdt = torch.float16 if dt == "f16" else torch.bfloat16
        ins = [torch.randn(*s, device="cuda").to(tdt) for s in shapes]
        nbytes = sum(t.numel() * 2 for t in ins) + out_elems * 2
        row = {"workload": name, "bytes": nbytes}
        row["torch_ms"] = timed(torch, lambda: fn(torch, *ins))
        if not args.no_compile:
            try:
                cf = torch.compile(lambda *a: fn(torch, *a))
                row["compile_ms"] = timed(torch, lambda: cf(*ins))
            except Exception as e:  # noqa: BLE001 - a peer that cannot run is noted, not fatal
                row["compile_error"] = str(e).splitlines()[0][:100]
        if cp is not None and dt == "f16":
            cins = [cp.asarray(t) for t in ins]
            cpfn = {"scale_f16": lambda a: a * 2 + 1,
                    "fused_chain_f16": lambda a, b, c: cp.exp(a * b + c) - cp.float16(0.5) * cp.tanh(a),
                    "sum_all_f16": lambda a: a.sum(),
                    "softmax_rows_f16": lambda a: (lambda e: e / e.sum(1, keepdims=True))(
                        cp.exp(a - a.max(1, keepdims=True)))}.get(name)
            if cpfn:
                row["cupy_ms"] = timed(torch, lambda: cpfn(*cins))
            del cins
        del ins
        torch.cuda.empty_cache()
        row["arr_ms"], row["arr_kernels"] = arr_ms(args.arr, name)  # kernels per iteration, or the error
        rows.append(row)
        print(json.dumps(row), flush=True)
    print(f"\ndevice {dev}, 16-bit copy ceiling {ceiling:.0f} GB/s\n")
    print("| workload | Arr ms | PyTorch ms | torch.compile ms | CuPy ms | Arr / best peer | Arr % ceiling |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        peers = [r[k] for k in ("torch_ms", "compile_ms", "cupy_ms") if isinstance(r.get(k), float)]
        a = r["arr_ms"]
        cell = lambda k: f"{r[k]:.3f}" if isinstance(r.get(k), float) else "-"
        if isinstance(a, float) and a > 0:
            ratio = f"{min(peers) / a:.2f}x" if peers else "-"
            pct = f"{r['bytes'] / a / 1e6 / ceiling * 100:.0f}%"
            arr_cell = f"{a:.3f}"
        else:
            ratio, pct, arr_cell = "-", "-", f"error: {r['arr_kernels']}"
        print(f"| {r['workload']} | {arr_cell} | {cell('torch_ms')} | {cell('compile_ms')} | {cell('cupy_ms')} | {ratio} | {pct} |")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "half.json"), "w") as f:
            json.dump({"device": dev, "ceiling_gbs": ceiling, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
