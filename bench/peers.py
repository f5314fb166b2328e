#!/usr/bin/env python3
"""Measure Arr's peers (PyTorch eager, torch.compile, CuPy) on Arr's benchmark workloads.

Runs on a CUDA machine with PyTorch (and Triton, for torch.compile) and, optionally,
CuPy. Prints one JSON object per line on stdout and nothing else there; progress and
library chatter go to stderr. Rules (see /work/shared/ANCHORS.md): float32, fresh
random inputs from torch.rand with a fixed seed, warm-up runs excluded, then timed runs
each bracketed by CUDA events, median reported. Effective bandwidth
GB/s = (bytes of every input read once + bytes of the output written) / median time.

    python3 bench/peers.py                       # every workload, full sizes
    python3 bench/peers.py --quick               # smoke test, sizes / 16
    python3 bench/peers.py --only sum_all,matmul # a selection

First line:  {"device", "torch", "cupy", "triton", "quick", "warmup", "runs", "compile_cache"}
Then, per workload and peer (torch, torch_compile, cupy):
    {"workload", "peer", "size", "ms", "gb_s", "bytes",
     "compile_s" (torch_compile only), "tflops" (matmul only),
     "method" (segsum_ragged only), "err", "note"}
or, where the peer cannot run it: {"workload", "peer", "size", "error"}.
"err" is max|out - eager| / max|eager|, a sanity check against PyTorch eager.
"""

import argparse
import gc
import json
import math
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable, List, Optional

F32 = 4  # bytes per float32
PEERS = ("torch", "torch_compile", "cupy")

# Filled in by load_libraries() once the environment variables are set.
torch = None
cp = None
np = None
_gen = None


# ---------------------------------------------------------------------------
# Workload definitions
# ---------------------------------------------------------------------------

@dataclass
class Case:
    """One workload instance: the inputs, what each peer runs on them, and the bytes moved."""
    desc: str                           # human-readable sizes, copied into every line
    inputs: List["torch.Tensor"]        # fed to torch_fn (eager and compiled)
    torch_fn: Callable
    nbytes: int                         # inputs read once + output written
    cupy_fn: Optional[Callable] = None  # None: CuPy has no counterpart (see cupy_skip)
    cupy_inputs: Optional[list] = None  # torch tensors, shared zero-copy; default: inputs
    cupy_skip: str = "no CuPy counterpart"
    flops: Optional[int] = None         # reported as TFLOP/s when set
    bandwidth: bool = True              # False: gb_s is null
    note: str = ""
    cupy_note: str = ""
    method: Optional[str] = None


WORKLOADS = {}


def workload(name):
    def register(builder):
        WORKLOADS[name] = builder
        return builder
    return register


def rand(*shape):
    return torch.rand(shape, generator=_gen, device="cuda", dtype=torch.float32)


def tensor_bytes(*tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


def add(a, b):
    return a + b


def broadcast_add(shape_a, shape_b):
    a, b = rand(*shape_a), rand(*shape_b)
    out = math.prod(torch.broadcast_shapes(shape_a, shape_b))
    return Case(desc=f"{shape_a} + {shape_b}", inputs=[a, b], torch_fn=add, cupy_fn=add,
                nbytes=tensor_bytes(a, b) + F32 * out)


def reduction(shape, axis, op="sum"):
    """x.sum(axis) / x.cumsum(axis): the same method call in PyTorch and CuPy."""
    x = rand(*shape)
    if axis is None:
        fn = lambda x: x.sum()  # noqa: E731
        out = 1
    elif op == "sum":
        fn = lambda x: x.sum(axis)  # noqa: E731
        out = x.numel() // shape[axis]
    else:
        fn = lambda x: x.cumsum(axis)  # noqa: E731
        out = x.numel()
    return Case(desc=f"{op} axis={axis} of {shape}", inputs=[x], torch_fn=fn, cupy_fn=fn,
                nbytes=tensor_bytes(x) + F32 * out)


# In every builder, q is 1 or 16 (--quick): the largest dimension is divided by q,
# so the element count drops by 16 and the shape's character (row length) stays.

@workload("copy")
def copy(q):
    n = 2**28 // q
    src, dst = rand(n), rand(n)

    def torch_copy(s, d):
        return d.copy_(s)

    def cupy_copy(s, d):
        cp.copyto(d, s)
        return d

    return Case(desc=f"copy {n}", inputs=[src, dst], torch_fn=torch_copy, cupy_fn=cupy_copy,
                nbytes=2 * F32 * n, note="ceiling")


@workload("add_row")
def add_row(q):
    return broadcast_add((16384 // q, 16384), (16384,))


@workload("add_col")
def add_col(q):
    return broadcast_add((16384 // q, 16384), (16384 // q, 1))


@workload("add_outer")
def add_outer(q):
    return broadcast_add((16384 // q, 1), (1, 16384))


@workload("add_rank3")
def add_rank3(q):
    return broadcast_add((256 // q, 256, 256), (256 // q, 1, 256))


@workload("fused_chain")
def fused_chain(q):
    n = 2**26 // q
    a, b, c = rand(n), rand(n), rand(n)
    return Case(desc=f"exp(a*b+c) - 0.5*tanh(a), {n} each", inputs=[a, b, c],
                torch_fn=lambda a, b, c: torch.exp(a * b + c) - 0.5 * torch.tanh(a),
                cupy_fn=lambda a, b, c: cp.exp(a * b + c) - 0.5 * cp.tanh(a),
                nbytes=4 * F32 * n)


@workload("sum_all")
def sum_all(q):
    return reduction((2**28 // q,), None)


@workload("sum_axis1")
def sum_axis1(q):
    return reduction((16384 // q, 16384), 1)


@workload("sum_axis0")
def sum_axis0(q):
    return reduction((16384 // q, 16384), 0)


@workload("sum_tiny_rows")
def sum_tiny_rows(q):
    return reduction((2**24 // q, 8), 1)


@workload("sum_short_rows")
def sum_short_rows(q):
    return reduction((2**22 // q, 32), 1)


@workload("sum_medium_rows")
def sum_medium_rows(q):
    return reduction((2**18 // q, 1024), 1)


@workload("sum_long_rows")
def sum_long_rows(q):
    return reduction((64, 2**22 // q), 1)


def rows_case(q, torch_fn, cupy_fn, extra_inputs=(), per_row=False):
    """A row normalisation of (2^15, 4096): x (and `extra_inputs` of one row each) read once, the output written."""
    x = rand(2**15 // q, 4096)
    extra = [rand(4096) for _ in extra_inputs]
    out_bytes = x.shape[0] * F32 if per_row else x.numel() * F32
    return Case(f"{x.shape[0]}x4096 f32", [x] + extra, torch_fn, tensor_bytes(x, *extra) + out_bytes, cupy_fn)


@workload("softmax_rows")
def softmax_rows(q):
    def cupy_softmax(x):
        e = cp.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    return rows_case(q, lambda x: torch.softmax(x, dim=1), cupy_softmax)


@workload("log_softmax_rows")
def log_softmax_rows(q):
    def cupy_log_softmax(x):
        m = x.max(axis=1, keepdims=True)
        return x - (cp.log(cp.exp(x - m).sum(axis=1, keepdims=True)) + m)
    return rows_case(q, lambda x: torch.log_softmax(x, dim=1), cupy_log_softmax)


@workload("layer_norm_rows")
def layer_norm_rows(q):
    def torch_ln(x, g, b):
        return torch.nn.functional.layer_norm(x, (x.shape[1],), g, b, eps=1e-5)

    def cupy_ln(x, g, b):
        m = x.mean(axis=1, keepdims=True)
        d = x - m
        return d / cp.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-5) * g + b
    return rows_case(q, torch_ln, cupy_ln, extra_inputs=("g", "b"))


@workload("var_rows")
def var_rows(q):
    return rows_case(q, lambda x: x.var(dim=1, unbiased=False), lambda x: x.var(axis=1), per_row=True)


@workload("mean_var_rows")
def mean_var_rows(q):
    # both results written: two values per row
    x = rand(2**15 // q, 4096)
    return Case(f"{x.shape[0]}x4096 f32", [x], lambda x: torch.var_mean(x, dim=1, unbiased=False),
                tensor_bytes(x) + 2 * x.shape[0] * F32, lambda x: (x.mean(axis=1), x.var(axis=1)))


@workload("transpose_add")
def transpose_add(q):
    n = 16384 // q
    a = rand(n, n)
    # a is read once (both operands are a), the output written once
    return Case(f"transpose(a) + a of ({n},{n})", [a], lambda a: a.t() + a, 2 * F32 * n * n,
                lambda a: a.T + a)


@workload("transpose_add_other")
def transpose_add_other(q):
    n = 16384 // q
    a, b = rand(n, n), rand(n, n)
    return Case(f"transpose(b) + a of ({n},{n})", [a, b], lambda a, b: b.t() + a, 3 * F32 * n * n,
                lambda a, b: b.T + a)


@workload("permute_add_rank3")
def permute_add_rank3(q):
    d0 = 256 // q
    a, b = rand(d0, 1024, 1024), rand(d0, 1024, 1024)
    return Case(f"permute(b, (0, 2, 1)) + a of ({d0},1024,1024)", [a, b],
                lambda a, b: b.permute(0, 2, 1) + a, 3 * F32 * d0 * 1024 * 1024,
                lambda a, b: b.transpose(0, 2, 1) + a)


@workload("sum_middle")
def sum_middle(q):
    return reduction((64, 4096 // q, 64), 1)


@workload("segsum_ragged")
def segsum_ragged(q):
    nseg = 3_000_000 // q
    lengths_np = np.random.default_rng(0).integers(1, 64, size=nseg, dtype=np.int64)  # 1..63
    lengths = torch.from_numpy(lengths_np).cuda()
    values = rand(int(lengths_np.sum()))
    offsets = torch.cumsum(lengths, 0) - lengths  # segment starts, for reduceat
    nbytes = tensor_bytes(values, lengths) + F32 * nseg
    desc = f"{nseg} segments of 1..63, {values.numel()} values"
    cupy_fn = lambda v, starts: cp.add.reduceat(v, starts)  # noqa: E731
    cupy_note = "cupy.add.reduceat on int64 offsets (same bytes as lengths)"

    if hasattr(torch, "segment_reduce"):
        return Case(desc=desc, inputs=[values, lengths], nbytes=nbytes,
                    torch_fn=lambda v, lens: torch.segment_reduce(v, "sum", lengths=lens),
                    method="segment_reduce", cupy_fn=cupy_fn, cupy_inputs=[values, offsets],
                    cupy_note=cupy_note)

    segment_ids = torch.repeat_interleave(torch.arange(nseg, device="cuda"), lengths)

    def index_add(v, ids):
        return torch.zeros(nseg, device="cuda", dtype=v.dtype).index_add_(0, ids, v)

    return Case(desc=desc, inputs=[values, segment_ids], nbytes=nbytes, torch_fn=index_add,
                method="index_add_", cupy_fn=cupy_fn, cupy_inputs=[values, offsets],
                cupy_note=cupy_note,
                note="torch.segment_reduce missing: index_add_ on precomputed segment ids "
                     "(bytes still counted as values + lengths + output)")


@workload("cumsum_rows")
def cumsum_rows(q):
    return reduction((16384 // q, 16384), 1, op="cumsum")


@workload("cumsum_all")
def cumsum_all(q):
    return reduction((2**28 // q,), 0, op="cumsum")


@workload("nbody_stream")
def nbody_stream(q):
    n = 16384 // q
    a, b = rand(n), rand(n)
    fn = lambda a, b: ((a[:, None] - b[None, :]) ** 2).sum(1)  # noqa: E731
    return Case(desc=f"sum_j (a_i - b_j)^2, n={n}", inputs=[a, b], torch_fn=fn, cupy_fn=fn,
                nbytes=3 * F32 * n, note="time is what matters; gb_s counts a, b, out only")


@workload("matmul")
def matmul(q):
    n = 8192 // q
    a, b = rand(n, n), rand(n, n)
    fn = lambda a, b: a @ b  # noqa: E731
    return Case(desc=f"({n},{n}) @ ({n},{n})", inputs=[a, b], torch_fn=fn, cupy_fn=fn,
                nbytes=3 * F32 * n * n, flops=2 * n**3, bandwidth=False,
                note="TF32 off: torch.backends.cuda.matmul.allow_tf32=False, CUPY_TF32=0")


@workload("bmm")
def bmm(q):
    b = 512 // q
    x, y = rand(b, 64, 64), rand(b, 64, 64)
    fn = lambda x, y: x @ y  # noqa: E731
    return Case(desc=f"({b},64,64) @ ({b},64,64)", inputs=[x, y], torch_fn=fn, cupy_fn=fn,
                nbytes=3 * F32 * b * 64 * 64, flops=2 * b * 64**3,
                note="torch.bmm / cupy.matmul (cuBLAS strided-batched), TF32 off")


# ---------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------

def median_ms(call, new_event, elapsed_ms, warmup, runs):
    """Median of `runs` timed calls, each between two CUDA events, after `warmup` calls."""
    for _ in range(warmup):
        call()
    times = []
    for _ in range(runs):
        start, end = new_event(), new_event()
        start.record()
        out = call()
        end.record()
        end.synchronize()
        times.append(elapsed_ms(start, end))
        del out
    return statistics.median(times)


def torch_clock():
    return (lambda: torch.cuda.Event(enable_timing=True)), (lambda s, e: s.elapsed_time(e))


def cupy_clock():
    return cp.cuda.Event, cp.cuda.get_elapsed_time


def run_peer(peer, case, args):
    """Time one peer on one case. Returns (output as a torch tensor, median ms, extra fields)."""
    extra = {}
    if peer == "torch":
        fn, inputs, clock = case.torch_fn, case.inputs, torch_clock()
    elif peer == "torch_compile":
        torch._dynamo.reset()
        fn, inputs, clock = torch.compile(case.torch_fn, dynamic=False), case.inputs, torch_clock()
        t0 = time.perf_counter()
        fn(*inputs)
        torch.cuda.synchronize()
        extra["compile_s"] = round(time.perf_counter() - t0, 3)
    elif peer == "cupy":
        if cp is None:
            raise RuntimeError("cupy not installed")
        if case.cupy_fn is None:
            raise NotImplementedError(case.cupy_skip)
        fn, clock = case.cupy_fn, cupy_clock()
        inputs = [cp.asarray(t) for t in (case.cupy_inputs or case.inputs)]  # zero-copy
        if case.cupy_note:
            extra["note"] = case.cupy_note
    else:
        raise ValueError(peer)

    ms = median_ms(lambda: fn(*inputs), *clock, args.warmup, args.runs)
    out = fn(*inputs)
    torch.cuda.synchronize()
    if peer == "cupy":
        cp.cuda.Device().synchronize()
        out = torch.as_tensor(out, device="cuda")
    return out, ms, extra


def relative_error(out, ref):
    if out.shape != ref.shape:
        raise ValueError(f"shape {tuple(out.shape)} != eager {tuple(ref.shape)}")
    scale = ref.abs().max().item() or 1.0
    return (out.float() - ref.float()).abs().max().item() / scale


def short_error(e):
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:300]


def run_workload(name, args, emit):
    q = 16 if args.quick else 1
    _gen.manual_seed(0)
    try:
        case = WORKLOADS[name](q)
    except Exception as e:  # e.g. out of memory while building the inputs
        for peer in PEERS:
            emit({"workload": name, "peer": peer, "error": short_error(e)})
        return

    ref = None
    for peer in PEERS:
        line = {"workload": name, "peer": peer, "size": case.desc}
        print(f"[peers] {name} / {peer} ...", file=sys.stderr, flush=True)
        try:
            out, ms, extra = run_peer(peer, case, args)
            line.update(ms=round(ms, 5),
                        gb_s=round(case.nbytes / (ms * 1e-3) / 1e9, 1) if case.bandwidth else None,
                        bytes=case.nbytes)
            if case.flops:
                line["tflops"] = round(case.flops / (ms * 1e-3) / 1e12, 2)
            if case.method and peer != "cupy":
                line["method"] = case.method
            line.update(extra)
            if peer == "torch":
                ref = out.detach().clone()
            elif ref is not None:
                line["err"] = relative_error(out, ref)
            notes = [n for n in (case.note, line.get("note")) if n]
            if line.get("err", 0.0) > 1e-3:
                notes.append("WARNING: output differs from PyTorch eager (err > 1e-3)")
            if notes:
                line["note"] = "; ".join(dict.fromkeys(notes))
            del out
        except Exception as e:
            line["error"] = short_error(e)
        emit(line)
        free_memory()
    del case, ref
    free_memory()


def free_memory():
    gc.collect()
    torch.cuda.empty_cache()
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()
        cp.get_default_pinned_memory_pool().free_all_blocks()


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------

def load_libraries(args):
    """Import torch/cupy/numpy after setting the environment variables they read at import."""
    global torch, cp, np, _gen
    os.environ.setdefault("CUPY_TF32", "0")
    if not args.warm_compile_cache:
        # A fresh cache, so compile_s is a cold compile, as Arr's first run is.
        cache = tempfile.mkdtemp(prefix="peers-inductor-")
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache
        os.environ["TRITON_CACHE_DIR"] = os.path.join(cache, "triton")
    try:
        import numpy
        import torch as torch_module
    except ImportError as e:
        sys.exit(f"peers.py: needs PyTorch and NumPy on a CUDA machine ({e}). "
                 "Install them (pip install torch numpy) or run on the GPU machine.")
    if not torch_module.cuda.is_available():
        sys.exit("peers.py: torch.cuda.is_available() is False: no CUDA device here.")
    try:
        import cupy
    except ImportError as e:
        print(f"[peers] cupy unavailable ({e}); its lines will carry an error", file=sys.stderr)
        cupy = None
    torch, cp, np = torch_module, cupy, numpy
    torch.backends.cuda.matmul.allow_tf32 = False  # f32 matmul is really f32
    torch.backends.cudnn.allow_tf32 = False
    _gen = torch.Generator(device="cuda")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="divide every size by 16 (smoke test)")
    p.add_argument("--only", help="comma-separated workload names (default: all)")
    p.add_argument("--list", action="store_true", help="print the workload names and exit")
    p.add_argument("--warmup", type=int, default=5, help="untimed runs (default 5)")
    p.add_argument("--runs", type=int, default=30, help="timed runs (default 30)")
    p.add_argument("--warm-compile-cache", action="store_true",
                   help="keep the default inductor/Triton caches (compile_s then may be a cache hit)")
    args = p.parse_args()
    if args.list:
        print("\n".join(WORKLOADS))
        sys.exit(0)
    args.names = list(WORKLOADS)
    if args.only:
        args.names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in args.names if n not in WORKLOADS]
        if unknown:
            p.error(f"unknown workload(s) {unknown}; known: {', '.join(WORKLOADS)}")
    if args.warmup < 5 or args.runs < 1:
        p.error("--warmup must be at least 5 and --runs at least 1")
    return args


def main():
    args = parse_args()
    # JSON goes to the original stdout; anything else written to fd 1 (Python prints,
    # library chatter from C) lands on stderr.
    json_out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)

    def emit(obj):
        json_out.write(json.dumps(obj) + "\n")
        json_out.flush()

    load_libraries(args)
    try:
        import triton
        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    emit({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
          "cupy": cp.__version__ if cp is not None else None, "triton": triton_version,
          "quick": args.quick, "warmup": args.warmup, "runs": args.runs,
          "compile_cache": "warm" if args.warm_compile_cache else "cold"})
    for name in args.names:
        run_workload(name, args, emit)


if __name__ == "__main__":
    main()
