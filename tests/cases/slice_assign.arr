# Slice assignment writes into the destination buffer, and every array that
# shares it sees the change, as in NumPy; a pending value computed from the
# old contents keeps them; a source that reads the region it writes sees the
# old values (NumPy buffers such a source). Expected values from NumPy
# (tests/cases/slice_assign.py prints the same values).
let a = arange(6)
let b = a
let c = a * 2
let v = a[1:4]
a[0] = 10
v[1] = 20
print(a, b, c, v)
# out: [10,  1, 20,  3,  4,  5] [10,  1, 20,  3,  4,  5] [ 0,  2,  4,  6,  8, 10] [ 1, 20,  3]
let s = copy(a)
a[5] = -1
print(s[5], a[5])
# out: 5 -1
# a shifted read of the region being written: the old values move
let x = arange(6)
x[1:] = x[:-1]
print(x)
# out: [0, 0, 1, 2, 3, 4]
let y = arange(6)
y[:-1] = y[1:]
print(y)
# out: [1, 2, 3, 4, 5, 5]
let r = arange(6)
r[:] = r[::-1]
print(r)
# out: [5, 4, 3, 2, 1, 0]
# a Jacobi sweep: the neighbours are read before the region is written
let u = [0.0, 4.0, 8.0, 0.0, 8.0, 4.0]
u[1:-1] = (u[:-2] + u[2:]) / 2.0
print(u)
# out: [0.0, 4.0, 2.0, 8.0, 2.0, 4.0]
# the same index read and written, and an element outside the region
let m = reshape(arange(12) as f64, [3, 4]) + 1.0
m[1:, 0] = m[1:, 0] / m[0, 0]
m[1:, 1:] = m[1:, 1:] - m[1:, 0:1] * m[0:1, 1:]
print(m)
# out: [[  1.0,   2.0,   3.0,   4.0],
# out:  [  5.0,  -4.0,  -8.0, -12.0],
# out:  [  9.0,  -8.0, -16.0, -24.0]]
# broadcasting sources, from outside and from the destination's own buffer
let g = zeros([3, 3], dtype=i64)
g[1:, :] = [7, 8, 9]
g[:, 0:1] = g[:, 2:3]
g[0] += g[2]
print(g)
# out: [[9, 8, 9],
# out:  [9, 8, 9],
# out:  [9, 8, 9]]
let h = reshape(arange(9), [3, 3])
h[1:] -= h[:-1]
print(h)
# out: [[0, 1, 2],
# out:  [3, 3, 3],
# out:  [3, 3, 3]]
# through a transposed view and a stepped view
let t = reshape(arange(6), [2, 3])
let tt = transpose(t)
tt[1] = [-1, -2]
t[:, ::2] *= 10
print(t)
# out: [[ 0, -1, 20],
# out:  [30, -2, 50]]
# masks and integer arrays, reading the array they write
let k = arange(8)
let kb = k
k[k > 4] = k[k > 4] * 10
k[k < 2] += 100
print(k, kb)
# out: [100, 101,   2,   3,   4,  50,  60,  70] [100, 101,   2,   3,   4,  50,  60,  70]
let w = arange(5) * 1.5
w[[0, 4]] = w[[4, 0]]
w[[1, 1]] = [7.0, 8.0]
print(w)
# out: [6.0, 8.0, 3.0, 4.5, 0.0]
# a loop: a value made in the iteration reads the array before the write
let q = ones(4)
for i in 0..4 {
    let t2 = q * 2.0
    q[i] = t2[i] + sum(q)
}
print(q)
# out: [ 6.0, 11.0, 21.0, 41.0]
# a function writing into a global array that a local name shares
let glob = zeros(3, dtype=i64)
let alias = glob
fn put(i, val) {
    glob[i] = val
    0
}
put(1, 5)
put(-1, 9)
print(alias)
# out: [0, 5, 9]
# indices computed from a loop counter, negative ones too
let z2 = arange(5)
for j in 1..3 {
    z2[-j] = z2[j - 1] * 10 + z2[2 * j]
}
print(z2)
# out: [ 0,  1,  2, 12,  2]
# an integer and an index array with a slice between them: the gathered axis comes first, as NumPy's advanced indices apart
let x3 = reshape(arange(24), [2, 3, 4])
print(x3[1, :, [0, 3]])
# out: [[12, 16, 20],
# out:  [15, 19, 23]]
print(x3[:, 1, [0, 3]])
# out: [[ 4,  7],
# out:  [16, 19]]
print(x3[1, ..., [0, 3]])
# out: [[12, 16, 20],
# out:  [15, 19, 23]]
let z3 = reshape(arange(30), [2, 3, 5])
print(z3[0, :, [[0], [1]]])
# out: [[[ 0,  5, 10]],
# out:
# out:  [[ 1,  6, 11]]]
print(z3[1, :, z3[0, 0] > 2])
# out: [[18, 23, 28],
# out:  [19, 24, 29]]
z3[1, :, [0, 3]] = reshape(arange(6), [2, 3]) * 100
z3[0, :, [1, 2]] += 1000
print(z3)
# out: [[[   0, 1001, 1002,    3,    4],
# out:   [   5, 1006, 1007,    8,    9],
# out:   [  10, 1011, 1012,   13,   14]],
# out:
# out:  [[   0,   16,   17,  300,   19],
# out:   [ 100,   21,   22,  400,   24],
# out:   [ 200,   26,   27,  500,   29]]]
# an empty index list selects nothing
let e5 = arange(5)
let m23 = reshape(arange(6), [2, 3])
e5[[]] = 7
print(shape(e5[[]]), shape(m23[[]]), shape(m23[:, []]), e5)
# out: (0,) (0, 3) (2, 0) [0, 1, 2, 3, 4]
# several index arrays taken together, as NumPy
let d = reshape(arange(12.0), [3, 4])
print(d[arange(3), [1, 3, 0]])
# out: [1.0, 7.0, 8.0]
print(d[[-1, 0], [-1, -2]])
# out: [11.0,  2.0]
let x4 = reshape(arange(24), [2, 3, 4])
print(x4[[0, 1], [2, 0]])
# out: [[ 8,  9, 10, 11],
# out:  [12, 13, 14, 15]]
print(x4[[0, 1], :, [1, 3]])
# out: [[ 1,  5,  9],
# out:  [15, 19, 23]]
print(x4[:, [0, 2], [1, 3]])
# out: [[ 1, 11],
# out:  [13, 23]]
print(x4[[[0], [1]], [0, 2]])
# out: [[[ 0,  1,  2,  3],
# out:   [ 8,  9, 10, 11]],
# out:
# out:  [[12, 13, 14, 15],
# out:   [20, 21, 22, 23]]]
# the last item of full shape and an earlier one broadcast (NumPy's values)
print(x4[[[0], [1]], [[0, 2], [1, 1]], [[3, -1], [0, 2]]], x4[[[1, 0], [0, 1]], 1, [[3], [2]]])
# out: [[ 3, 11],
# out:  [16, 18]] [[19,  7],
# out:  [ 6, 18]]
print(x4[1, [0, 2], [3, 1]])
# out: [15, 21]
print(x4[[1, 0], 2, [3, 1]])
# out: [23,  9]
print(x4[1][[true, false, true], [0, 3]])
# out: [12, 23]
d[arange(3), [1, 3, 0]] = -1.0
print(d)
# out: [[ 0.0, -1.0,  2.0,  3.0],
# out:  [ 4.0,  5.0,  6.0, -1.0],
# out:  [-1.0,  9.0, 10.0, 11.0]]
x4[[0, 1], :, [1, 3]] = reshape(arange(6), [2, 3]) * 100
x4[:, [0, 0], [2, 2]] += 1000
print(x4)
# out: [[[   0,    0, 1002,    3],
# out:   [   4,  100,    6,    7],
# out:   [   8,  200,   10,   11]],
# out:
# out:  [[  12,   13, 1014,  300],
# out:   [  16,   17,   18,  400],
# out:   [  20,   21,   22,  500]]]
# a tuple of index arrays (nonzero, where, triu_indices) indexes one axis each
let a6 = reshape(arange(6), [2, 3])
print(a6[nonzero(a6 > 2)], a6[where(a6 < 2)])
# out: [3, 4, 5] [0, 1]
let b6 = reshape(arange(16), [4, 4])
print(b6[triu_indices(4, 1)], b6[tril_indices(4)], b6[diag_indices(4)])
# out: [ 1,  2,  3,  6,  7, 11] [ 0,  4,  5,  8,  9, 10, 12, 13, 14, 15] [ 0,  5, 10, 15]
b6[triu_indices(4, 1)] = 0
print(b6)
# out: [[ 0,  0,  0,  0],
# out:  [ 4,  5,  0,  0],
# out:  [ 8,  9, 10,  0],
# out:  [12, 13, 14, 15]]
let c6 = reshape(arange(24), [2, 3, 4])
print(c6[nonzero(c6[:, :, 0] > 4)])
# out: [[ 8,  9, 10, 11],
# out:  [12, 13, 14, 15],
# out:  [16, 17, 18, 19],
# out:  [20, 21, 22, 23]]
# an array keeps the dtype it was given beside numbers, as NumPy
print(array([2147483647], dtype=i32) + 1, array([16777216.0], dtype=f32) + 1.0, asarray([3], dtype=i32) * 2147483647)
# out: [-2147483648] [16777216.0] [2147483645]
# `x += e` on an array works in place, as NumPy's: a view, another name, a loop's
# row and a caller's array see the change; the array keeps its dtype and shape
let grid = zeros([4, 4])
let center = grid[1:-1, 1:-1]
center += 1.0
print(sum(grid))
# out: 4.0
let p7 = arange(6)
let q7 = p7
q7 += 10
for row in reshape(p7, [2, 3]) {
    row *= 2
}
print(p7)
# out: [20, 22, 24, 26, 28, 30]
fn bump(x) {
    x -= 1
    x
}
let r7 = ones([3], dtype=f64)
let s7 = bump(r7)
print(r7, s7)
# out: [0.0, 0.0, 0.0] [0.0, 0.0, 0.0]
let f7 = zeros([3], dtype=f32)
let g7 = f7
f7 += arange(3) * 1.5
f7 /= 2
print(g7, dtype(f7) == f32 and dtype(f7) == "float32")
# out: [ 0.0, 0.75,  1.5] true
let w7 = ones([3])
let u7 = w7
w7 += w7[::-1] * arange(3)
print(u7)
# out: [1.0, 2.0, 3.0]
# a scalar is a number: `+=` rebinds it, its dtype following promotion
let n7 = 1
n7 += 0.5
let o7 = sum(arange(3))
let v7 = o7
o7 += 1
print(n7, v7, o7)
# out: 1.5 3 4
