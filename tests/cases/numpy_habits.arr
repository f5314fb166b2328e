# What NumPy users write, found wrong by porting programs (session 49), each
# against NumPy 2 (`numpy_habits.py` prints OK).

# a small integer's full max and min meet the array again (the reduction
# computes in i32 and must store its own dtype)
let a = [1, 5, 2] as u8
print(max(a) - a, ptp(a), a == max(a), min(a) + a)
# out: [4, 0, 3] 4 [false,  true, false] [2, 6, 3]
let b = [-128, -1, 3, 127] as i8
print(min(b) + b, max(b) - b)
# out: [   0,  127, -125,   -1] [  -1, -128,  124,    0]
let s = [-30000, 30000] as i16
print((s - min(s)) // 2)
# out: [    0, -2768]

# clip's literal bounds outside an integer dtype clip nothing on that side
let img = [10, 128, 250] as u8
print(clip(img, -20, 300), clip(img, 100, 300), clip([5, -3] as i32, 0, 4294967296))
# out: [ 10, 128, 250] [100, 128, 250] [5, 0]

# concat with axis=none joins the arrays flattened
let m = reshape(arange(4), [2, 2])
print(concat([m, m[:1]], axis=none))
# out: [0, 1, 2, 3, 0, 1]

# median reads the middle values, or their mean: two infinities give themselves
print(median([1.0, inf, inf]), median([inf, inf]), median([1.0, 2.0, 4.0, 8.0]), median([3, 1, 2]))
# out: inf inf 3.0 2.0
print(nanmedian([inf, inf, nan]), nanmedian([1.0, nan, 4.0, 2.0]), nanquantile([1.0, 2.0, nan, 4.0], 0.75))
# out: inf 2.0 3.0

# a reshape that needs no copy is a view: a write through it reaches the base
let c = reshape(arange(12), [3, 4])
let w = reshape(c[:, 1], [3])
w[0] = 55
let t = reshape(c[:, 1:3], [3, 2])
t[1, 1] = 42
let u = reshape(c[:, ::2], [3, 1, 2])
u[2, 0, 1] = -1
print(c)
# out: [[ 0, 55,  2,  3],
# out:  [ 4,  5, 42,  7],
# out:  [ 8,  9, -1, 11]]

# matrix norms over a pair of axes, and of a batch
let A = array([[1.0, -2.0], [3.0, 4.0]])
print(norm(A, ord=1, axis=(0, 1)), norm(A, ord=inf, axis=(0, 1)), norm(A, ord=-1, axis=(1, 0)), norm(A, ord="fro", axis=(0, 1)))
# out: 6.0 7.0 3.0 5.477225575051661
let B = stack([A, 2.0 * A, transpose(A)])
print(norm(B, ord=1, axis=(1, 2)), norm(B, ord=-inf, axis=(2, 1)))
# out: [ 6.0, 12.0,  7.0] [4.0, 8.0, 3.0]
print(shape(norm(B, ord=inf, axis=(1, 2), keepdims=true)), shape(norm(B, ord="fro", axis=(0, 2), keepdims=true)))
# out: (3, 1, 1) (1, 2, 1)

# a random function's array parameters give the draw its shape, each element its own draw
seed(3)
let r = normal([0.0, 0.0, 0.0], 1.0)
print(shape(r), r[0] != r[1], shape(uniform([0.0, 1.0], 2.0)), shape(randint([5, 6, 7, 8])), shape(normal(zeros([2, 1]), ones([3]))))
# out: (3,) true (2,) (4,) (2, 3)

# gradient of an N-D array: one derivative per axis (a tuple), each axis its own spacing
let f = array([[1.0, 2.0, 4.0, 7.0, 11.0], [2.0, 4.0, 8.0, 14.0, 22.0]])
let (gy, gx) = gradient(f)
let (hy, hx) = gradient(f, (0.5, 2.0))
print(gy[1], gx[1], hy[0, 2], hx[0, :2], gradient(f, axis=(1,))[0, 4], gradient(f, axis=-1)[1, 0])
# out: [ 1.0,  2.0,  4.0,  7.0, 11.0] [2.0, 3.0, 5.0, 7.0, 8.0] 8.0 [ 0.5, 0.75] 4.0 2.0

# clip and full meet integer limits, linspace floors into integers, take of no indices
print(linspace(-1, 1, 5, dtype=i64), linspace(0, 10, 4, dtype=i32), take(arange(3), []), cond(zeros([2, 2])))
# out: [-1, -1,  0,  0,  1] [ 0,  3,  6, 10] [] inf

# a loop over a vector reads each element when it gets there (the loop writes ahead of itself)
let run = [1.0, 2.0, 3.0, 4.0]
let k = 0
for v in run {
    if k + 1 < 4 {
        run[k + 1] = run[k + 1] + v
    }
    k += 1
}
print(run)
# out: [ 1.0,  3.0,  6.0, 10.0]

# NumPy 2's names
print(asin(0.5), atan(1.0), asinh(1.0), pow(2, 10), pow([2.0, 3.0], 2))
# out: 0.5235987755982989 0.7853981633974483 0.881373587019543 1024 [4.0, 9.0]
let x3 = reshape(arange(24), [2, 3, 4])
print(shape(permute_dims(x3, [2, 0, 1])), shape(matrix_transpose(x3)), vecdot([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0]))
# out: (4, 2, 3) (2, 4, 3) [3.0, 7.0]
print(cumulative_sum([1, 2, 3], include_initial=true), cumulative_sum(reshape(arange(6), [2, 3]), axis=1), cumulative_prod([1, 2, 3], include_initial=true))
# out: [0, 1, 3, 6] [[ 0,  1,  3],
# out:  [ 3,  7, 12]] [1, 1, 2, 6]
print(fabs([-1, 2]), positive([1.5, -2.0]), isposinf([inf, -inf, 1.0]), isneginf([inf, -inf, nan]), logaddexp2(1.0, 1.0), logaddexp2(3.0, 1.0))
# out: [1.0, 2.0] [ 1.5, -2.0] [ true, false, false] [false,  true, false] 2.0 3.321928094887362
print(gcd([12, -20, 0, 7], [18, 8, 0, 0]), lcm([4, -6, 0], [6, 4, 5]), gcd(12, 18))
# out: [6, 4, 0, 7] [12, 12,  0] 6
