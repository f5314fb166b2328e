#!/usr/bin/env python3
"""Independent NumPy versions of the example programs in examples/*.arr.

Each function below computes, with NumPy and the same dtypes, every number the
matching example prints, in print order, and the script writes them to
tests/golden/NAME.json as {"values": [...], "rtol": r, "atol": a}; the Rust
test tests/examples.rs runs the Arr program and compares its printed numbers
with these. Run by hand (needs only numpy):

    python3 tests/golden/make_goldens.py

and commit the JSON files, so that the tests need no Python.

Random arrays follow Arr's counter-based generator (LANGUAGE-draft.md,
"Random numbers"), reimplemented here with NumPy uint64 arithmetic: the k-th
random array drawn in a session has key mix64(mix64(seed ^ 0x5EED5EED5EED5EED) + k),
and element i of it depends only on (key, i).
"""

import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- random numbers

M64 = (1 << 64) - 1
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def mix64_int(z):
    """SplitMix64 finaliser on a Python int (used for keys)."""
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def mix64(z):
    """SplitMix64 finaliser on a uint64 array (multiplications wrap)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def bits(key, counters):
    """bits(key, i) = mix64(key + (i + 1) * GOLDEN) for every counter i."""
    i = np.asarray(counters, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return mix64(np.uint64(key) + (i + np.uint64(1)) * GOLDEN)


def uniform_f32(key, counters):
    b = bits(key, counters) >> np.uint64(40)  # 24 bits: exact in f32
    return b.astype(np.float32) * np.float32(2.0**-24)


def uniform_f64(key, counters):
    b = bits(key, counters) >> np.uint64(11)  # 53 bits: exact in f64
    return b.astype(np.float64) * (2.0**-53)


def normal_f64(key, counters):
    """Box-Muller on counters 2i, 2i+1, in f64 with the C library's log/cos/sqrt
    (Python's math module), exactly as Arr's reference implementation does."""
    i = np.asarray(counters, dtype=np.uint64)
    u1 = 1.0 - uniform_f64(key, np.uint64(2) * i)
    u2 = uniform_f64(key, np.uint64(2) * i + np.uint64(1))
    return np.array(
        [math.sqrt(-2.0 * math.log(a)) * math.cos(2.0 * math.pi * b) for a, b in zip(u1.tolist(), u2.tolist())],
        dtype=np.float64,
    )


class Rng:
    """A session's random state: a seed and a count of arrays drawn so far."""

    def __init__(self, seed=0):
        self.seed(seed)

    def seed(self, n):
        self.base = mix64_int(n ^ 0x5EED5EED5EED5EED)
        self.k = 0

    def _next_key(self):
        key = mix64_int(self.base + self.k)
        self.k += 1
        return key

    def rand(self, shape, dtype=np.float32):
        shape = tuple(np.atleast_1d(shape))
        key = self._next_key()
        counters = np.arange(int(np.prod(shape)), dtype=np.uint64)
        if dtype == np.float32:
            return uniform_f32(key, counters).reshape(shape)
        return uniform_f64(key, counters).reshape(shape)

    def randn(self, shape, dtype=np.float32):
        shape = tuple(np.atleast_1d(shape))
        key = self._next_key()
        counters = np.arange(int(np.prod(shape)), dtype=np.uint64)
        return normal_f64(key, counters).astype(dtype).reshape(shape)


def check_rng():
    """Spot values of the generator as specified (seed, call, i) -> value,
    taken from a direct transcription of the spec's formulas in Rust
    (src/graph/random.rs); guards this file's vectorised version."""
    cases = [
        (0, 0, [0.7684885, 0.102966666, 0.09318501], [0.7684885686319882, 0.10296668567912648],
         [1.364946276381019, 0.2020912566736483, -1.8252524962993149]),
        (0, 1, [0.48514777, 0.8862358, 0.32290608], [0.4851477921755576, 0.886235788168366],
         [0.8702292080912196, 0.8123393304703848, 0.22539172141079236]),
        (7, 3, [0.2536701, 0.14771563, 0.1512686], [0.25367010277912094, 0.14771565949595766],
         [0.4584725569094462, -0.5143939278751398, -0.31144608236985444]),
    ]
    for seed, call, f32s, f64s, normals in cases:
        key = mix64_int(mix64_int(seed ^ 0x5EED5EED5EED5EED) + call)
        assert np.array_equal(uniform_f32(key, np.arange(3)), np.array(f32s, dtype=np.float32)), (seed, call)
        assert np.array_equal(uniform_f64(key, np.arange(2)), np.array(f64s)), (seed, call)
        assert np.allclose(normal_f64(key, np.arange(3)), normals, rtol=1e-15, atol=0), (seed, call)
    r = Rng()
    assert r.rand([3])[0] == np.float32(0.7684885)
    assert r.rand([3])[0] == np.float32(0.48514777)


# ---------------------------------------------------------------- helpers

f32 = np.float32


def note(name, msg):
    print(f"  [{name}] {msg}")


def erf_f64(x):
    return np.array([math.erf(v) for v in np.ravel(x).tolist()], dtype=np.float64).reshape(np.shape(x))


# ---------------------------------------------------------------- examples


def heat():
    n, eps, max_iters = 24, 1.0, 5000

    def run(eps):
        g = np.zeros((n, n), dtype=np.float64)
        g[0, :] = 100.0
        delta = np.float64(1e30)
        iters = 0
        history = []
        while delta > eps and iters < max_iters:
            work = 0.2 * (g[1:-1, 1:-1] + g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:])
            delta = np.sum(np.abs(work - g[1:-1, 1:-1]))
            g[1:-1, 1:-1] = work
            iters += 1
            history.append(delta)
        return iters, delta, g, history

    iters, delta, g, hist = run(eps)
    # The sweep count is only reproducible if no delta lies within rounding of eps.
    closest = min(abs(d - eps) / eps for d in hist)
    note("heat", f"{iters} sweeps; closest approach of delta to eps: {closest:.3e} (relative)")
    assert closest > 1e-9 and iters < max_iters
    return [iters, delta, g.sum(), g.mean()], 1e-9, 0.0


def leibniz_pi():
    n = 1_000_000
    k = np.arange(n, dtype=np.float64)
    signs = 1.0 - 2.0 * (k % 2.0)
    estimate = 4.0 * np.sum(signs / (2.0 * k + 1.0))
    return [estimate, abs(estimate - 3.141592653589793)], 1e-9, 1e-9


def monte_carlo_pi():
    rng = Rng()
    n = 100_000
    x = rng.rand([n])
    y = rng.rand([n])
    inside_mask = x * x + y * y < f32(1.0)
    inside = int(np.sum(inside_mask))
    estimate = 4.0 * inside / n
    # How many points would flip if the sum were rounded differently (e.g. fused)?
    exact = x.astype(np.float64) ** 2 + y.astype(np.float64) ** 2 < 1.0
    note("monte_carlo_pi", f"{inside} inside; {int(np.sum(exact != inside_mask))} points differ from exact arithmetic")
    return [inside, n, estimate], 1e-12, 0.0


def nbody_sim(dtype):
    rng = Rng()
    rng.seed(2024)
    n = 64
    x = rng.rand([n]).astype(dtype)
    y = rng.rand([n]).astype(dtype)
    z = rng.rand([n]).astype(dtype)
    vx = dtype(0.1) * (rng.rand([n]).astype(dtype) - dtype(0.5))
    vy = dtype(0.1) * (rng.rand([n]).astype(dtype) - dtype(0.5))
    vz = dtype(0.1) * (rng.rand([n]).astype(dtype) - dtype(0.5))
    m = (dtype(0.5) + rng.rand([n]).astype(dtype)) / dtype(64.0)

    def step(x, y, z, vx, vy, vz, m, dt, soft):
        dx = x[np.newaxis, :] - x[:, np.newaxis]
        dy = y[np.newaxis, :] - y[:, np.newaxis]
        dz = z[np.newaxis, :] - z[:, np.newaxis]
        r2 = dx * dx + dy * dy + dz * dz + soft
        w = m[np.newaxis, :] / (r2 * np.sqrt(r2))
        vx2 = vx + dt * np.sum(dx * w, axis=1)
        vy2 = vy + dt * np.sum(dy * w, axis=1)
        vz2 = vz + dt * np.sum(dz * w, axis=1)
        return x + dt * vx2, y + dt * vy2, z + dt * vz2, vx2, vy2, vz2

    def kinetic(vx, vy, vz, m):
        return dtype(0.5) * np.sum(m * (vx * vx + vy * vy + vz * vz))

    out = [kinetic(vx, vy, vz, m)]
    for _ in range(40):
        x, y, z, vx, vy, vz = step(x, y, z, vx, vy, vz, m, dtype(0.01), dtype(0.01))
    total = np.sum(m)
    out += [kinetic(vx, vy, vz, m), np.sum(m * x) / total, np.sum(m * y) / total, np.sum(m * z) / total]
    return out


def nbody():
    out = nbody_sim(np.float32)
    ref = nbody_sim(np.float64)
    worst = max(abs(float(a) - b) / abs(b) for a, b in zip(out, ref))
    note("nbody", f"f32 vs f64 worst relative difference {worst:.2e}")
    assert worst < 1e-5
    return out, 1e-4, 1e-7


def shallow_water_sim(dt_):
    n = 32
    g, dt, dx, dy = dt_(9.8), dt_(0.02), dt_(1.0), dt_(1.0)
    H = np.ones((n + 2, n + 2), dtype=dt_)
    U = np.zeros((n + 2, n + 2), dtype=dt_)
    V = np.zeros((n + 2, n + 2), dtype=dt_)

    def sq(a):
        return a * a

    c = np.arange(n + 2).astype(dt_)
    d2 = sq(c[:, np.newaxis] - dt_(12.0)) + sq(c[np.newaxis, :] - dt_(19.0))
    H += dt_(0.5) * np.exp(-d2 / dt_(8.0))
    out = [np.sum(H[1:-1, 1:-1]), np.max(H)]

    for _ in range(100):
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

        # first half step: midpoints between rows (x) and between columns (y)
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

        # second half step: fluxes at the midpoints update the cell centres
        gx = sq(Ux) / Hx + g / 2 * sq(Hx)
        gxy = Ux * Vx / Hx
        gy = sq(Vy) / Hy + g / 2 * sq(Hy)
        gyx = Vy * Uy / Hy
        H[1:-1, 1:-1] -= dt / dx * (Ux[1:, :] - Ux[:-1, :]) + dt / dy * (Vy[:, 1:] - Vy[:, :-1])
        U[1:-1, 1:-1] -= dt / dx * (gx[1:, :] - gx[:-1, :]) + dt / dy * (gyx[:, 1:] - gyx[:, :-1])
        V[1:-1, 1:-1] -= dt / dx * (gxy[1:, :] - gxy[:-1, :]) + dt / dy * (gy[:, 1:] - gy[:, :-1])

    out += [np.sum(H[1:-1, 1:-1]), np.max(H), np.min(H)]
    return out


def shallow_water():
    out = shallow_water_sim(np.float32)
    ref = shallow_water_sim(np.float64)
    worst = max(abs(float(a) - b) / abs(b) for a, b in zip(out, ref))
    note("shallow_water", f"f32 vs f64 worst relative difference {worst:.2e}")
    assert worst < 1e-5
    return out, 1e-4, 0.0


def black_scholes():
    rng = Rng()
    rng.seed(11)
    n = 10_000
    s = 58.0 + 4.0 * rng.rand([n], dtype=np.float64)
    k = 50.0 + 20.0 * rng.rand([n], dtype=np.float64)
    t = 0.25 + 1.75 * rng.rand([n], dtype=np.float64)
    rate, vol = 0.0625, 0.25

    def cnd(x):
        return 0.5 * (1.0 + erf_f64(x * 0.7071067811865476))

    sd = vol * np.sqrt(t)
    d1 = (np.log(s / k) + (rate + 0.5 * vol * vol) * t) / sd
    d2 = d1 - sd
    discounted = k * np.exp(-rate * t)
    call = s * cnd(d1) - discounted * cnd(d2)
    put = discounted * cnd(-d2) - s * cnd(-d1)
    parity = np.max(np.abs(call - put - (s - discounted)))
    note("black_scholes", f"parity residual {parity:.2e}")
    return [call[0], put[0], np.sum(call), np.sum(put), parity], 1e-9, 1e-9


def game_of_life():
    rng = Rng()
    n = 32
    board = np.zeros((n + 2, n + 2), dtype=np.int32)
    rng.seed(5)
    board[17:33, 17:33] = (rng.rand([16, 16]) < f32(0.35)).astype(np.int32)
    board[2, 3] = 1
    board[3, 4] = 1
    board[4, 2:5] = 1

    def neighbours(b):
        return (
            b[:-2, :-2] + b[:-2, 1:-1] + b[:-2, 2:]
            + b[1:-1, :-2] + b[1:-1, 2:]
            + b[2:, :-2] + b[2:, 1:-1] + b[2:, 2:]
        )

    out = [0, int(np.sum(board))]
    gens = 75
    for gen in range(1, gens + 1):
        count = neighbours(board)
        board[1:-1, 1:-1] = np.where(count == 3, 1, np.where(count == 2, board[1:-1, 1:-1], 0))
        if gen % 10 == 0:
            out += [gen, int(np.sum(board))]
    out += [gens, int(np.sum(board))]
    return out, 0.0, 0.0


def softmax():
    rng = Rng()
    rng.seed(4)
    logits = f32(1.5) * rng.randn([8, 16])
    assert logits.dtype == np.float32

    def my_softmax(x, axis):
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        return e / np.sum(e, axis=axis, keepdims=True)

    def logsumexp(x, axis):
        mx = np.max(x, axis=axis, keepdims=True)
        return np.log(np.sum(np.exp(x - mx), axis=axis)) + np.squeeze(mx, axis=axis)

    p = my_softmax(logits, 1)
    q = my_softmax(logits, 1)  # the stdlib's softmax: same definition
    lse = logsumexp(logits, 1)
    entropy = -np.sum(p * np.log(p), axis=1)
    assert p.dtype == np.float32 and lse.dtype == np.float32 and entropy.dtype == np.float32
    assert p.min() > 1e-4  # so that atol does not swallow any printed probability
    values = list(np.sum(p, axis=1)) + list(p[0, :4]) + [np.max(np.abs(p - q))] + list(lse) + list(entropy)
    return values, 1e-4, 1e-6


def lu():
    n = 8
    i = np.arange(n, dtype=np.float64)
    a0 = 1.0 / (i[:, None] + i[None, :] + 1.0) + n * np.eye(n)
    a = a0.copy()
    for k in range(n - 1):
        a[k + 1 :, k] /= a[k, k]
        a[k + 1 :, k + 1 :] -= np.outer(a[k + 1 :, k], a[k, k + 1 :])
    # independent of the loop above: U's diagonal from scipy-free Doolittle on a0
    # is checked through the determinant, which must equal numpy's
    diag = np.diag(a)
    assert abs(np.prod(diag) - np.linalg.det(a0)) < 1e-6 * abs(np.linalg.det(a0))
    l = np.tril(a, -1) + np.eye(n)
    u = np.triu(a)
    ok = np.max(np.abs(l @ u - a0)) < 1e-12
    return list(diag) + [np.linalg.det(a0), int(ok)], 1e-12, 1e-12


def lbm():
    nx, ny, steps, tau, u0 = 32, 24, 300, 0.8, 0.01
    c = [(0, 0), (1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1)]
    w = [4 / 9] + [1 / 9] * 4 + [1 / 36] * 4

    def feq(rho, ux, uy):
        out = []
        for (cx, cy), wi in zip(c, w):
            cu = 3.0 * (cx * ux + cy * uy)
            out.append(wi * rho * (1.0 + cu + 0.5 * cu * cu - 1.5 * (ux * ux + uy * uy)))
        return out

    y = np.arange(ny, dtype=np.float64)
    ux = np.broadcast_to((u0 * np.sin(2.0 * math.pi * y / ny))[:, None], (ny, nx))
    f = feq(np.ones((ny, nx)), ux, np.zeros((ny, nx)))
    for _ in range(steps):
        rho = sum(f)
        ux = (f[1] + f[5] + f[8] - f[3] - f[6] - f[7]) / rho
        uy = (f[2] + f[5] + f[6] - f[4] - f[7] - f[8]) / rho
        eq = feq(rho, ux, uy)
        # collide, then stream: population i moves by c_i (axis 1 is x, axis 0 is y)
        f = [np.roll(fi - (fi - ei) / tau, (cy, cx), axis=(0, 1)) for fi, ei, (cx, cy) in zip(f, eq, c)]
    rho = sum(f)
    ux = (f[1] + f[5] + f[8] - f[3] - f[6] - f[7]) / rho
    nu, k = (tau - 0.5) / 3.0, 2.0 * math.pi / ny
    amplitude = np.max(np.abs(ux))
    note("lbm", f"amplitude / theory {amplitude / (u0 * math.exp(-nu * k * k * steps)):.6f}")
    return [np.sum(rho), amplitude, amplitude / (u0 * math.exp(-nu * k * k * steps))], 1e-9, 0.0


EXAMPLES = {
    "heat": heat,
    "leibniz_pi": leibniz_pi,
    "monte_carlo_pi": monte_carlo_pi,
    "nbody": nbody,
    "shallow_water": shallow_water,
    "black_scholes": black_scholes,
    "game_of_life": game_of_life,
    "softmax": softmax,
    "lu": lu,
    "lbm": lbm,
}


def to_json_number(v):
    v = float(v) if not isinstance(v, (int, np.integer)) else int(v)
    return v


def main():
    check_rng()
    only = sys.argv[1:]
    for name, fn in EXAMPLES.items():
        if only and name not in only:
            continue
        values, rtol, atol = fn()
        values = [to_json_number(v) for v in values]
        path = os.path.join(HERE, f"{name}.json")
        with open(path, "w") as f:
            # repr of a Python float round-trips exactly; NaN/Infinity are written
            # as the bare tokens NaN/Infinity, which tests/examples.rs accepts.
            json.dump({"values": values, "rtol": rtol, "atol": atol}, f, indent=1)
            f.write("\n")
        print(f"{name}: {len(values)} values -> {os.path.relpath(path)}")
        print("   ", values)


if __name__ == "__main__":
    main()
