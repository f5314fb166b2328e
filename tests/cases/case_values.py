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


class Printed(list):
    """An oracle's printed values: a print shows the values at that moment,
    so each is kept as a copy (`out.append(x)`, `out += [x, y]`)."""

    def append(self, x):
        super().append(np.array(x, dtype=np.float64))

    def __iadd__(self, xs):
        for x in xs:
            self.append(x)
        return self


def compare(name, want):
    """Prints OK when the oracle's values `want` are the case's `# out:` numbers."""
    got = expected(name)
    assert want.shape == got.shape, (want.shape, got.shape)
    bad = np.nonzero(want != got)[0]
    print("OK" if bad.size == 0 else f"mismatch at value {bad[0]}: NumPy {want[bad[0]]}, case {got[bad[0]]}")
