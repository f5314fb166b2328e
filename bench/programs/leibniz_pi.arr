# Whole program `leibniz_pi` (see bench/programs/programs.py): pi from n terms
# of the Leibniz series, in f64.
let n = 100000000  # scale
let k = arange(n, dtype=f64)
let signs = 1.0 - 2.0 * (k % 2.0)
let estimate = 4.0 * sum(signs / (2.0 * k + 1.0))
print("pi is about", estimate)
