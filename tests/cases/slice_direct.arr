# Slice assignment whose source is computed straight into the destination
# (issue 11) where no element of the region is read after it is written, and
# through a temporary where one may be: the same region read elementwise,
# disjoint rows and columns, shifted and transposed reads of the region,
# negative steps, broadcasts, `op=`, dtype conversion, sources also read
# afterwards, two names of one buffer. Sizes cross the fused executor's
# block and parallel thresholds. Expected values from NumPy
# (tests/cases/slice_direct.py computes the same and compares).
# the same region read elementwise (direct), large enough to run in parallel
let a = reshape(arange(300 * 500), [300, 500])
a[1:-1, 1:-1] = a[1:-1, 1:-1] * 3 - 7
print(sum(a), a[1, 1], a[0, 5], a[298, 498], a[299, 499])
# out: 33509337768 1496 5 448487 149999
# a row outside the region, broadcast down it, and `op=`
a[1:-1, 1:-1] += a[0, 1:-1]
a[1:-1, 0] -= a[1:-1, 499] // 2
print(sum(a), a[5, 7], a[7, 0], a[298, 0])
# out: 33535152614 7521 1501 74251
# short rows (several to a block) reading a column outside the region
let w = reshape(arange(3000 * 24), [3000, 24])
w[1:, 2:22] = w[1:, 2:22] * 2 + w[:-1, 0:1]
print(sum(w), w[1, 2], w[2999, 21])
# out: 6909774250 52 215946
# disjoint rows and columns of the destination's own buffer
let b = reshape(arange(20) * 1.5, [4, 5])
b[:, 0] = -b[:, 1]
b[:, 4] = b[:, 3] * 2.0
b[0, :] = b[3, :] + 1.0
b[3, :] = b[0, :]
print(b)
# out: [[-23.0,  25.0,  26.5,  28.0,  55.0],
# out:  [ -9.0,   9.0,  10.5,  12.0,  24.0],
# out:  [-16.5,  16.5,  18.0,  19.5,  39.0],
# out:  [-23.0,  25.0,  26.5,  28.0,  55.0]]
# shifted reads of the region (through a temporary)
let u = reshape(arange(36) as f64, [6, 6])
u[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
print(u[1:-1, 1:-1])
# out: [[ 7.0,  8.0,  9.0, 10.0],
# out:  [13.0, 14.0, 15.0, 16.0],
# out:  [19.0, 20.0, 21.0, 22.0],
# out:  [25.0, 26.0, 27.0, 28.0]]
let big = reshape(arange(400 * 400) as f64, [400, 400])
big[1:-1, 1:-1] = big[:-2, 1:-1] + big[2:, 1:-1] - big[1:-1, :-2]
print(sum(big), big[1, 1], big[398, 398])
# out: 12800078404.0 402.0 159599.0
# transposed destinations: from elsewhere, the same view, and the region transposed
let t = zeros([3, 4])
let tt = transpose(t)
tt[:, :] = reshape(arange(12), [4, 3]) * 2.0
tt[1:, :] = tt[1:, :] + 1.0
print(t)
# out: [[ 0.0,  7.0, 13.0, 19.0],
# out:  [ 2.0,  9.0, 15.0, 21.0],
# out:  [ 4.0, 11.0, 17.0, 23.0]]
let sq = reshape(arange(16) as f64, [4, 4])
sq[:, :] = transpose(sq) + 0.5
print(sq)
# out: [[ 0.5,  4.5,  8.5, 12.5],
# out:  [ 1.5,  5.5,  9.5, 13.5],
# out:  [ 2.5,  6.5, 10.5, 14.5],
# out:  [ 3.5,  7.5, 11.5, 15.5]]
let bt = reshape(arange(200 * 300), [200, 300])
let btt = transpose(bt)
btt[1:, :] = btt[1:, :] * 2 + btt[0, :]
print(sum(bt), bt[0, 0], bt[199, 299])
# out: 5379000000 0 179698
# negative steps: the same reversed view, a disjoint one, and an overlapping one
let r = arange(10) as f64
r[::-1] = r[::-1] * 2.0
r[::-2] = r[::2] + 100.0
print(r)
# out: [  0.0, 116.0,   4.0, 112.0,   8.0, 108.0,  12.0, 104.0,  16.0, 100.0]
r[:] = r[::-1] + 1.0
print(r)
# out: [101.0,  17.0, 105.0,  13.0, 109.0,   9.0, 113.0,   5.0, 117.0,   1.0]
# scalars broadcast into the region, and a reduction that reads it
let s = reshape(arange(12), [3, 4])
s[1, :] = 7
s[1:, 0] = max(s[0, :])
s[:, 1] = sum(s[:, 1])
s[2, 1:3] = s[0:1, 3] * 2 + zeros([2], dtype=i64)
print(s)
# out: [[ 0, 17,  2,  3],
# out:  [ 3, 17,  7,  7],
# out:  [ 3,  6,  6, 11]]
# dtype conversion on assignment
let ai = zeros([3, 4], dtype=i32)
ai[1:, :] = reshape(arange(8), [2, 4]) * 1.75
ai[0, :] = ai[2, :] + 2.5
let af = zeros(4, dtype=f32)
af[:] = arange(4) + 0.5
af[1:] *= 2
print(ai, af)
# out: [[ 9, 10, 12, 14],
# out:  [ 0,  1,  3,  5],
# out:  [ 7,  8, 10, 12]] [0.5, 3.0, 5.0, 7.0]
# integer remainders (an error must leave the destination as it was)
let ii = arange(8)
ii[1:] = ii[1:] % 3 + ii[:1]
print(ii)
# out: [0, 1, 2, 0, 1, 2, 0, 1]
# a source also read after the assignment keeps the values it had
let c = arange(6) * 1.0
let d = c[1:4] * 10.0
c[1:4] = d
let pair = (c * 2.0, 1)
c[:] = pair[0] + c
print(c, d, pair[0])
# out: [ 0.0, 30.0, 60.0, 90.0, 12.0, 15.0] [10.0, 20.0, 30.0] [ 0.0, 20.0, 40.0, 60.0,  8.0, 10.0]
# two names of one buffer
let p = reshape(arange(12) as f64, [3, 4])
let q = p
let pv = p[1:, :]
pv[:, 1:] = q[:-1, :-1] + 1.0
pv[0, :] = q[0, :] * 2.0
q[2, :] = pv[1, :] * 3.0
print(p)
# out: [[ 0.0,  1.0,  2.0,  3.0],
# out:  [ 0.0,  2.0,  4.0,  6.0],
# out:  [24.0, 15.0, 18.0, 21.0]]
# one element, read and written
let e = reshape(arange(16), [4, 4])
e[3, 3] = e[3, 3] * 2 + e[0, 0]
e[2, 2] *= e[3, 3]
print(e[2:, 2:])
# out: [[300,  11],
# out:  [ 14,  30]]
