# Whole program `lu` (bench/programs/programs.py has the same in PyTorch and
# CuPy): LU decomposition without pivoting of an n x n f64 matrix, in place,
# as in Benchpress. Each step updates a shrinking trailing slice, so the loop
# meets n-1 shapes (shape-generic kernels: one compile serves them all).
let n = 1000  # scale
let a = rand([n, n], dtype=f64) + n * eye(n, dtype=f64)
for k in 0..n-1 {
    a[k+1:, k] = a[k+1:, k] / a[k, k]
    a[k+1:, k+1:] = a[k+1:, k+1:] - a[k+1:, k:k+1] * a[k:k+1, k+1:]
}
print("trace of U:", sum(where(eye(n) > 0.0, a, 0.0)))
