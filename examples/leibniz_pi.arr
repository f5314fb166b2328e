# Pi from the Leibniz series  pi/4 = 1 - 1/3 + 1/5 - 1/7 + ...
#
# One million terms, summed as a single vector expression in f64. Prints the
# estimate and its distance from pi (the series converges slowly: about 1/n).

let n = 1_000_000
let k = arange(n, dtype=f64)
let signs = 1.0 - 2.0 * (k % 2.0)    # +1, -1, +1, -1, ...
let estimate = 4.0 * sum(signs / (2.0 * k + 1.0))

print("pi is about", estimate)
print("error:", abs(estimate - 3.141592653589793))
