# Gaussian elimination without pivoting (Benchpress `gauss`): row by row,
# each step updating the shrinking trailing block a[c:, c-1:].
let n = 600  # scale
let i = arange(n) as f64
let a = 1.0 / (abs(i[:, newaxis] - i[newaxis, :]) + 1.0) + sin(i[:, newaxis] * 0.1 + i[newaxis, :] * 0.03) + n * eye(n, dtype=f64)
for c in 1..n {
    a[c:, c - 1:] = a[c:, c - 1:] - (a[c:, c - 1] / a[c - 1, c - 1:c])[:, newaxis] * a[c - 1, c - 1:]
}
a = a / diagonal(a)[:, newaxis]
print(sum(a))
print(sum(abs(a)))
print(a[n - 1, n - 1])
print(sum(a[0, :]))
