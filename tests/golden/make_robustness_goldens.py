"""Writes the NumPy-made goldens of tests/robustness_io.rs (run from the repository root):

- tests/robustness/io/arange.tsv: `np.arange` of a table of (start, stop, step), as
  Arr spells the arguments; one line per case, tab-separated: the arguments, the
  dtype (`-` for Arr's default) and either `values` followed by NumPy's elements
  (Python's repr, exact for integers past 2^53) or `error` and its kind. (Plain
  text keeps the Rust side free of a JSON parser.)
- tests/robustness/io/*.npy: arrays saved by `np.save`; `save` must write the same bytes.

The Rust test reads these files and needs no NumPy at run time.
"""

import numpy as np

OUT = "tests/robustness/io"

# (arr arguments, numpy arguments, dtype): Arr's default dtypes differ from NumPy's for
# floats (f32), so float cases pass dtype=f64 on both sides.
ARANGE = [
    ("5", (5,), None),
    ("0", (0,), None),
    ("-3", (-3,), None),
    ("2, 9, 3", (2, 9, 3), None),
    ("2, 10, 4", (2, 10, 4), None),
    ("10, -3, -4", (10, -3, -4), None),
    ("10, 3", (10, 3), None),
    ("-5, 5, 7", (-5, 5, 7), None),
    ("2**60, 2**60 + 100", (2**60, 2**60 + 100), None),
    ("2**53 + 1, 2**53 + 4", (2**53 + 1, 2**53 + 4), None),
    ("-(2**62), 2**62, 2**61", (-(2**62), 2**62, 2**61), None),
    ("9223372036854775800, 9223372036854775807", (9223372036854775800, 9223372036854775807), None),
    ("-9223372036854775807, -9223372036854775800, 3", (-9223372036854775807, -9223372036854775800, 3), None),
    ("0.0, 10.0, inf", (0.0, 10.0, np.inf), "f64"),
    ("0.0, 10.0, -inf", (0.0, 10.0, -np.inf), "f64"),
    ("10.0, 0.0, -inf", (10.0, 0.0, -np.inf), "f64"),
    ("0.0, -10.0, inf", (0.0, -10.0, np.inf), "f64"),
    ("1, 2, 0.3", (1, 2, 0.3), "f64"),
    ("0.1, 1.0, 0.1", (0.1, 1.0, 0.1), "f64"),
    ("-1.5, 2.5, 0.5", (-1.5, 2.5, 0.5), "f64"),
    ("5, 1, -1.5", (5, 1, -1.5), "f64"),
    ("1e16, 1e16 + 10, 1.0", (1e16, 1e16 + 10, 1.0), "f64"),
    ("2.0**60, 2.0**60 + 1000, 100.0", (2.0**60, 2.0**60 + 1000, 100.0), "f64"),
    ("0.5, 0.5", (0.5, 0.5), "f64"),
    ("nan", (np.nan,), "f64"),
    ("0.0, nan", (0.0, np.nan), "f64"),
    ("0.0, 1.0, nan", (0.0, 1.0, np.nan), "f64"),
    ("inf", (np.inf,), "f64"),
    ("0.0, inf", (0.0, np.inf), "f64"),
    ("0, 10, 0", (0, 10, 0), None),
    ("0.0, 10.0, 0.0", (0.0, 10.0, 0.0), "f64"),
]


def arange_case(arr_args, np_args, dtype):
    case = {"args": arr_args, "dtype": dtype}
    try:
        values = np.arange(*np_args, dtype=np.float64 if dtype == "f64" else None)
    except ValueError as e:
        # "arange: cannot compute length" (nan), "Maximum allowed size exceeded" (inf)
        case["error"] = "too large" if "Maximum" in str(e) else "not a number"
        return case
    except ZeroDivisionError:
        case["error"] = "zero step"
        return case
    case["values"] = [repr(v) for v in values.tolist()]
    return case


NPY = {
    "f64_2x3": np.arange(6, dtype=np.float64).reshape(2, 3) / 4,
    "f32_5": np.arange(5).astype(np.float32) / np.float32(8),
    "i32_6": np.arange(-3, 3, dtype=np.int32),
    "i64_scalar": np.array(10, dtype=np.int64),
    "bool_3x2": np.arange(6).reshape(3, 2) > 2,
    "f64_2x0": np.zeros((2, 0)),
    "f32_0x3": np.zeros((0, 3), dtype=np.float32),
    "i64_0": np.zeros((0,), dtype=np.int64),
    "f64_huge_empty": np.zeros((2**40, 0)),
    "u8_2x3": (np.arange(6) * 50).astype(np.uint8).reshape(2, 3),
    "i8_4": np.array([-128, -1, 0, 127], dtype=np.int8),
    "i16_3": np.array([-32768, 5, 32767], dtype=np.int16),
    "u16_3": np.array([0, 40000, 65535], dtype=np.uint16),
    "u32_3": np.array([0, 3000000000, 4294967295], dtype=np.uint32),
}

if __name__ == "__main__":
    with open(f"{OUT}/arange.tsv", "w") as f:
        for c in ARANGE:
            case = arange_case(*c)
            result = ["error", case["error"]] if "error" in case else ["values"] + case["values"]
            f.write("\t".join([case["args"], case["dtype"] or "-", " ".join(result)]) + "\n")
    for name, array in NPY.items():
        np.save(f"{OUT}/{name}.npy", array)
