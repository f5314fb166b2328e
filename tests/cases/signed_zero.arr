# Ties between zeros of opposite sign, as NumPy breaks them: `minimum` and
# `maximum` (and `min`/`max` folding them) give the second operand, `fmin`
# and `fmax` the first, `clip` keeps a value equal to a bound. Each result
# is shown through 1 / x, whose infinity's sign is the zero's (the oracle,
# tests/cases/signed_zero.py, prints OK when NumPy gives the same).
let a = [0.0, -0.0]
let b = [-0.0, 0.0]
print(1.0 / minimum(a, b), 1.0 / maximum(a, b))
# out: [-inf,  inf] [-inf,  inf]
print(1.0 / fmin(a, b), 1.0 / fmax(a, b))
# out: [ inf, -inf] [ inf, -inf]
print(1.0 / min(a), 1.0 / min(b), 1.0 / max(a), 1.0 / max(b))
# out: -inf inf -inf inf
print(1.0 / clip(b, 0.0, 1.0), 1.0 / clip(a, -1.0, -0.0))
# out: [-inf,  inf] [ inf, -inf]
