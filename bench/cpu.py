#!/usr/bin/env python3
"""The CPU variant of bench/run.py, for a machine without a GPU: `arr --backend cpu`
against NumPy, numexpr, Numba and JAX on the same workloads (sizes divided by
--divisor, default 64) and the same whole programs (sizes divided by
--program-divisor, default 20), interleaved in one run, with the 2-thread
copy ceiling measured in the same run (before and after; the higher counts).

    python3 bench/cpu.py --arr target/release/arr --out bench/results/cpu-today
    python3 bench/cpu.py --quick     # about a minute

Arr: the median wall time of each realized graph that ran once per loop
iteration (`arr run --profile-json` on the CPU backend), summed. Peers: 2
warm-up calls (which compile Numba and JAX), then the median of --iters calls
(time.perf_counter; JAX waits with block_until_ready). Numba: `@njit(parallel=
True)` with `prange`; JAX: `jax.jit` on the CPU; numexpr where the workload
is one expression. Every peer's result is checked against NumPy's; a wrong
one is reported and never "best". Peers that are not installed are skipped.
Copy ceiling: the faster of a Numba `prange` copy and 2 threads of
np.copyto, of 2^25 f32 into a preallocated buffer; "Arr % ceiling" is Arr's effective GB/s (inputs
read once + output written) over the ceiling's. Whole programs: each side
timed the same way, one warm-up run and then the median of 3 in one process
(Arr: `arr run --time --runs 4`, after start-up; 3 such processes, so the
median of 9); the first, cold run is reported beside it (Arr: the median of
the 3 processes' first runs; NumPy: its warm-up run). The Numba and JAX twins
are bench/programs/twins.py.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

F32 = 4

# Workloads of the CPU run alone (bench/workloads has them; bench/run.py's GPU
# peers do not): positions, orders, selections and a product with a vector.
CPU_ONLY = ["argmax_rows", "argmin_all", "sort", "argsort", "mask_select", "take", "matvec", "roll_stencil",
            "gelu_tanh", "rotate", "u8_threshold"]
# Of those, the ones computed on the host outside any realized graph: Arr's
# time is the loop's wall time less one iteration's, over the iterations.
HOST_OPS = {"sort", "argsort", "mask_select"}


def numpy_case(name, d):
    """(inputs, function, bytes) with bench/peers.py's shapes, the scaled axis divided by d."""
    rng = np.random.default_rng(0)

    def r(*shape):
        return rng.random(shape, dtype=np.float32)

    def nb(*arrays, out=0):
        return sum(a.nbytes for a in arrays) + F32 * out

    s = lambda v: max(1, v // d)  # noqa: E731
    if name == "copy":
        a = r(s(2**28))
        return [a], lambda a: a.copy(), 2 * a.nbytes
    if name in ("add_row", "add_col", "add_outer", "add_rank3"):
        shapes = {"add_row": ((s(16384), 16384), (16384,)), "add_col": ((s(16384), 16384), (s(16384), 1)),
                  "add_outer": ((s(16384), 1), (1, 16384)), "add_rank3": ((s(256), 256, 256), (s(256), 1, 256))}
        a, b = (r(*sh) for sh in shapes[name])
        return [a, b], np.add, nb(a, b, out=int(np.prod(np.broadcast_shapes(a.shape, b.shape))))
    if name == "fused_chain":
        a, b, c = r(s(2**26)), r(s(2**26)), r(s(2**26))
        return [a, b, c], lambda a, b, c: np.exp(a * b + c) - np.float32(0.5) * np.tanh(a), 4 * a.nbytes
    reductions = {"sum_all": ((s(2**28),), None), "sum_axis1": ((s(16384), 16384), 1),
                  "sum_axis0": ((s(16384), 16384), 0), "sum_tiny_rows": ((s(2**24), 8), 1),
                  "sum_short_rows": ((s(2**22), 32), 1), "sum_medium_rows": ((s(2**18), 1024), 1),
                  "sum_long_rows": ((64, s(2**22)), 1), "sum_middle": ((64, s(4096), 64), 1)}
    if name in reductions:
        shape, axis = reductions[name]
        x = r(*shape)
        out = 1 if axis is None else x.size // shape[axis]
        return [x], lambda x: x.sum(axis), nb(x, out=out)
    if name == "segsum_ragged":
        lengths = rng.integers(1, 64, size=s(3_000_000), dtype=np.int64)
        x = r(int(lengths.sum()))
        starts = np.cumsum(lengths) - lengths
        return [x, starts], np.add.reduceat, nb(x, lengths, out=lengths.size)
    if name == "cumsum_rows":
        x = r(s(16384), 16384)
        return [x], lambda x: x.cumsum(1), 2 * x.nbytes
    if name == "cumsum_all":
        x = r(s(2**28))
        return [x], lambda x: x.cumsum(), 2 * x.nbytes
    if name == "nbody_stream":
        a, b = r(s(16384)), r(s(16384))
        return [a, b], lambda a, b: ((a[:, None] - b[None, :]) ** 2).sum(1), 3 * a.nbytes
    if name == "matmul":
        a, b = r(s(8192), s(8192)), r(s(8192), s(8192))
        return [a, b], np.matmul, 3 * a.nbytes
    if name in ("softmax_rows", "log_softmax_rows", "var_rows"):
        x = r(s(32768), 4096)
        out = x.shape[0] if name == "var_rows" else x.size
        return [x], NP_ROWS[name], nb(x, out=out)
    if name == "mean_var_rows":
        x = r(s(32768), 4096)
        return [x], lambda x: (x.mean(1), x.var(1)), nb(x, out=2 * x.shape[0])
    if name == "layer_norm_rows":
        x, g, b = r(s(32768), 4096), r(4096), r(4096)
        return [x, g, b], NP_ROWS[name], nb(x, g, b, out=x.size)
    if name == "transpose_add":
        a = r(s(16384), s(16384))
        return [a], lambda a: a.T + a, 2 * a.nbytes
    if name == "argmax_rows":
        x = r(s(262144), 1024)
        return [x], lambda x: x.argmax(1), x.nbytes + 8 * x.shape[0]
    if name == "argmin_all":
        x = r(s(2**28))
        return [x], lambda x: x.argmin(), x.nbytes
    if name in ("sort", "argsort"):
        x = r(s(2**26))
        fn = np.sort if name == "sort" else (lambda x: np.argsort(x, kind="stable"))
        return [x], fn, x.nbytes + (x.nbytes if name == "sort" else 8 * x.size)
    if name == "mask_select":
        x = r(s(2**28))
        return [x], lambda x: x[x > np.float32(0.5)], x.nbytes * 3 // 2
    if name == "take":
        x = r(s(2**28))
        idx = rng.integers(0, x.size, size=s(2**26), dtype=np.int64)
        return [x, idx], lambda x, i: x[i], idx.nbytes + 2 * F32 * idx.size
    if name == "roll_stencil":
        u = r(s(16384), 4096)
        return [u], lambda u: u + 0.1 * (np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1)
                                         - 4.0 * u), 2 * u.nbytes
    if name == "gelu_tanh":
        x = r(s(2**26)) * np.float32(8.0) - np.float32(4.0)
        return [x], _gelu_np, 2 * x.nbytes
    if name == "rotate":
        x, y, t = r(s(2**26)), r(s(2**26)), r(s(2**26)) * np.float32(6.2831855)
        return [x, y, t], lambda x, y, t: x * np.cos(t) - y * np.sin(t), 4 * x.nbytes
    if name == "u8_threshold":
        img = (r(s(16384), 4096) * np.float32(255.0)).astype(np.uint8)
        return [img], lambda x: np.where(x > 128, x - np.uint8(128), x + np.uint8(100)), 2 * img.nbytes
    if name == "matvec":
        a, v = r(s(131072), 2048), r(2048)
        return [a, v], np.matmul, a.nbytes + v.nbytes + F32 * a.shape[0]
    raise KeyError(name)


def _gelu_np(x):
    # GELU's tanh form, as in GPT-2 and PyTorch's approximate="tanh", kept in f32
    return np.float32(0.5) * x * (np.float32(1.0) + np.tanh(np.float32(0.7978846) * (x + np.float32(0.044715) * x ** 3)))


def _softmax(xp, x):
    e = xp.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _log_softmax(xp, x):
    m = x.max(1, keepdims=True)
    return x - (m + xp.log(xp.exp(x - m).sum(1, keepdims=True)))


def _layer_norm(xp, x, g, b):
    m = x.mean(1, keepdims=True)
    d = x - m
    return d / xp.sqrt((d * d).mean(1, keepdims=True) + 1e-5) * g + b


# the row normalisations written as a NumPy user would (numexpr and Numba have no twin)
NP_ROWS = {"softmax_rows": lambda x: _softmax(np, x), "log_softmax_rows": lambda x: _log_softmax(np, x),
           "layer_norm_rows": lambda x, g, b: _layer_norm(np, x, g, b), "var_rows": lambda x: x.var(1)}


PEERS = ["numpy", "numexpr", "numba", "jax"]


def load_peers(log):
    """The peer modules that import, as {name: module}; the others are noted."""
    mods = {"numpy": np}
    for name in PEERS[1:]:
        try:
            mods[name] = __import__(name)
        except Exception as e:  # not installed, or broken: skipped with a note
            log(f"note: {name} skipped ({type(e).__name__}: {e})")
    if "numexpr" in mods:
        mods["numexpr"].set_num_threads(os.cpu_count() or 2)
    return mods


_NUMBA = {}


def numba_kernels():
    """Numba twins of the workloads, compiled on first use."""
    if _NUMBA:
        return _NUMBA
    from numba import njit, prange

    @njit(parallel=True)
    def copy(a):
        out = np.empty_like(a)
        for i in prange(a.size):
            out[i] = a[i]
        return out

    @njit(parallel=True)
    def copy_into(dst, src):
        for i in prange(src.size):
            dst[i] = src[i]

    @njit(parallel=True)
    def add(a, b):
        return a + b

    @njit(parallel=True)
    def fused(a, b, c):
        return np.exp(a * b + c) - np.float32(0.5) * np.tanh(a)

    @njit(parallel=True)
    def sum_all(x):
        return x.sum()

    @njit(parallel=True)
    def sum_rows(x):
        out = np.empty(x.shape[0], dtype=x.dtype)
        for i in prange(x.shape[0]):
            out[i] = x[i].sum()
        return out

    @njit(parallel=True)
    def sum_cols(x):
        rows, cols = x.shape
        out = np.zeros(cols, dtype=x.dtype)
        for b in prange((cols + 255) // 256):
            lo, hi = b * 256, min(cols, b * 256 + 256)
            for i in range(rows):
                for j in range(lo, hi):
                    out[j] += x[i, j]
        return out

    @njit(parallel=True)
    def sum_middle(x):
        a, m, c = x.shape
        out = np.zeros((a, c), dtype=x.dtype)
        for i in prange(a):
            for j in range(m):
                for k in range(c):
                    out[i, k] += x[i, j, k]
        return out

    @njit(parallel=True)
    def segsum(x, starts):
        n = starts.size
        out = np.empty(n, dtype=x.dtype)
        for s in prange(n):
            end = starts[s + 1] if s + 1 < n else x.size
            out[s] = x[starts[s]:end].sum()
        return out

    @njit(parallel=True)
    def cumsum_rows(x):
        out = np.empty_like(x)
        for i in prange(x.shape[0]):
            out[i] = np.cumsum(x[i])
        return out

    @njit
    def cumsum_all(x):
        return np.cumsum(x)

    @njit(parallel=True)
    def nbody_stream(a, b):
        out = np.empty(a.size, dtype=a.dtype)
        for i in prange(a.size):
            s = np.float32(0.0)
            for j in range(b.size):
                d = a[i] - b[j]
                s += d * d
            out[i] = s
        return out

    @njit
    def matmul(a, b):
        return a @ b

    @njit(parallel=True)
    def argmax_rows(x):
        out = np.empty(x.shape[0], dtype=np.int64)
        for i in prange(x.shape[0]):
            out[i] = np.argmax(x[i])
        return out

    @njit
    def argmin_all(x):
        return np.argmin(x)

    @njit
    def sort(x):
        return np.sort(x)

    @njit
    def argsort(x):
        return np.argsort(x, kind="mergesort")

    @njit
    def mask_select(x):
        return x[x > np.float32(0.5)]

    @njit(parallel=True)
    def take(x, idx):
        out = np.empty(idx.size, dtype=x.dtype)
        for i in prange(idx.size):
            out[i] = x[idx[i]]
        return out

    @njit(parallel=True)
    def matvec(a, v):
        out = np.empty(a.shape[0], dtype=a.dtype)
        for i in prange(a.shape[0]):
            s = np.float32(0.0)
            for j in range(a.shape[1]):
                s += a[i, j] * v[j]
            out[i] = s
        return out

    @njit(parallel=True)
    def gelu_tanh(x):
        out = np.empty_like(x)
        for i in prange(x.size):
            v = x[i]
            out[i] = np.float32(0.5) * v * (np.float32(1.0) + np.tanh(np.float32(0.7978846) * (v + np.float32(0.044715) * v * v * v)))
        return out

    @njit(parallel=True)
    def rotate(x, y, t):
        out = np.empty_like(x)
        for i in prange(x.size):
            out[i] = x[i] * np.cos(t[i]) - y[i] * np.sin(t[i])
        return out

    @njit(parallel=True)
    def roll_stencil(u):
        n, m = u.shape
        out = np.empty_like(u)
        for i in prange(n):
            up, row, down = u[(i - 1) % n], u[i], u[(i + 1) % n]
            for j in range(m):
                out[i, j] = row[j] + np.float32(0.1) * (up[j] + down[j] + row[(j - 1) % m] + row[(j + 1) % m]
                                                        - np.float32(4.0) * row[j])
        return out

    @njit(parallel=True)
    def u8_threshold(x):
        out = np.empty_like(x)
        flat, o = x.ravel(), out.ravel()
        for i in prange(flat.size):
            v = flat[i]
            o[i] = v - np.uint8(128) if v > 128 else v + np.uint8(100)
        return out

    _NUMBA.update(locals())
    return _NUMBA


def peer_call(peer, mods, name, inputs, np_fn):
    """(callable, its inputs) for one peer on one workload, or None where it has none."""
    if peer == "numpy":
        return np_fn, inputs
    if peer == "numexpr":
        ne = mods["numexpr"]
        half = np.float32(0.5)
        exprs = {"copy": "a", "add_row": "a + b", "add_col": "a + b", "add_outer": "a + b", "add_rank3": "a + b",
                 "fused_chain": "exp(a * b + c) - half * tanh(a)", "sum_all": "sum(a)",
                 "sum_axis1": "sum(a, axis=1)", "sum_axis0": "sum(a, axis=0)", "sum_tiny_rows": "sum(a, axis=1)",
                 "sum_short_rows": "sum(a, axis=1)", "sum_medium_rows": "sum(a, axis=1)",
                 "sum_long_rows": "sum(a, axis=1)", "sum_middle": "sum(a, axis=1)",
                 "nbody_stream": "sum((a - b) ** 2, axis=1)",
                 "gelu_tanh": "half * a * (1 + tanh(k * (a + c3 * a ** 3)))",
                 "rotate": "a * cos(c) - b * sin(c)"}
        if name not in exprs:
            return None
        arrs = list(inputs)
        if name == "nbody_stream":
            arrs = [inputs[0][:, None], inputs[1][None, :]]
        env = dict(zip("abc", arrs), half=half, k=np.float32(0.7978846), c3=np.float32(0.044715))
        return (lambda *_: ne.evaluate(exprs[name], local_dict=env)), inputs
    if peer == "numba":
        k = numba_kernels()
        table = {"copy": k["copy"], "add_row": k["add"], "add_col": k["add"], "add_outer": k["add"],
                 "add_rank3": k["add"], "fused_chain": k["fused"], "sum_all": k["sum_all"],
                 "sum_axis1": k["sum_rows"], "sum_axis0": k["sum_cols"], "sum_tiny_rows": k["sum_rows"],
                 "sum_short_rows": k["sum_rows"], "sum_medium_rows": k["sum_rows"], "sum_long_rows": k["sum_rows"],
                 "sum_middle": k["sum_middle"], "segsum_ragged": k["segsum"], "cumsum_rows": k["cumsum_rows"],
                 "cumsum_all": k["cumsum_all"], "nbody_stream": k["nbody_stream"], "matmul": k["matmul"]}
        table.update({n_: k[n_] for n_ in CPU_ONLY})
        if name.startswith("add_"):
            # Numba's parallel array expressions need equal shapes: broadcast views (no copy)
            shape = np.broadcast_shapes(*(a.shape for a in inputs))
            return table[name], [np.broadcast_to(a, shape) for a in inputs]
        return table.get(name), inputs
    if peer == "jax":
        import jax
        import jax.numpy as jnp
        fns = {"copy": lambda a: a.copy(), "fused_chain": lambda a, b, c: jnp.exp(a * b + c) - 0.5 * jnp.tanh(a),
               "sum_all": lambda x: x.sum(), "sum_axis1": lambda x: x.sum(1), "sum_axis0": lambda x: x.sum(0),
               "sum_tiny_rows": lambda x: x.sum(1), "sum_short_rows": lambda x: x.sum(1),
               "sum_medium_rows": lambda x: x.sum(1), "sum_long_rows": lambda x: x.sum(1),
               "sum_middle": lambda x: x.sum(1), "cumsum_rows": lambda x: jnp.cumsum(x, 1),
               "cumsum_all": lambda x: jnp.cumsum(x), "nbody_stream": lambda a, b: ((a[:, None] - b[None, :]) ** 2).sum(1),
               "matmul": jnp.matmul, "softmax_rows": lambda x: _softmax(jnp, x),
               "log_softmax_rows": lambda x: _log_softmax(jnp, x),
               "layer_norm_rows": lambda x, g, b: _layer_norm(jnp, x, g, b), "var_rows": lambda x: x.var(1),
               "mean_var_rows": lambda x: (x.mean(1), x.var(1)), "transpose_add": lambda a: a.T + a,
               "argmax_rows": lambda x: x.argmax(1), "argmin_all": lambda x: x.argmin(), "sort": jnp.sort,
               "argsort": lambda x: jnp.argsort(x, stable=True), "take": lambda x, i: x[i], "matvec": jnp.matmul,
               "gelu_tanh": lambda x: 0.5 * x * (1.0 + jnp.tanh(0.7978846 * (x + 0.044715 * x ** 3))),
               "rotate": lambda x, y, t: x * jnp.cos(t) - y * jnp.sin(t),
               "u8_threshold": lambda x: jnp.where(x > 128, x - 128, x + 100),
               "roll_stencil": lambda u: u + 0.1 * (jnp.roll(u, 1, 0) + jnp.roll(u, -1, 0) + jnp.roll(u, 1, 1)
                                                    + jnp.roll(u, -1, 1) - 4.0 * u)}
        for n_ in ("add_row", "add_col", "add_outer", "add_rank3"):
            fns[n_] = jnp.add
        if name not in fns:
            return None
        jitted = jax.jit(fns[name])
        dev = [jax.device_put(a) for a in inputs]
        return (lambda *xs: jax.block_until_ready(jitted(*xs))), dev
    return None


def time_call(fn, inputs, runs):
    """(median ms over `runs` calls after 2 warm-up calls, the last result)."""
    for _ in range(2):
        out = fn(*inputs)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn(*inputs)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), out


def rel_error(out, ref):
    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if out.shape != ref.shape:
        return float("inf")
    scale = max(float(np.abs(ref).max()) if ref.size else 0.0, 1e-30)
    return float(np.abs(out - ref).max()) / scale if ref.size else 0.0


def copy_ceiling(mods, n=2**25):
    """GB/s of the best 2-thread copy of n f32 into a preallocated buffer (read + write):
    the faster of a Numba prange copy and two threads each np.copyto-ing one half
    (NumPy lets go of the GIL), so neither tool's start-up cost sets the ceiling."""
    from concurrent.futures import ThreadPoolExecutor
    src = np.random.default_rng(1).random(n, dtype=np.float32)
    dst = np.empty_like(src)
    halves = [(dst[: n // 2], src[: n // 2]), (dst[n // 2:], src[n // 2:])]
    with ThreadPoolExecutor(2) as pool:
        def threads():
            list(pool.map(lambda h: np.copyto(*h), halves))
        ways = {"2 threads of np.copyto": threads}
        if "numba" in mods:
            k = numba_kernels()["copy_into"]
            ways["numba prange"] = lambda: k(dst, src)
        best = None
        for how, fn in ways.items():
            ms, _ = time_call(fn, [], 7)
            assert np.array_equal(dst, src)
            if best is None or ms < best[0]:
                best = (ms, how)
    return 2 * src.nbytes / (best[0] * 1e-3) / 1e9, best[1]


def fmt(ms):
    return "-" if ms is None else (f"{ms:.3f}" if ms < 100 else f"{ms:.1f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--arr", default=os.path.join(common.HERE, "..", "target", "release", "arr"))
    p.add_argument("--out", default=os.path.join(common.HERE, "results", "cpu-latest"))
    p.add_argument("--divisor", type=int, default=64)
    p.add_argument("--program-divisor", type=int, default=20)
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--quick", action="store_true", help="divisor 256, program divisor 100, 5 iterations")
    p.add_argument("--only", help="comma-separated workload names (empty: programs only)")
    p.add_argument("--peers", default=",".join(PEERS), help="comma-separated: numpy,numexpr,numba,jax")
    p.add_argument("--programs", default="heat,shallow_water,nbody,leibniz_pi,monte_carlo_pi,black_scholes,lu,lbm")
    args = p.parse_args()
    if args.quick:
        args.divisor, args.program_divisor, args.iters = 256, 100, 5
    arr = os.path.abspath(args.arr)
    os.makedirs(args.out, exist_ok=True)
    logf = open(os.path.join(args.out, "log.txt"), "w")

    def log(*parts):
        text = " ".join(str(x) for x in parts)
        print(text, file=sys.stderr, flush=True)
        logf.write(text + "\n")

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=common.HERE).stdout.strip()
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), cpu)
    except OSError:
        pass
    mods = load_peers(log)
    peers = [x for x in args.peers.split(",") if x in mods]
    versions = ", ".join(f"{k} {getattr(mods[k], '__version__', '?')}" for k in peers)
    device = f"{cpu}, {os.cpu_count()} cores"
    header = (f"date {datetime.date.today()}, device {device}, commit {commit}, {versions}, "
              f"command: python3 bench/cpu.py {' '.join(sys.argv[1:])}")
    log(header)
    ceil_gbs, how = copy_ceiling(mods)
    log(f"copy ceiling (before): {ceil_gbs:.1f} GB/s ({how})")
    rows = []
    names = {"numpy": "NumPy", "numexpr": "numexpr", "numba": "Numba", "jax": "JAX"}
    workload_rows = []
    only = common.ORDER + CPU_ONLY if args.only is None else [x for x in args.only.split(",") if x]
    for name in only:
        inputs, np_fn, nbytes = numpy_case(name, args.divisor)
        iters = 3 if name == "matmul" else args.iters
        with open(os.path.join(common.WORKLOADS, name + ".arr")) as f:
            source = f.read()
        text = common.prepare(source, args.divisor, iters)
        wall, lines, out, err, rc = common.run_arr(arr, text, "cpu")
        ms, first, looped, _ = common.per_iteration(lines, iters)
        if name in HOST_OPS and rc == 0:
            # no realized graph times these: the loop's wall time, less one iteration's
            one, _, _, _, rc1 = common.run_arr(arr, common.prepare(source, args.divisor, 1), "cpu", profile=False)
            more, _, _, _, rc2 = common.run_arr(arr, common.prepare(source, args.divisor, iters + 1), "cpu",
                                                profile=False)
            ms = (more - one) * 1e3 / iters if rc1 == rc2 == 0 else 0.0
        ref = None
        peer_ms, peer_note = {}, {}
        for peer in peers:
            try:
                call = peer_call(peer, mods, name, inputs, np_fn)
                if call is None or call[0] is None:
                    continue
                fn, ins = call
                t, res = time_call(fn, ins, args.iters if name != "matmul" else 3)
                if peer == "numpy":
                    ref = res
                    err_ = 0.0
                else:
                    err_ = rel_error(res, ref)
                tol = 1e-2 if name.startswith(("sum", "cumsum", "segsum", "matmul", "matvec", "nbody")) else 1e-5
                if err_ <= tol:
                    peer_ms[peer] = t
                else:
                    peer_note[peer] = f"wrong (rel. error {err_:.1e})"
            except Exception as e:  # a peer that cannot run this workload: noted, not fatal
                peer_note[peer] = f"{type(e).__name__}: {str(e).splitlines()[0][:100] if str(e) else ''}"
        size = " x ".join(str(tuple(a.shape)) for a in inputs)
        row = {"workload": name, "size": size, "arr_ms": ms, "arr_first_ms": first, "bytes": nbytes, "rc": rc,
               "graphs": [g["plan"] for g in looped], "peers_ms": peer_ms, "peer_notes": peer_note,
               "numpy_ms": peer_ms.get("numpy")}
        rows.append(row)
        workload_rows.append(row)
        log(json.dumps(row))
        if rc != 0 or not ms:
            row["arr_error"] = err.strip()[-200:]
        del inputs
    ceil_after, _ = copy_ceiling(mods)
    log(f"copy ceiling (after): {ceil_after:.1f} GB/s")
    ceil_gbs = max(ceil_gbs, ceil_after)

    table = ["| workload | size | Arr ms | " + " | ".join(f"{names[p_]} ms" for p_ in peers) +
             " | best peer | Arr / best | Arr % ceiling |",
             "| --- | --- | --- | " + " | ".join("---" for _ in peers) + " | --- | --- | --- |"]
    for row in workload_rows:
        ms = row["arr_ms"] if not row.get("arr_error") else None
        cells = [fmt(row["peers_ms"].get(p_)) if p_ in row["peers_ms"] else
                 ("wrong" if "wrong" in row["peer_notes"].get(p_, "") else "-") for p_ in peers]
        best = min(row["peers_ms"].items(), key=lambda kv: kv[1]) if row["peers_ms"] else None
        ratio = f"{ms / best[1]:.2f}" if ms and best else "-"
        pct = (f"{row['bytes'] / (ms * 1e-3) / 1e9 / ceil_gbs * 100:.0f}%"
               if ms and row["workload"] not in common.TIME_ONLY else "-")
        arr_cell = fmt(ms) if ms else "error: " + row.get("arr_error", "")[-60:]
        table.append(f"| {row['workload']} | {row['size']} | {arr_cell} | " + " | ".join(cells) +
                     f" | {names[best[0]] if best else '-'} | {ratio} | {pct} |")

    # whole programs
    prog = [x for x in args.programs.split(",") if x]
    ptable = ["| program | size | Arr ms | " + " | ".join(f"{names[p_]} ms" for p_ in peers if p_ != "numexpr") +
              " | best peer | Arr / best | NumPy / Arr | Arr first ms | NumPy first ms | NumPy / Arr first"
              " | Arr result | NumPy result |",
              "| --- | --- | --- | " + " | ".join("---" for p_ in peers if p_ != "numexpr") +
              " | --- | --- | --- | --- | --- | --- | --- | --- |"]
    if prog:
        peer_rows = {}
        env_py = [sys.executable]
        if "numpy" in peers:
            lines = subprocess.run(env_py + [os.path.join(common.PROGRAMS, "programs.py"), "--peers", "numpy",
                                             "--divisor", str(args.program_divisor), "--only", ",".join(prog)],
                                   capture_output=True, text=True).stdout.splitlines()
            for r in map(json.loads, lines):
                peer_rows[(r["program"], "numpy")] = r
        twins = [p_ for p_ in peers if p_ in ("numba", "jax")]
        if twins:
            lines = subprocess.run(env_py + [os.path.join(common.PROGRAMS, "twins.py"), "--peers", ",".join(twins),
                                             "--divisor", str(args.program_divisor), "--only", ",".join(prog)],
                                   capture_output=True, text=True).stdout.splitlines()
            for r in map(json.loads, lines):
                peer_rows[(r["program"], r["peer"])] = r
        # random inputs differ between RNGs (and programs.py draws new ones each run):
        # a statistical tolerance for those programs
        tols = {"shallow_water": 1e-3, "leibniz_pi": 1e-6, "heat": 2e-2, "monte_carlo_pi": 2e-2,
                "black_scholes": 2e-2, "nbody": 0.5}
        for name in prog:
            with open(os.path.join(common.PROGRAMS, name + ".arr")) as f:
                text = common.prepare(f.read(), args.program_divisor)
            # as the peers are timed (programs.py): one warm-up run, then the median of
            # three, in one process; the first run of each of 3 processes is the cold figure
            firsts, warms, rc = [], [], 0
            for _ in range(3):
                times, out, err, rc = common.run_arr_times(arr, text, "cpu", 4)
                if rc != 0 or len(times) != 4:
                    rc = rc or 1
                    break
                firsts.append(times[0])
                warms.extend(times[1:])
            ms = statistics.median(warms) if rc == 0 else None
            first_ms = statistics.median(firsts) if rc == 0 else None
            ref = peer_rows.get((name, "numpy"), {}).get("result")
            pms, notes = {}, {}
            for p_ in peers:
                r = peer_rows.get((name, p_))
                if not r or p_ == "numexpr":
                    continue
                if "ms" not in r:
                    notes[p_] = r.get("error", "no result")
                    continue
                bad = [k for k, v in (ref or {}).items()
                       if abs(r["result"].get(k, float("nan")) - v) > tols.get(name, 1e-3) * max(abs(v), 1e-30)]
                if bad and p_ != "numpy":
                    notes[p_] = f"differs from NumPy in {bad}: {r['result']}"
                else:
                    pms[p_] = r["ms"]
            row = {"program": name, "arr_ms": ms, "arr_first_ms": first_ms, "arr_warm_ms": warms,
                   "arr_first_runs_ms": firsts, "arr_result": out.strip(),
                   "peers_ms": pms, "peer_notes": notes, "peer_rows": {p_: peer_rows.get((name, p_)) for p_ in peers}}
            rows.append(row)
            log(json.dumps(row))
            best = min(pms.items(), key=lambda kv: kv[1]) if pms else None
            cells = [fmt(pms.get(p_)) if p_ in pms else ("wrong" if p_ in notes and "differs" in notes[p_] else "-")
                     for p_ in peers if p_ != "numexpr"]
            size = json.dumps(peer_rows.get((name, "numpy"), {}).get("size"))
            np_ms = pms.get("numpy")
            np_first = (peer_rows.get((name, "numpy")) or {}).get("first_ms") if "numpy" in pms else None
            ptable.append(f"| {name} | {size} | {fmt(ms) if ms else 'error'} | " + " | ".join(cells) +
                          f" | {names[best[0]] if best else '-'} | {f'{ms / best[1]:.2f}' if ms and best else '-'} | "
                          f"{f'{np_ms / ms:.2f}' if ms and np_ms else '-'} | {fmt(first_ms)} | {fmt(np_first)} | "
                          f"{f'{np_first / first_ms:.2f}' if first_ms and np_first else '-'} | "
                          f"{out.strip()} | {json.dumps(ref)} |")
    with open(os.path.join(args.out, "cpu.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
        f.write(json.dumps({"copy_ceiling_gbs": ceil_gbs, "copy_ceiling_how": how, "header": header}) + "\n")
    text = (header + f"\n\ncopy ceiling: {ceil_gbs:.1f} GB/s ({how}, 2^25 f32, best of before/after)\n\n" +
            "\n".join(table) + "\n\n" + "\n".join(ptable))
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text + "\n")
    logf.write("\n" + text + "\n")
    print(text)


if __name__ == "__main__":
    main()
