#!/usr/bin/env python3
"""Differential fuzzing of the fused CPU executor against the reference one.

Generates random programs over random views (strided, reversed, transposed,
broadcast slices of random base arrays, every dtype), elementwise chains,
reductions along random axes with keepdims broadcasting back, scans,
concatenations and rolls of expressions, slice
assignments that read what they write, masks, sorts and gathers; runs each
with `ARR_CPU=reference` and with the fused executor; every program saves its
results to .npy files and NumPy compares them (integers and booleans exactly,
floats within a relative 1e-4 of the array's scale: a fused reduction adds in
another order). A program that fails on one executor only, or differs, is
written to `target/difffuzz/` to replay.

    python3 scripts/difffuzz.py [--arr target/release/arr] [--count 300] [--seed 1]
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIMS = [1, 2, 3, 5, 7, 8, 16, 31, 33, 64, 100, 200, 257, 513, 1000, 2049, 4100]
FLOATS = ["f32", "f64"]
DTYPES = ["f32", "f64", "i32", "i64", "bool"]


class Gen:
    def __init__(self, rng, cap):
        self.rng = rng
        self.cap = cap
        self.lines = []
        self.n = 0

    def fresh(self):
        self.n += 1
        return f"v{self.n}"

    def shape(self):
        r = self.rng
        while True:
            rank = r.choice([1, 1, 2, 2, 2, 3, 3, 4])
            s = [r.choice(DIMS) for _ in range(rank)]
            if int(np.prod(s)) <= self.cap:
                return s

    def base(self, shape, dtype):
        """A new array of `shape`, `dtype`, with nonzero, moderate values."""
        name = self.fresh()
        sh = "[" + ", ".join(map(str, shape)) + "]"
        r = self.rng.random()
        if dtype == "bool":
            e = f"rand({sh}) > {self.rng.choice([0.1, 0.5, 0.9])}"
        elif dtype in FLOATS:
            e = f"rand({sh}, dtype={dtype}) * 4.0 - 2.0" if r < 0.7 else f"randn({sh}, dtype={dtype})"
        else:
            e = f"(rand({sh}) * 40.0 - 20.0) as {dtype}"
        self.lines.append(f"let {name} = {e}")
        return name

    def view(self, shape, dtype):
        """An expression of exactly `shape` reading a view of a fresh base."""
        r = self.rng
        kind = r.random()
        rank = len(shape)
        if kind < 0.3:
            return self.base(shape, dtype)
        if kind < 0.55 and rank >= 2:
            # a transpose of a base with the axes permuted
            perm = list(range(rank))
            r.shuffle(perm)
            bshape = [0] * rank
            for k, p in enumerate(perm):
                bshape[p] = shape[k]
            b = self.base(bshape, dtype)
            return f"permute({b}, [{', '.join(map(str, perm))}])"
        # strided slices of a larger base
        steps = [r.choice([1, 1, 1, 2, 3, -1, -2]) for _ in shape]
        pads = [r.choice([0, 0, 1, 2, 5]) for _ in shape]
        bshape = [d * abs(st) + p for d, st, p in zip(shape, steps, pads)]
        if int(np.prod(bshape)) > 4 * self.cap:
            return self.base(shape, dtype)
        b = self.base(bshape, dtype)
        idx = []
        for d, st, p, bd in zip(shape, steps, pads, bshape):
            start = r.randint(0, p)
            if st > 0:
                idx.append(f"{start}:{start + d * st}:{st}")
            else:
                top = bd - 1 - start
                stop = top + d * st
                idx.append(f"{top}:{'' if stop < 0 else stop}:{st}")
        return f"{b}[{', '.join(idx)}]"

    def leaf(self, shape, dtype):
        """A value broadcastable to `shape`: a view, a scalar, or a view with some axes of 1."""
        r = self.rng
        x = r.random()
        if x < 0.12:
            if dtype == "bool":
                return r.choice(["true", "false"])
            if dtype in FLOATS:
                return f"({r.choice(['0.5', '1.5', '-2.0', '3.0'])} as {dtype})"
            return f"({r.choice(['2', '3', '-1', '7'])} as {dtype})"
        if x < 0.35 and len(shape) >= 1:
            # broadcast: some axes of 1, maybe fewer leading axes
            sub = [d if r.random() < 0.5 else 1 for d in shape]
            drop = r.randint(0, len(shape) - 1) if r.random() < 0.3 else 0
            sub = sub[drop:]
            if len(sub) >= 1 and r.random() < 0.3:
                # newaxis form of a lower-rank view
                keep = [k for k, d in enumerate(sub) if d != 1]
                if keep and len(keep) < len(sub):
                    inner = self.view([sub[k] for k in keep], dtype)
                    idx = [":" if d != 1 else "newaxis" for d in sub]
                    return f"({inner})[{', '.join(idx)}]"
            return self.view(sub, dtype)
        return self.view(shape, dtype)

    def arr(self, shape, dtype, depth):
        """An expression of exactly `shape` (never a scalar): what a reduction or scan reads."""
        e = self.expr(shape, dtype, depth)
        sh = "[" + ", ".join(map(str, shape)) + "]"
        return f"broadcast_to({e}, {sh})" if self.rng.random() < 0.5 else f"({e} + zeros({sh}, dtype={dtype}))" if dtype != "bool" else f"broadcast_to({e}, {sh})"

    def expr(self, shape, dtype, depth):
        r = self.rng
        if depth <= 0 or r.random() < 0.25:
            return self.leaf(shape, dtype)
        x = r.random()
        if r.random() < 0.08 and len(shape) >= 1:
            # a concatenation of expressions along an axis, or a roll (of a roll)
            ax = r.randint(0, len(shape) - 1)
            if r.random() < 0.5:
                cuts = sorted(r.randint(0, shape[ax]) for _ in range(r.randint(1, 2)))
                sizes = [b - a for a, b in zip([0] + cuts, cuts + [shape[ax]])]
                parts = [self.arr(shape[:ax] + [n] + shape[ax + 1:], dtype, depth - 1) for n in sizes]
                return f"concat([{', '.join(parts)}], axis={ax})"
            e = self.arr(shape, dtype, depth - 1)
            axes = sorted(r.sample(range(len(shape)), r.randint(1, min(2, len(shape)))))
            shifts = [r.randint(-shape[a] - 1, shape[a] + 1) for a in axes]
            tup = lambda xs: str(xs[0]) if len(xs) == 1 else f"({', '.join(map(str, xs))})"
            return f"roll({e}, {tup(shifts)}, axis={tup(axes)})"
        if dtype == "bool":
            if x < 0.5:
                t = r.choice(["f32", "f64", "i32", "i64"])
                a, b = self.expr(shape, t, depth - 1), self.expr(shape, t, depth - 1)
                return f"({a} {r.choice(['<', '>', '<=', '>=', '==', '!='])} {b})"
            if x < 0.7:
                return f"(not {self.expr(shape, 'bool', depth - 1)})"
            if x < 0.8 and len(shape) < 4:
                ax = r.randint(0, len(shape))
                inner = shape[:ax] + [r.choice(DIMS[:12])] + shape[ax:]
                if int(np.prod(inner)) <= self.cap:
                    red = r.choice(["any", "all"])
                    return f"{red}({self.arr(inner, 'bool', depth - 1)}, axis={ax})"
            a, b = self.expr(shape, "bool", depth - 1), self.expr(shape, "bool", depth - 1)
            return f"({a} {r.choice(['and', 'or'])} {b})"
        if x < 0.3:
            a, b = self.expr(shape, dtype, depth - 1), self.expr(shape, dtype, depth - 1)
            ops = ["+", "-", "*"] + (["/"] if dtype in FLOATS else [])
            if r.random() < 0.2:
                return f"{r.choice(['minimum', 'maximum'])}({a}, {b})"
            return f"({a} {r.choice(ops)} {b})"
        if x < 0.45:
            a = self.expr(shape, dtype, depth - 1)
            if dtype in FLOATS:
                f = r.choice(["exp(-abs({}))", "log(abs({}) + 1.0)", "sqrt(abs({}))", "sin({})", "tanh({})",
                              "floor({})", "abs({})", "-({})", "square({})", "cos({})", "erf({})"])
            else:
                f = r.choice(["abs({})", "-({})", "square({})", "({} % 7)", "({} // 3)"])
            return f.format(a)
        if x < 0.55:
            c = self.expr(shape, "bool", depth - 1)
            return f"where({c}, {self.expr(shape, dtype, depth - 1)}, {self.expr(shape, dtype, depth - 1)})"
        if x < 0.65:
            src = r.choice([t for t in DTYPES if t != dtype])
            return f"({self.expr(shape, src, depth - 1)} as {dtype})"
        if x < 0.85 and len(shape) < 4:
            # a reduction over an extra axis
            ax = r.randint(0, len(shape))
            inner = shape[:ax] + [r.choice(DIMS)] + shape[ax:]
            if int(np.prod(inner)) > self.cap:
                return self.leaf(shape, dtype)
            red = r.choice(["sum", "max", "min"] + (["mean"] if dtype in FLOATS else []))
            return f"{red}({self.arr(inner, dtype, depth - 1)}, axis={ax})"
        if x < 0.93 and len(shape) >= 1:
            # a row normalisation: x op reduce(x, axis, keepdims) over an axis of the shape
            ax = r.randint(0, len(shape) - 1)
            name = self.fresh()
            self.lines.append(f"let {name} = {self.arr(shape, dtype, depth - 1)}")
            red = r.choice(["sum", "max", "min"] + (["mean"] if dtype in FLOATS else []))
            op = r.choice(["-", "+"] if dtype != "bool" else ["-"])
            return f"({name} {op} {red}({name}, axis={ax}, keepdims=true))"
        if x < 0.96 and len(shape) >= 1 and dtype in FLOATS:
            # statistics and normalisations of the library
            ax = r.randint(0, len(shape) - 1)
            e = self.arr(shape, dtype, depth - 1)
            f = r.choice(["softmax({}, axis={})", "log_softmax({}, axis={})", "var({}, axis={}, keepdims=true)",
                          "std({}, axis={}, keepdims=true)", "({} - mean({}, axis={}, keepdims=true))"])
            if f.count("{}") == 3:
                name = self.fresh()
                self.lines.append(f"let {name} = {e}")
                return f.format(name, name, ax)
            return f.format(e, ax)
        if x < 0.98 and len(shape) == 2 and dtype in FLOATS:
            # a matrix product whose operands may be transposed views
            k = r.choice(DIMS[:11])
            a = self.view([shape[0], k], dtype) if r.random() < 0.5 else f"transpose({self.view([k, shape[0]], dtype)})"
            b = self.view([k, shape[1]], dtype) if r.random() < 0.5 else f"transpose({self.view([shape[1], k], dtype)})"
            return f"({a} @ {b})"
        if len(shape) >= 1 and dtype != "bool":
            ax = r.randint(0, len(shape) - 1)
            scan = r.choice(["cumsum", "cummax", "cummin"])
            return f"{scan}({self.arr(shape, dtype, depth - 1)}, axis={ax})"
        return self.leaf(shape, dtype)

    def program(self):
        r = self.rng
        self.lines.append(f"seed({r.randint(0, 10**6)})")
        outs = []
        for k in range(r.randint(1, 3)):
            shape = self.shape()
            dtype = r.choice(DTYPES)
            form = r.random()
            if form < 0.55:
                e = self.arr(shape, dtype, r.randint(1, 4))
                self.lines.append(f"let out{k} = {e}")
            elif form < 0.7 and len(shape) >= 1:
                # a whole reduction or an arg-reduction of an expression
                e = self.arr(shape, dtype if dtype != "bool" else "f32", r.randint(1, 3))
                f = r.choice(["sum", "max", "min", "argmax", "argmin", "prod" if len(shape) == 1 else "sum"])
                ax = r.choice(["", f", axis={r.randint(0, len(shape) - 1)}"])
                self.lines.append(f"let out{k} = {f}({e}{ax})")
            elif form < 0.85:
                # a slice assignment into a base that the source may read (shifted)
                b = self.base(shape, dtype)
                lo = [r.randint(0, min(2, d - 1)) for d in shape]
                hi = [d - r.randint(0, min(2, d - 1 - l)) for d, l in zip(shape, lo)]
                hi = [max(h, l + 1) for h, l in zip(hi, lo)]
                sub = [h - l for h, l in zip(hi, lo)]
                dst = f"{b}[{', '.join(f'{l}:{h}' for l, h in zip(lo, hi))}]"
                # the source: a shifted window of the same base, plus something else
                sl = []
                for d, s in zip(shape, sub):
                    st = r.randint(0, d - s)
                    sl.append(f"{st}:{st + s}")
                src = f"{b}[{', '.join(sl)}]"
                other = self.expr(sub, dtype, r.randint(0, 2))  # a scalar broadcasts
                op = r.choice(["+", "*", "-"]) if dtype != "bool" else r.choice(["and", "or"])
                aug = r.random() < 0.3 and dtype != "bool"
                if aug:
                    self.lines.append(f"{dst} {op}= {src}")
                else:
                    self.lines.append(f"{dst} = {src} {op} {other}")
                self.lines.append(f"let out{k} = {b}")
            else:
                e = self.arr(shape, dtype, r.randint(1, 3))
                name = self.fresh()
                self.lines.append(f"let {name} = {e}")
                f = r.random()
                if f < 0.3:
                    self.lines.append(f"let out{k} = {name}[{name} {'> 0' if dtype != 'bool' else '== true'}]")
                elif f < 0.55 and dtype != "bool":
                    self.lines.append(f"let out{k} = sort({name}, axis={r.randint(0, len(shape) - 1)})")
                elif f < 0.75:
                    self.lines.append(f"let out{k} = argsort(ravel({name}))")
                else:
                    n = int(np.prod(shape))
                    self.lines.append(f"let out{k} = take(ravel({name}), (rand([{r.choice(DIMS)}]) * {n}.0) as i64)")
            outs.append(f"out{k}")
        return outs


def run(arr, text, outdir, env_extra):
    env = dict(os.environ, **env_extra)
    p = subprocess.run([arr, "--backend", "cpu", "run", "-"], input=text, capture_output=True, text=True,
                       cwd=outdir, env=env, timeout=120)
    return p.returncode, p.stdout + p.stderr


def compare(a, b):
    if a.dtype != b.dtype or a.shape != b.shape:
        return f"dtype/shape {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
    if a.dtype.kind in "biu":
        bad = np.flatnonzero(a.ravel() != b.ravel())
    else:
        fa, fb = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
        scale = np.nanmax(np.abs(fb)) if fb.size and not np.all(np.isnan(fb)) else 1.0
        scale = scale if np.isfinite(scale) and scale > 0 else 1.0
        tol = (1e-4 if a.dtype == np.float32 else 1e-9) * scale
        same = (np.isnan(fa) & np.isnan(fb)) | (fa == fb) | (np.abs(fa - fb) <= tol)
        bad = np.flatnonzero(~same)
    if bad.size:
        k = bad[0]
        return f"{bad.size} of {a.size} differ; first at flat {k}: fused {a.ravel()[k]} reference {b.ravel()[k]}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arr", default=os.path.join(ROOT, "target/release/arr"))
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cap", type=int, default=300_000, help="most elements of a value")
    args = ap.parse_args()
    faildir = os.path.join(ROOT, "target/difffuzz")
    os.makedirs(faildir, exist_ok=True)
    fails = 0
    ran = 0
    for i in range(args.count):
        rng = random.Random(args.seed * 1_000_003 + i)
        g = Gen(rng, args.cap)
        outs = g.program()
        with tempfile.TemporaryDirectory() as d:
            results = {}
            for mode, env in (("fused", {}), ("reference", {"ARR_CPU": "reference"})):
                od = os.path.join(d, mode)
                os.makedirs(od)
                text = "\n".join(g.lines + [f'save("{o}.npy", {o})' for o in outs]) + "\n"
                rc, log = run(args.arr, text, od, env)
                results[mode] = (rc, log, od)
            (rf, lf, df), (rr, lr, dr) = results["fused"], results["reference"]
            why = None
            if rf != rr or (rf != 0 and lf != lr):
                why = f"exit {rf} vs {rr}\n--- fused\n{lf[-2000:]}\n--- reference\n{lr[-2000:]}"
            elif rf == 0:
                ran += 1
                for o in outs:
                    c = compare(np.load(os.path.join(df, o + ".npy")), np.load(os.path.join(dr, o + ".npy")))
                    if c:
                        why = f"{o}: {c}"
                        break
            if why:
                fails += 1
                path = os.path.join(faildir, f"fail_{args.seed}_{i}.arr")
                with open(path, "w") as f:
                    f.write(text)
                print(f"[{i}] {path}: {why}", flush=True)
    print(f"{args.count} programs, {ran} ran on both, {fails} differ")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
