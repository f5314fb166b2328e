"""The numbers a case file's `# out:` lines promise, in order (bools as 1 and 0),
for the NumPy oracles beside the cases (`python3 tests/cases/NAME.py` prints OK)."""

import os
import re

import numpy as np


def expected(name):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".arr")
    text = " ".join(l[len("# out:"):] for l in open(path).read().splitlines() if l.startswith("# out:"))
    text = text.replace("true", "1").replace("false", "0")
    return np.array([float(x) for x in re.findall(r"-?inf|nan|-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)])
