#!/usr/bin/env python3
"""Numba and JAX twins of the whole programs in bench/programs/*.arr (the
NumPy twins are in programs.py): the same sizes (programs.FULL, divided by
--divisor), dtypes, algorithm and operation order, for the CPU comparison in
bench/cpu.py. Numba: `@njit(parallel=True)` loops with `prange`; JAX:
`jax.jit` on the CPU. Each is compiled by one untimed run, then the median
of --runs timed runs (random inputs made inside the timed region, as NumPy's
and Arr's are). One JSON object per line, as programs.py prints.

    python3 bench/programs/twins.py --peers numba,jax --divisor 20
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from programs import sizes  # noqa: E402

F32 = np.float32


# ---------------------------------------------------------------- Numba

def numba_programs():
    from numba import njit, prange

    @njit(parallel=True)
    def heat_sweeps(g, iters):
        # Jacobi: read one buffer, write the other (the edges stay as they are in both)
        n0, n1 = g.shape
        a = g
        b = g.copy()
        for _ in range(iters):
            for i in prange(1, n0 - 1):
                for j in range(1, n1 - 1):
                    b[i, j] = F32(0.2) * (a[i, j] + a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1])
            a, b = b, a
        return a

    def heat(n, iters):
        g = np.random.default_rng(0).random((n, n), dtype=F32)
        g = heat_sweeps(g, iters)
        return {"mean temperature": float(g.mean())}

    @njit(parallel=True)
    def leibniz_sum(n):
        s = 0.0
        for i in prange(n):
            k = float(i)
            sign = 1.0 - 2.0 * (k % 2.0)
            s += sign / (2.0 * k + 1.0)
        return 4.0 * s

    def leibniz_pi(n):
        return {"pi": float(leibniz_sum(n))}

    @njit(parallel=True)
    def inside_count(x, y):
        c = 0
        for i in prange(x.shape[0]):
            if x[i] * x[i] + y[i] * y[i] < F32(1.0):
                c += 1
        return c

    def monte_carlo_pi(n):
        rng = np.random.default_rng(0)
        x = rng.random(n, dtype=F32)
        y = rng.random(n, dtype=F32)
        return {"pi": 4.0 * float(inside_count(x, y)) / n}

    @njit(parallel=True)
    def bs_prices(s, k, t):
        rate, vol = 0.0625, 0.25
        n = s.shape[0]
        call = np.empty(n)
        put = np.empty(n)
        for i in prange(n):
            sd = vol * math.sqrt(t[i])
            d1 = (math.log(s[i] / k[i]) + (rate + 0.5 * vol * vol) * t[i]) / sd
            d2 = d1 - sd
            disc = k[i] * math.exp(-rate * t[i])
            c1 = 0.5 * (1.0 + math.erf(d1 * 0.7071067811865476))
            c2 = 0.5 * (1.0 + math.erf(d2 * 0.7071067811865476))
            m1 = 0.5 * (1.0 + math.erf(-d1 * 0.7071067811865476))
            m2 = 0.5 * (1.0 + math.erf(-d2 * 0.7071067811865476))
            call[i] = s[i] * c1 - disc * c2
            put[i] = disc * m2 - s[i] * m1
        return call.mean(), put.mean()

    def black_scholes(n):
        rng = np.random.default_rng(0)
        s = 58.0 + 4.0 * rng.random(n)
        k = 50.0 + 20.0 * rng.random(n)
        t = 0.25 + 1.75 * rng.random(n)
        c, p = bs_prices(s, k, t)
        return {"mean call": float(c), "mean put": float(p)}

    @njit(parallel=True)
    def nbody_steps(x, y, z, vx, vy, vz, m, iters):
        n = x.shape[0]
        dt, soft = F32(0.001), F32(0.01)
        ax = np.empty(n, dtype=F32)
        ay = np.empty(n, dtype=F32)
        az = np.empty(n, dtype=F32)
        for _ in range(iters):
            for i in prange(n):
                sx = F32(0.0)
                sy = F32(0.0)
                sz = F32(0.0)
                for j in range(n):
                    dx = x[j] - x[i]
                    dy = y[j] - y[i]
                    dz = z[j] - z[i]
                    r2 = dx * dx + dy * dy + dz * dz + soft
                    w = m[j] / (r2 * np.sqrt(r2))
                    sx += dx * w
                    sy += dy * w
                    sz += dz * w
                ax[i] = sx
                ay[i] = sy
                az[i] = sz
            for i in prange(n):
                vx[i] += dt * ax[i]
                vy[i] += dt * ay[i]
                vz[i] += dt * az[i]
                x[i] += dt * vx[i]
                y[i] += dt * vy[i]
                z[i] += dt * vz[i]
        e = 0.0
        for i in range(n):
            e += m[i] * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i])
        return 0.5 * e

    def nbody(n, iters):
        rng = np.random.default_rng(0)
        x, y, z = (rng.random(n, dtype=F32) for _ in range(3))
        vx, vy, vz = (F32(0.1) * (rng.random(n, dtype=F32) - F32(0.5)) for _ in range(3))
        m = ((F32(0.5) + rng.random(n, dtype=F32)) / F32(n)).astype(F32)
        return {"kinetic energy": float(nbody_steps(x, y, z, vx, vy, vz, m, iters))}

    @njit(parallel=True)
    def sw_steps(H, U, V, n, iters):
        g, dt, dx, dy = F32(9.8), F32(0.02), F32(1.0), F32(1.0)
        half_g = g / F32(2)
        Hx = np.empty((n + 1, n), dtype=F32)
        Ux = np.empty((n + 1, n), dtype=F32)
        Vx = np.empty((n + 1, n), dtype=F32)
        Hy = np.empty((n, n + 1), dtype=F32)
        Uy = np.empty((n, n + 1), dtype=F32)
        Vy = np.empty((n, n + 1), dtype=F32)
        cx = dt / (F32(2) * dx)
        cy = dt / (F32(2) * dy)
        for _ in range(iters):
            for i in range(n + 2):
                H[i, 0] = H[i, 1]
                U[i, 0] = U[i, 1]
                V[i, 0] = -V[i, 1]
                H[i, n + 1] = H[i, n]
                U[i, n + 1] = U[i, n]
                V[i, n + 1] = -V[i, n]
            for j in range(n + 2):
                H[0, j] = H[1, j]
                U[0, j] = -U[1, j]
                V[0, j] = V[1, j]
                H[n + 1, j] = H[n, j]
                U[n + 1, j] = -U[n, j]
                V[n + 1, j] = V[n, j]
            # x half step: rows i, i+1 of the interior columns
            for i in prange(n + 1):
                for j in range(n):
                    h0, h1 = H[i, j + 1], H[i + 1, j + 1]
                    u0, u1 = U[i, j + 1], U[i + 1, j + 1]
                    v0, v1 = V[i, j + 1], V[i + 1, j + 1]
                    fu0 = u0 * u0 / h0 + half_g * (h0 * h0)
                    fu1 = u1 * u1 / h1 + half_g * (h1 * h1)
                    Hx[i, j] = (h1 + h0) / F32(2) - cx * (u1 - u0)
                    Ux[i, j] = (u1 + u0) / F32(2) - cx * (fu1 - fu0)
                    Vx[i, j] = (v1 + v0) / F32(2) - cx * (u1 * v1 / h1 - u0 * v0 / h0)
            for i in prange(n):
                for j in range(n + 1):
                    h0, h1 = H[i + 1, j], H[i + 1, j + 1]
                    u0, u1 = U[i + 1, j], U[i + 1, j + 1]
                    v0, v1 = V[i + 1, j], V[i + 1, j + 1]
                    fv0 = v0 * v0 / h0 + half_g * (h0 * h0)
                    fv1 = v1 * v1 / h1 + half_g * (h1 * h1)
                    Hy[i, j] = (h1 + h0) / F32(2) - cy * (v1 - v0)
                    Uy[i, j] = (u1 + u0) / F32(2) - cy * (v1 * u1 / h1 - v0 * u0 / h0)
                    Vy[i, j] = (v1 + v0) / F32(2) - cy * (fv1 - fv0)
            for i in prange(n):
                for j in range(n):
                    a, b = Ux[i + 1, j], Ux[i, j]
                    ha, hb = Hx[i + 1, j], Hx[i, j]
                    va, vb = Vx[i + 1, j], Vx[i, j]
                    c, d = Vy[i, j + 1], Vy[i, j]
                    hc, hd = Hy[i, j + 1], Hy[i, j]
                    uc, ud = Uy[i, j + 1], Uy[i, j]
                    gx_a = a * a / ha + half_g * (ha * ha)
                    gx_b = b * b / hb + half_g * (hb * hb)
                    gy_c = c * c / hc + half_g * (hc * hc)
                    gy_d = d * d / hd + half_g * (hd * hd)
                    H[i + 1, j + 1] -= dt / dx * (a - b) + dt / dy * (c - d)
                    U[i + 1, j + 1] -= dt / dx * (gx_a - gx_b) + dt / dy * (c * uc / hc - d * ud / hd)
                    V[i + 1, j + 1] -= dt / dx * (a * va / ha - b * vb / hb) + dt / dy * (gy_c - gy_d)
        return H

    def shallow_water(n, iters):
        H = np.ones((n + 2, n + 2), dtype=F32)
        U = np.zeros((n + 2, n + 2), dtype=F32)
        V = np.zeros((n + 2, n + 2), dtype=F32)
        c = np.arange(n + 2, dtype=F32)
        w = n / 32.0
        d2 = (c[:, None] - F32(0.375 * n)) ** 2 + (c[None, :] - F32(0.625 * n)) ** 2
        H += F32(0.5) * np.exp(-d2 / F32(8.0 * w * w))
        H = sw_steps(H, U, V, n, iters)
        return {"water": float(H[1:-1, 1:-1].sum()), "highest": float(H.max())}

    return {"heat": heat, "shallow_water": shallow_water, "nbody": nbody, "leibniz_pi": leibniz_pi,
            "monte_carlo_pi": monte_carlo_pi, "black_scholes": black_scholes}


# ---------------------------------------------------------------- JAX

def jax_programs():
    import jax
    import jax.numpy as jnp
    from functools import partial
    jax.config.update("jax_enable_x64", True)  # black_scholes and leibniz are f64, as in Arr

    def key():
        return jax.random.PRNGKey(0)

    @partial(jax.jit, static_argnums=(0, 1))
    def heat_run(n, iters):
        g = jax.random.uniform(key(), (n, n), dtype=jnp.float32)

        def body(_, g):
            inner = 0.2 * (g[1:-1, 1:-1] + g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:])
            return g.at[1:-1, 1:-1].set(inner.astype(jnp.float32))
        return jax.lax.fori_loop(0, iters, body, g).mean()

    @partial(jax.jit, static_argnums=(0,))
    def leibniz_run(n):
        k = jnp.arange(n, dtype=jnp.float64)
        signs = 1.0 - 2.0 * (k % 2.0)
        return 4.0 * (signs / (2.0 * k + 1.0)).sum()

    @partial(jax.jit, static_argnums=(0,))
    def mc_run(n):
        kx, ky = jax.random.split(key())
        x = jax.random.uniform(kx, (n,), dtype=jnp.float32)
        y = jax.random.uniform(ky, (n,), dtype=jnp.float32)
        return (x * x + y * y < 1.0).sum()

    @partial(jax.jit, static_argnums=(0,))
    def bs_run(n):
        rate, vol = 0.0625, 0.25
        k1, k2, k3 = jax.random.split(key(), 3)
        s = 58.0 + 4.0 * jax.random.uniform(k1, (n,), dtype=jnp.float64)
        k = 50.0 + 20.0 * jax.random.uniform(k2, (n,), dtype=jnp.float64)
        t = 0.25 + 1.75 * jax.random.uniform(k3, (n,), dtype=jnp.float64)

        def cnd(x):
            return 0.5 * (1.0 + jax.scipy.special.erf(x * 0.7071067811865476))
        sd = vol * jnp.sqrt(t)
        d1 = (jnp.log(s / k) + (rate + 0.5 * vol * vol) * t) / sd
        d2 = d1 - sd
        disc = k * jnp.exp(-rate * t)
        call = s * cnd(d1) - disc * cnd(d2)
        put = disc * cnd(-d2) - s * cnd(-d1)
        return call.mean(), put.mean()

    @partial(jax.jit, static_argnums=(0, 1))
    def nbody_run(n, iters):
        ks = jax.random.split(key(), 7)
        u = [jax.random.uniform(k_, (n,), dtype=jnp.float32) for k_ in ks]
        x, y, z = u[0], u[1], u[2]
        vx, vy, vz = (0.1 * (v - 0.5) for v in u[3:6])
        m = (0.5 + u[6]) / n
        dt, soft = jnp.float32(0.001), jnp.float32(0.01)

        def body(_, s):
            x, y, z, vx, vy, vz = s
            dx = x[None, :] - x[:, None]
            dy = y[None, :] - y[:, None]
            dz = z[None, :] - z[:, None]
            r2 = dx * dx + dy * dy + dz * dz + soft
            w = m[None, :] / (r2 * jnp.sqrt(r2))
            vx = vx + dt * (dx * w).sum(1)
            vy = vy + dt * (dy * w).sum(1)
            vz = vz + dt * (dz * w).sum(1)
            return (x + dt * vx, y + dt * vy, z + dt * vz, vx, vy, vz)
        x, y, z, vx, vy, vz = jax.lax.fori_loop(0, iters, body, (x, y, z, vx, vy, vz))
        return 0.5 * (m * (vx * vx + vy * vy + vz * vz)).sum()

    @partial(jax.jit, static_argnums=(0, 1))
    def sw_run(n, iters):
        g, dt, dx, dy = 9.8, 0.02, 1.0, 1.0
        f = jnp.float32

        def sq(a):
            return a * a
        H = jnp.ones((n + 2, n + 2), f)
        U = jnp.zeros((n + 2, n + 2), f)
        V = jnp.zeros((n + 2, n + 2), f)
        c = jnp.arange(n + 2, dtype=f)
        w = n / 32.0
        d2 = sq(c[:, None] - 0.375 * n) + sq(c[None, :] - 0.625 * n)
        H = H + 0.5 * jnp.exp(-d2 / (8.0 * w * w))

        def body(_, s):
            H, U, V = s
            H = H.at[:, 0].set(H[:, 1]); U = U.at[:, 0].set(U[:, 1]); V = V.at[:, 0].set(-V[:, 1])  # noqa: E702
            H = H.at[:, n + 1].set(H[:, n]); U = U.at[:, n + 1].set(U[:, n]); V = V.at[:, n + 1].set(-V[:, n])  # noqa
            H = H.at[0, :].set(H[1, :]); U = U.at[0, :].set(-U[1, :]); V = V.at[0, :].set(V[1, :])  # noqa: E702
            H = H.at[n + 1, :].set(H[n, :]); U = U.at[n + 1, :].set(-U[n, :]); V = V.at[n + 1, :].set(V[n, :])  # noqa
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
            H = H.at[1:-1, 1:-1].add(-(dt / dx * (Ux[1:, :] - Ux[:-1, :]) + dt / dy * (Vy[:, 1:] - Vy[:, :-1])))
            U = U.at[1:-1, 1:-1].add(-(dt / dx * (gx[1:, :] - gx[:-1, :]) + dt / dy * (gyx[:, 1:] - gyx[:, :-1])))
            V = V.at[1:-1, 1:-1].add(-(dt / dx * (gxy[1:, :] - gxy[:-1, :]) + dt / dy * (gy[:, 1:] - gy[:, :-1])))
            return H, U, V
        H, U, V = jax.lax.fori_loop(0, iters, body, (H, U, V))
        return H[1:-1, 1:-1].sum(), H.max()

    def heat(n, iters):
        return {"mean temperature": float(heat_run(n, iters))}

    def leibniz_pi(n):
        return {"pi": float(leibniz_run(n))}

    def monte_carlo_pi(n):
        return {"pi": 4.0 * float(mc_run(n)) / n}

    def black_scholes(n):
        c, p = bs_run(n)
        return {"mean call": float(c), "mean put": float(p)}

    def nbody(n, iters):
        return {"kinetic energy": float(nbody_run(n, iters))}

    def shallow_water(n, iters):
        w, h = sw_run(n, iters)
        return {"water": float(w), "highest": float(h)}

    return {"heat": heat, "shallow_water": shallow_water, "nbody": nbody, "leibniz_pi": leibniz_pi,
            "monte_carlo_pi": monte_carlo_pi, "black_scholes": black_scholes}


def time_program(table, name, peer, divisor, runs):
    params = sizes(name, divisor)
    line = {"program": name, "peer": peer, "size": params}
    try:
        fn = table[name]
        fn(**params)  # compile and warm up
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            result = fn(**params)
            times.append((time.perf_counter() - t0) * 1e3)
        line.update(ms=round(statistics.median(times), 4), times_ms=[round(t, 3) for t in times], result=result)
    except Exception as e:  # a missing module: reported, not fatal
        line["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"[:300]
    return line


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--peers", default="numba,jax")
    p.add_argument("--only", help="comma-separated program names")
    p.add_argument("--divisor", type=int, default=1)
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    makers = {"numba": numba_programs, "jax": jax_programs}
    for peer in args.peers.split(","):
        try:
            table = makers[peer]()
        except Exception as e:
            for name in (args.only.split(",") if args.only else []):
                print(json.dumps({"program": name, "peer": peer, "error": f"{type(e).__name__}: {e}"[:300]}))
            continue
        for name in (args.only.split(",") if args.only else list(table)):
            print(f"[twins] {name} / {peer} ...", file=sys.stderr, flush=True)
            print(json.dumps(time_program(table, name, peer, args.divisor, args.runs)), flush=True)


if __name__ == "__main__":
    main()
