#!/usr/bin/env python3
"""The NumPy oracle of tests/cases/out_param.arr: the same statements in NumPy,
printing the values its `# out:` lines hold (the check compares the numbers,
not the layout).

    python3 tests/cases/out_param.py     # prints OK or the first mismatch
"""

import numpy as np

from case_values import Printed, compare


def oracle():
    out = Printed()
    f32 = np.float32
    a = np.arange(6, dtype=f32)
    b = np.ones((2, 6), dtype=f32)
    o = np.zeros((2, 6), dtype=f32)
    r = np.add(a, b, out=o)
    r[1, 0] = 9.0
    out += [o, o[1, 0] == 9.0]
    v = o[0]
    np.multiply(v, 2.0, out=v)
    out.append(o)
    x = np.arange(5, dtype=np.float64)
    y = x
    np.sqrt(x, out=x)
    out.append(y)
    i = np.zeros(3, dtype=np.int32)
    np.add(np.arange(3), 1, out=i)
    out.append(i)
    f = np.zeros(3, dtype=f32)
    np.greater(np.arange(3), 1, out=f)
    out.append(f)
    out.append(np.clip(np.arange(6), 1, 3, out=np.zeros(6, dtype=np.int64)))
    m = np.zeros((3, 4), dtype=f32)
    col = m[:, 1]
    np.subtract(np.arange(3, dtype=f32), 0.5, out=col)
    out.append(m)
    t = np.arange(12, dtype=f32).reshape(3, 4)
    np.add(t, t.T[:4, :3].T[::-1], out=t)
    out.append(t)
    g = np.zeros((2, 3), dtype=f32)
    np.exp(np.zeros(3, dtype=f32), out=g)
    out.append(g)
    w = np.arange(6, dtype=f32)
    np.maximum(w[::-1], 2.5, out=w)
    out.append(w)
    k = np.arange(8)
    np.left_shift(k, 1, out=k)
    np.bitwise_and(k, 6, out=k)
    out.append(k)
    c = np.zeros(4, dtype=bool)
    np.logical_or(np.arange(4) > 2, np.arange(4) < 1, out=c)
    out.append(c)
    s = np.zeros(4, dtype=f32)
    np.round(np.array([0.5, 1.5, 2.25, -0.5], dtype=f32), 1, out=s)
    # f32 values as the case prints them: the shortest repr, read back as f64
    out.append([float(str(v)) for v in s])
    x = np.arange(12, dtype=f32).reshape(3, 4)
    s = np.zeros(4, dtype=f32)
    np.sum(x, axis=0, out=s)
    out.append(s)
    mx = np.zeros((3, 1), dtype=f32)
    np.max(x, axis=1, keepdims=True, out=mx)
    out.append(mx)
    am = np.zeros(4, dtype=np.int32)
    np.argmax(x, axis=0, out=am.astype(np.int64))  # NumPy's argmax wants an int64 out
    out.append(np.argmax(x, axis=0))
    cs = np.zeros((3, 4))
    np.cumsum(x, axis=1, out=cs)
    out.append(cs)
    p = np.zeros((3, 3), dtype=f32)
    np.matmul(x, x.T, out=p)
    out.append(p)
    mu = np.zeros((), dtype=f32)
    np.mean(x, out=mu)
    out.append(mu)
    return np.concatenate([np.ravel(np.asarray(o, dtype=np.float64)) for o in out])


if __name__ == "__main__":
    compare("out_param", oracle())
