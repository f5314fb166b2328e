# Jacobi iteration for A x = b (Benchpress `jacobi`): a diagonally dominant
# dense system, x updated from all of its previous values each step.
let n = 2000  # scale
let iters = 20  # iters
let i = arange(n) as f64
let a = 1.0 / (abs(i[:, newaxis] - i[newaxis, :]) + 1.0) + 2.0 * n * eye(n, dtype=f64)
let b = sin(i * 0.01)
let d = diagonal(a)
let r = a - diag(d)
let x = zeros([n], dtype=f64)
for k in 0..iters {
    x = (b - r @ x) / d
}
print(sum(x))
print(max(abs(a @ x - b)))
