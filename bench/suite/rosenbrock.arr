# Rosenbrock function (Benchpress `rosenbrock`): the sum over a vector,
# evaluated iters times on a slightly shifted input and accumulated.
let n = 1000000  # scale
let iters = 10  # iters
fn rosen(x) = sum(100.0 * (x[1:] - x[:-1] ** 2.0) ** 2.0 + (1 - x[:-1]) ** 2.0)
let dataset = arange(n, dtype=f64) / n
let res = 0.0
for k in 0..iters {
    res += rosen(dataset + k * 0.01)
}
res /= n
print(res)
print(rosen(dataset))
