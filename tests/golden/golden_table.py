"""The JSON tables the golden scripts write and tests/common/golden.rs reads:
one row per Arr source, with either the error code it must give or NumPy's
dtype, shape and values of its variable `r`."""

import json
import math
import os
import warnings

import numpy as np

NAMES = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64",
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
}


def number(v):
    """A value as the table holds it: NaN and infinities as strings."""
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def row(src, expect, **extra):
    """`expect` is an error code, or a function computing the value with NumPy."""
    r = {"src": src, **extra}
    if isinstance(expect, str):
        r["error"] = expect
    else:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = np.asarray(expect())
        r["dtype"] = NAMES[value.dtype]
        r["shape"] = list(value.shape)
        r["values"] = [number(v) for v in value.reshape(-1)]
    return r


def write(rel_path, rows):
    """Writes `rows` to tests/golden/`rel_path`, one row a line."""
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), rel_path)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write("[\n")
        f.write(",\n".join(json.dumps(r) for r in rows))
        f.write("\n]\n")
    print(f"wrote {len(rows)} rows to {out}")
