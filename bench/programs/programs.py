#!/usr/bin/env python3
"""The whole programs of bench/programs/*.arr in PyTorch, CuPy and NumPy.

Each program is written once against a small array-module adapter (`Xp`), so the
three frameworks run the same statements as the Arr script: the same sizes
(FULL, divided by --divisor where marked), dtypes and operation order. Timing:
one untimed run (warm-up: kernel loading, allocator pools, cuBLAS), then the
median of --runs timed runs, each from the first array creation to the last
result on the host (the device synchronised). One JSON object per line.

    python3 bench/programs/programs.py --peers torch,cupy            # GPU
    python3 bench/programs/programs.py --peers numpy --divisor 100   # CPU
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

STARTED = time.perf_counter()

# name -> (size parameters, which of them `# scale` divides) as in the .arr files
FULL = {
    "heat": ({"n": 10000, "iters": 100}, ("n",)),
    "shallow_water": ({"n": 4000, "iters": 100}, ("n",)),
    "nbody": ({"n": 4096, "iters": 10}, ("n",)),
    "leibniz_pi": ({"n": 100_000_000}, ("n",)),
    "monte_carlo_pi": ({"n": 100_000_000}, ("n",)),
    "black_scholes": ({"n": 10_000_000}, ("n",)),
    "lu": ({"n": 1000}, ("n",)),
    "lbm": ({"n": 4096, "iters": 100}, ("n",)),
}


def sizes(name, divisor, iters=None):
    params, scaled = FULL[name]
    out = dict(params)
    for k in scaled:
        out[k] = max(1, out[k] // divisor)
    if iters is not None and "iters" in out:
        out["iters"] = iters
    return out


class Xp:
    """What the programs need from an array module, for torch, cupy or numpy."""

    def __init__(self, name):
        self.name = name
        if name in ("torch", "torch_compile"):
            import torch
            self.m = torch
            self.f32, self.f64 = torch.float32, torch.float64
            self._gen = torch.Generator(device="cuda")
            self._gen.manual_seed(0)
        elif name == "cupy":
            import cupy
            self.m = cupy
            self.f32, self.f64 = cupy.float32, cupy.float64
            self._rng = cupy.random.default_rng(0)
        else:
            import numpy
            self.m = numpy
            self.f32, self.f64 = numpy.float32, numpy.float64
            self._rng = numpy.random.default_rng(0)

    def rand(self, shape, dtype=None):
        dtype = dtype or self.f32
        if self.name.startswith("torch"):
            return self.m.rand(shape, generator=self._gen, device="cuda", dtype=dtype)
        return self._rng.random(shape, dtype=dtype)

    def _dev(self):
        return {"device": "cuda"} if self.name.startswith("torch") else {}

    def zeros(self, shape):
        return self.m.zeros(shape, dtype=self.f32, **self._dev())

    def ones(self, shape):
        return self.m.ones(shape, dtype=self.f32, **self._dev())

    def arange(self, n, dtype):
        return self.m.arange(n, dtype=dtype, **self._dev())

    def erf(self, x):
        if self.name.startswith("torch"):
            return self.m.erf(x)
        if self.name == "cupy":
            import cupyx.scipy.special
            return cupyx.scipy.special.erf(x)
        try:
            import scipy.special
            return scipy.special.erf(x)
        except ImportError:
            # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): NumPy has no erf of its own
            np = self.m
            s = np.sign(x)
            a = np.abs(x)
            t = 1.0 / (1.0 + 0.3275911 * a)
            y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
                       + 0.254829592) * t * np.exp(-a * a)
            return s * y

    def concat(self, arrays, axis):
        if self.name.startswith("torch"):
            return self.m.cat(arrays, dim=axis)
        return self.m.concatenate(arrays, axis=axis)

    def sync(self):
        if self.name.startswith("torch"):
            self.m.cuda.synchronize()
        elif self.name == "cupy":
            self.m.cuda.Device().synchronize()

    def item(self, x):
        return float(x)


def heat(xp, n, iters):
    g = xp.rand((n, n))
    for _ in range(iters):
        g[1:-1, 1:-1] = 0.2 * (g[1:-1, 1:-1] + g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:])
    return {"mean temperature": xp.item(g.mean())}


def leibniz_pi(xp, n):
    k = xp.arange(n, xp.f64)
    signs = 1.0 - 2.0 * (k % 2.0)
    return {"pi": xp.item(4.0 * (signs / (2.0 * k + 1.0)).sum())}


def monte_carlo_pi(xp, n):
    x = xp.rand((n,))
    y = xp.rand((n,))
    inside = (x * x + y * y < 1.0).sum()
    return {"pi": 4.0 * xp.item(inside) / n}


def black_scholes(xp, n):
    m = xp.m
    rate, vol = 0.0625, 0.25

    def cnd(x):
        return 0.5 * (1.0 + xp.erf(x * 0.7071067811865476))

    s = 58.0 + 4.0 * xp.rand((n,), xp.f64)
    k = 50.0 + 20.0 * xp.rand((n,), xp.f64)
    t = 0.25 + 1.75 * xp.rand((n,), xp.f64)
    sd = vol * m.sqrt(t)
    d1 = (m.log(s / k) + (rate + 0.5 * vol * vol) * t) / sd
    d2 = d1 - sd
    discounted = k * m.exp(-rate * t)
    call = s * cnd(d1) - discounted * cnd(d2)
    put = discounted * cnd(-d2) - s * cnd(-d1)
    return {"mean call": xp.item(call.mean()), "mean put": xp.item(put.mean())}


def nbody(xp, n, iters):
    m_ = xp.m
    x, y, z = xp.rand((n,)), xp.rand((n,)), xp.rand((n,))
    vx = 0.1 * (xp.rand((n,)) - 0.5)
    vy = 0.1 * (xp.rand((n,)) - 0.5)
    vz = 0.1 * (xp.rand((n,)) - 0.5)
    m = (0.5 + xp.rand((n,))) / n
    dt, soft = 0.001, 0.01
    for _ in range(iters):
        dx = x[None, :] - x[:, None]
        dy = y[None, :] - y[:, None]
        dz = z[None, :] - z[:, None]
        r2 = dx * dx + dy * dy + dz * dz + soft
        w = m[None, :] / (r2 * m_.sqrt(r2))
        vx = vx + dt * (dx * w).sum(1)
        vy = vy + dt * (dy * w).sum(1)
        vz = vz + dt * (dz * w).sum(1)
        x, y, z = x + dt * vx, y + dt * vy, z + dt * vz
    return {"kinetic energy": xp.item(0.5 * (m * (vx * vx + vy * vy + vz * vz)).sum())}


def shallow_water(xp, n, iters):
    m_ = xp.m
    g, dt, dx, dy = 9.8, 0.02, 1.0, 1.0

    def sq(a):
        return a * a

    H = xp.ones((n + 2, n + 2))
    U = xp.zeros((n + 2, n + 2))
    V = xp.zeros((n + 2, n + 2))
    c = xp.arange(n + 2, xp.f32)
    w = n / 32.0
    d2 = sq(c[:, None] - 0.375 * n) + sq(c[None, :] - 0.625 * n)
    H += 0.5 * m_.exp(-d2 / (8.0 * w * w))
    for _ in range(iters):
        H[:, 0] = H[:, 1]
        U[:, 0] = U[:, 1]
        V[:, 0] = -V[:, 1]
        H[:, n + 1] = H[:, n]
        U[:, n + 1] = U[:, n]
        V[:, n + 1] = -V[:, n]
        H[0, :] = H[1, :]
        U[0, :] = -U[1, :]
        V[0, :] = V[1, :]
        H[n + 1, :] = H[n, :]
        U[n + 1, :] = -U[n, :]
        V[n + 1, :] = V[n, :]

        Hc, Uc, Vc = H[:, 1:-1], U[:, 1:-1], V[:, 1:-1]
        fu = sq(Uc) / Hc + g / 2 * sq(Hc)
        fuv = Uc * Vc / Hc
        Hx = (Hc[1:, :] + Hc[:-1, :]) / 2 - dt / (2 * dx) * (Uc[1:, :] - Uc[:-1, :])
        Ux = (Uc[1:, :] + Uc[:-1, :]) / 2 - dt / (2 * dx) * (fu[1:, :] - fu[:-1, :])
        Vx = (Vc[1:, :] + Vc[:-1, :]) / 2 - dt / (2 * dx) * (fuv[1:, :] - fuv[:-1, :])

        Hr, Ur, Vr = H[1:-1, :], U[1:-1, :], V[1:-1, :]
        fv = sq(Vr) / Hr + g / 2 * sq(Hr)
        fvu = Vr * Ur / Hr
        Hy = (Hr[:, 1:] + Hr[:, :-1]) / 2 - dt / (2 * dy) * (Vr[:, 1:] - Vr[:, :-1])
        Uy = (Ur[:, 1:] + Ur[:, :-1]) / 2 - dt / (2 * dy) * (fvu[:, 1:] - fvu[:, :-1])
        Vy = (Vr[:, 1:] + Vr[:, :-1]) / 2 - dt / (2 * dy) * (fv[:, 1:] - fv[:, :-1])

        gx = sq(Ux) / Hx + g / 2 * sq(Hx)
        gxy = Ux * Vx / Hx
        gy = sq(Vy) / Hy + g / 2 * sq(Hy)
        gyx = Vy * Uy / Hy
        H[1:-1, 1:-1] -= dt / dx * (Ux[1:, :] - Ux[:-1, :]) + dt / dy * (Vy[:, 1:] - Vy[:, :-1])
        U[1:-1, 1:-1] -= dt / dx * (gx[1:, :] - gx[:-1, :]) + dt / dy * (gyx[:, 1:] - gyx[:, :-1])
        V[1:-1, 1:-1] -= dt / dx * (gxy[1:, :] - gxy[:-1, :]) + dt / dy * (gy[:, 1:] - gy[:, :-1])
    return {"water": xp.item(H[1:-1, 1:-1].sum()), "highest": xp.item(H.max())}


def lu(xp, n):
    # Benchpress's LU without pivoting: each step updates a shrinking trailing slice
    m, dev = xp.m, xp._dev()
    a = xp.rand((n, n), xp.f64) + n * m.eye(n, dtype=xp.f64, **dev)
    for k in range(n - 1):
        a[k + 1:, k] = a[k + 1:, k] / a[k, k]
        a[k + 1:, k + 1:] = a[k + 1:, k + 1:] - a[k + 1:, k:k + 1] * a[k:k + 1, k + 1:]
    return {"trace of U": xp.item(m.sum(m.diagonal(a)))}


def lbm(xp, n, iters):
    m_ = xp.m
    tau, u0 = 0.8, 0.01
    c = [(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)]
    w = [4.0 / 9.0] + [1.0 / 9.0] * 4 + [1.0 / 36.0] * 4

    # one step of streaming by (cx, cy) with wrap-around, as the Arr script's concats
    def shift(a, cx, cy):
        if cx == 1:
            a = xp.concat([a[:, -1:], a[:, :-1]], 1)
        elif cx == -1:
            a = xp.concat([a[:, 1:], a[:, :1]], 1)
        if cy == 1:
            a = xp.concat([a[-1:, :], a[:-1, :]], 0)
        elif cy == -1:
            a = xp.concat([a[1:, :], a[:1, :]], 0)
        return a

    def feq(wi, cx, cy, rho, ux, uy):
        cu = 3.0 * (cx * ux + cy * uy)
        return wi * rho * (1.0 + cu + 0.5 * cu * cu - 1.5 * (ux * ux + uy * uy))

    y = xp.arange(n, xp.f32)
    ux = (u0 * m_.sin(2.0 * math.pi * y / n))[:, None] + xp.zeros((n, n))
    uy = xp.zeros((n, n))
    rho = xp.ones((n, n))
    f = [feq(wi, cx, cy, rho, ux, uy) for wi, (cx, cy) in zip(w, c)]
    for _ in range(iters):
        rho = f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7] + f[8]
        ux = (f[1] + f[5] + f[8] - f[3] - f[6] - f[7]) / rho
        uy = (f[2] + f[5] + f[6] - f[4] - f[7] - f[8]) / rho
        f = [shift(fi - (fi - feq(wi, cx, cy, rho, ux, uy)) / tau, cx, cy) for fi, wi, (cx, cy) in zip(f, w, c)]
    ux = (f[1] + f[5] + f[8] - f[3] - f[6] - f[7]) / (f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7] + f[8])
    return {"amplitude": xp.item(abs(ux).max())}


PROGRAMS = {"heat": heat, "shallow_water": shallow_water, "nbody": nbody,
            "leibniz_pi": leibniz_pi, "monte_carlo_pi": monte_carlo_pi,
            "black_scholes": black_scholes, "lu": lu, "lbm": lbm}


def time_program(name, peer, divisor, runs, iters=None, started=None):
    """`started`: when the process began (perf_counter), for `first_total_ms`."""
    params = sizes(name, divisor, iters)
    line = {"program": name, "peer": peer, "size": params}
    try:
        xp = Xp(peer)
        fn = PROGRAMS[name]
        xp.sync()
        t0 = time.perf_counter()
        result = fn(xp, **params)  # warm-up: the first run, which compiles
        xp.sync()
        t1 = time.perf_counter()
        # first run alone, and (in a fresh process) from the start of the process:
        # the import, the CUDA context and the first run, as Arr's cold figure counts its start-up
        line.update(first_ms=round((t1 - t0) * 1e3, 3))
        if started is not None:
            line.update(first_total_ms=round((t1 - started) * 1e3, 3))
        times = []
        for _ in range(runs):
            xp.sync()
            t0 = time.perf_counter()
            result = fn(xp, **params)
            xp.sync()
            times.append((time.perf_counter() - t0) * 1e3)
        line.update(ms=round(statistics.median(times), 4), times_ms=[round(t, 3) for t in times],
                    result=result)
    except Exception as e:  # a missing module or out of memory: reported, not fatal
        line["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"[:300]
    if peer in ("torch", "cupy"):
        free(peer)
    return line


def free(peer):
    import gc
    gc.collect()
    try:
        if peer == "torch":
            import torch
            torch.cuda.empty_cache()
        else:
            import cupy
            cupy.get_default_memory_pool().free_all_blocks()
    except Exception:
        pass


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--peers", default="torch,cupy")
    p.add_argument("--only", help="comma-separated program names")
    p.add_argument("--divisor", type=int, default=1, help="divide the `# scale` sizes (16: --quick)")
    p.add_argument("--iters", type=int, help="replace the iteration counts")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--fresh", action="store_true",
                   help="run each program and peer in its own process, with an empty CuPy kernel cache")
    args = p.parse_args()
    if args.fresh:
        import subprocess
        import tempfile
        names = args.only.split(",") if args.only else list(PROGRAMS)
        for name in names:
            for peer in args.peers.split(","):
                # empty kernel caches: CuPy's own, and the driver's compute cache NVRTC also fills
                env = {**os.environ, "CUPY_CACHE_DIR": tempfile.mkdtemp(prefix="cupy-cache-"),
                       "CUDA_CACHE_PATH": tempfile.mkdtemp(prefix="cuda-cache-")}
                cmd = [sys.executable, __file__, "--peers", peer, "--only", name, "--divisor", str(args.divisor),
                       "--runs", str(args.runs)] + (["--iters", str(args.iters)] if args.iters else [])
                print(f"[programs] {name} / {peer} (fresh process) ...", file=sys.stderr, flush=True)
                p2 = subprocess.run(cmd, capture_output=True, text=True, env=env)
                sys.stderr.write(p2.stderr[-2000:])
                sys.stdout.write(p2.stdout)
                sys.stdout.flush()
        return
    names = args.only.split(",") if args.only else list(PROGRAMS)
    for name in names:
        for peer in args.peers.split(","):
            print(f"[programs] {name} / {peer} ...", file=sys.stderr, flush=True)
            print(json.dumps(time_program(name, peer, args.divisor, args.runs, args.iters, STARTED)), flush=True)


if __name__ == "__main__":
    main()
