# LU decomposition without pivoting, in place, as in Benchpress.
#
# Step k divides the column below the pivot by the pivot and subtracts the
# outer product of that column and the pivot's row from the trailing block:
# every step works on a smaller slice, so the loop meets n-1 shapes. The
# matrix is diagonally dominant (a Hilbert-like matrix plus n on the
# diagonal), so no pivoting is needed. Prints the diagonal of U, the
# determinant (their product) and whether L @ U gives A back.

let n = 8
let i = arange(n, dtype=f64)
let a0 = 1.0 / (i[:, newaxis] + i[newaxis, :] + 1.0) + n * eye(n, dtype=f64)
let a = copy(a0)

for k in 0..n-1 {
    a[k+1:, k] = a[k+1:, k] / a[k, k]
    a[k+1:, k+1:] = a[k+1:, k+1:] - a[k+1:, k:k+1] * a[k:k+1, k+1:]
}

# L: the unit lower triangle; U: the upper triangle, diagonal included
let below = i[:, newaxis] > i[newaxis, :]
let l = where(below, a, 0.0) + eye(n, dtype=f64)
let u = where(below, 0.0, a)
let d = where(eye(n) > 0.0, a, 0.0)
print("diagonal of U:", sum(d, axis=1))
print("determinant:", prod(sum(d, axis=1)))
print("L @ U == A to 1e-12:", max(abs(matmul(l, u) - a0)) < 1e-12)
