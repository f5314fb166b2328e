# NumPy functions written in Arr in the standard library (stdlib/core.arr).
# Outputs from NumPy: tests/cases/numpy_stdlib.py.
let x = reshape(arange(12), [3, 4]) as f64
let n = 0.0 / 0.0
print(ptp(x), ptp(x, axis=0), deg2rad(180.0), degrees(pi), radians(90.0), rad2deg(1.0))
# out: 11.0 [8.0, 8.0, 8.0, 8.0] 3.141592653589793 180.0 1.5707963267948966 57.29577951308232
print(fmax([1.0, n, n, 3.0], [n, 2.0, n, 4.0]), fmin([1.0, 5.0], [0.5, n]))
# out: [1.0, 2.0, nan, 4.0] [0.5, 5.0]
print(logaddexp(1.0, 2.0), logaddexp(-inf, -inf), logaddexp(inf, 1.0), logaddexp([0.0, 800.0], [0.0, 1.0]))
# out: 2.313261687518223 -inf inf [0.6931471805599453,              800.0]
print(heaviside([-1.0, 0.0, 2.0, n], 0.5))
# out: [0.0, 0.5, 1.0, nan]
print(nanvar([1.0, n, 3.0]), nanstd([[1.0, 2.0], [n, 4.0]], axis=0), nanvar([1.0, 2.0, n], ddof=1))
# out: 1.0 [0.0, 1.0] 0.5
print(fliplr(x)[0], flipud(x)[0], ediff1d([[1, 4], [9, 16]]))
# out: [3.0, 2.0, 1.0, 0.0] [ 8.0,  9.0, 10.0, 11.0] [3, 5, 7]
print(shape(swapaxes(zeros([2, 3, 4]), 0, -1)), shape(moveaxis(zeros([2, 3, 4]), 0, -1)), shape(moveaxis(zeros([2, 3, 4]), -1, 0)))
# out: (4, 3, 2) (3, 4, 2) (4, 2, 3)
print(swapaxes(x, 0, 1)[1], moveaxis(reshape(arange(6), [1, 2, 3]), 2, 0)[2])
# out: [1.0, 5.0, 9.0] [[2, 5]]
print(polyval([3.0, 0.0, 1.0], [1.0, 2.0]), vdot(x, x), polyval([2.0], 5.0))
# out: [ 4.0, 13.0] 506.0 2.0
print(logspace(0.0, 2.0, 3), logspace(0.0, 3.0, 3, endpoint=false, base=2.0))
# out: [  1.0,  10.0, 100.0] [1.0, 2.0, 4.0]
print(trapezoid([1.0, 2.0, 3.0]), trapz(x, axis=0), trapezoid(x, dx=0.5))
# out: 4.0 [ 8.0, 10.0, 12.0, 14.0] [ 2.25,  8.25, 14.25]
let obs = [[1.0, 2.0, 4.0, 7.0], [2.0, 1.0, 0.0, 5.0], [0.5, 0.5, 3.0, 1.0]]
print(cov(obs))
# out: [[                7.0,  3.6666666666666665,                 1.0],
# out:  [ 3.6666666666666665,   4.666666666666667, -1.1666666666666667],
# out:  [                1.0, -1.1666666666666667,  1.4166666666666667]]
print(cov([1.0, 2.0, 4.0]), cov(transpose(obs), rowvar=false)[0], cov(obs, ddof=0)[1])
# out: 2.3333333333333335 [               7.0, 3.6666666666666665,                1.0] [  2.75,    3.5, -0.875]
print(corrcoef(obs))
# out: [[  0.9999999999999999,   0.6415330278717847,   0.3175536744149779],
# out:  [  0.6415330278717847,   0.9999999999999998, -0.45374260648651504],
# out:  [  0.3175536744149779, -0.45374260648651504,                  1.0]]
print(isin([1, 2, 3, 4], [2, 4]), isin([[1.0, n], [3.0, 2.0]], [2.0, n]))
# out: [false,  true, false,  true] [[false, false],
# out:  [false,  true]]
print(digitize([0.5, 1.0, 2.5, 9.0], [1.0, 2.0, 3.0]), digitize([1.0, 2.0], [1.0, 2.0], right=true))
# out: [0, 1, 2, 3] [0, 1]
print(kron([[1, 2], [3, 4]], [[1, 10], [100, 1000]]), kron([1, 2], [1, 10]))
# out: [[   1,   10,    2,   20],
# out:  [ 100, 1000,  200, 2000],
# out:  [   3,   30,    4,   40],
# out:  [ 300, 3000,  400, 4000]] [ 1, 10,  2, 20]

# More of NumPy's names from the standard library; `==` with none and between strings.
let w = reshape(arange(12), [3, 4]) as f64
print(average(w), average(w, axis=1), average(w, axis=0, weights=[1.0, 2.0, 3.0]), average([1.0, 2.0], weights=[3.0, 1.0]))
# out: 5.5 [1.5, 5.5, 9.5] [5.333333333333333, 6.333333333333333, 7.333333333333333,
# out:  8.333333333333334] 1.25
print(rot90(w)[0], rot90(w, 2)[0], rot90(w, 3)[0], rot90(w, -1)[1], shape(rot90(zeros([2, 3, 4]), axes=(1, 2))), rot90(reshape(arange(8), [2, 2, 2]), axes=(1, 2))[1])
# out: [ 3.0,  7.0, 11.0] [11.0, 10.0,  9.0,  8.0] [8.0, 4.0, 0.0] [9.0, 5.0, 1.0] (2, 4, 3) [[5, 7],
# out:  [4, 6]]
print(geomspace(1.0, 1000.0, 4), geomspace(-1.0, -16.0, 3), geomspace(2.0, 32.0, 4, endpoint=false))
# out: [   1.0,   10.0,  100.0, 1000.0] [ -1.0,  -4.0, -16.0] [              2.0,               4.0, 7.999999999999999,
# out:               16.0]
print(shape(atleast_1d(3.0)), shape(atleast_2d([1, 2])), shape(atleast_3d([1, 2])), shape(atleast_3d(w)))
# out: (1,) (1, 2) (1, 2, 1) (3, 4, 1)
print(append([1, 2], [[3], [4]]), append(w, w, axis=1)[0])
# out: [1, 2, 3, 4] [0.0, 1.0, 2.0, 3.0, 0.0, 1.0, 2.0, 3.0]
print(gradient([1.0, 2.0, 4.0, 7.0, 11.0]), gradient(w * w, axis=1)[1], gradient([1.0, 4.0, 9.0], dx=0.5))
# out: [1.0, 1.5, 2.5, 3.5, 4.0] [ 9.0, 10.0, 12.0, 13.0] [ 6.0,  8.0, 10.0]
print(convolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5]), convolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5], mode="same"), convolve([1.0, 2.0, 3.0, 4.0], [1.0, -1.0], mode="valid"))
# out: [0.0, 1.0, 2.5, 4.0, 1.5] [1.0, 2.5, 4.0] [1.0, 1.0, 1.0]
print(convolve([1.0, 2.0], [1.0, 2.0, 3.0, 4.0], mode="same"), convolve([1, 2, 3], [1, 1]), convolve([2.0], [1.0, 2.0, 3.0], mode="same"))
# out: [ 1.0,  4.0,  7.0, 10.0] [1, 3, 5, 3] [2.0, 4.0, 6.0]
print(correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5]), correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5], mode="full"), correlate([1.0, 2.0, 3.0, 4.0], [1.0, 2.0], mode="same"))
# out: [3.5] [0.5, 2.0, 3.5, 3.0, 0.0] [ 2.0,  5.0,  8.0, 11.0]
print(correlate([1.0, 2.0], [1.0, 2.0, 3.0], mode="full"), correlate([1.0, 2.0], [1.0, 2.0, 3.0], mode="same"), correlate([1.0, 2.0], [1.0, 2.0, 3.0]))
# out: [3.0, 8.0, 5.0, 2.0] [8.0, 5.0, 2.0] [8.0, 5.0]
print(tensordot(w, w, axes=2), tensordot(w, transpose(w), axes=1)[2], shape(tensordot(ones([2, 3, 4]), ones([3, 4, 5]))), inner([1.0, 2.0], [3.0, 4.0]), inner(w, w)[1])
# out: 506.0 [ 62.0, 214.0, 366.0] (2, 5) 11.0 [ 38.0, 126.0, 214.0]
print(nancumsum([1.0, nan, 2.0]), nancumprod([2.0, nan, 3.0]), nanprod([[1.0, nan], [3.0, 4.0]], axis=0), nanargmax([1.0, nan, 3.0, 2.0]), nanargmin([[nan, 1.0], [0.0, 5.0]], axis=1))
# out: [1.0, 1.0, 3.0] [2.0, 2.0, 6.0] [3.0, 4.0] 2 [1, 0]
print(sinc([0.0, 0.5, -1.5]), fix([-2.5, 2.5]), rint([0.5, 1.5, -2.5]), around([1.234, 5.678], 1), reciprocal([2.0, 4.0]), absolute([-1, 2]))
# out: [                1.0,  0.6366197723675814, -0.2122065907891938] [-2.0,  2.0] [ 0.0,  2.0, -2.0] [1.2, 5.7] [ 0.5, 0.25] [1, 2]
print(signbit([-0.0, 0.0, -2.0, 3.0]), copysign([1.0, -2.0, 3.0], [-1.0, 1.0, -0.0]))
# out: [ true, false,  true, false] [-1.0,  2.0, -3.0]
print(vander([1.0, 2.0, 3.0])[2], vander([1.0, 2.0], 3, increasing=true)[1], abs(polyfit([0.0, 1.0, 2.0, 3.0], [1.0, 3.0, 7.0, 13.0], 2) - 1.0) < 1e-12)
# out: [9.0, 3.0, 1.0] [1.0, 2.0, 4.0] [true, true, true]
print(tril_indices(3), triu_indices(3, 1), tril_indices(2, m=3), diag_indices(2))
# out: ([0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]) ([0, 0, 1], [1, 2, 2]) ([0, 1, 1], [0, 0, 1]) ([0, 1], [0, 1])
print(dstack(([1, 2], [3, 4])), shape(dstack((ones([2, 3]), ones([2, 3])))), shape(dstack((ones([2, 2, 1]), zeros([2, 2, 2])))))
# out: [[[1, 3],
# out:   [2, 4]]] (2, 3, 2) (2, 2, 3)
print(none == none, 1 != none, "full" == "full", "a" != "b", array(shape(w)))
# out: true true true true [3, 4]
print(astype([1.5, -2.5], i32), astype([1, 2], dtype(ones([1], dtype=f64))))
# out: [ 1, -2] [1.0, 2.0]
let s6 = arange(6) * 1.0
print(select([s6 < 2, s6 > 3], [s6, s6 * s6], 42.0), select([s6 < 2.0], [s6], default=-1.0))
# out: [ 0.0,  1.0, 42.0, 42.0, 16.0, 25.0] [ 0.0,  1.0, -1.0, -1.0, -1.0, -1.0]
print(extract(s6 > 2, s6), compress([true, false, true], ones([3, 2]) * [1.0, 2.0], axis=0)[1], compress([0, 1], [[1, 2], [3, 4]], axis=1)[1], diagflat([[1, 2], [3, 4]])[3], diagflat([1, 2], k=1)[0])
# out: [3.0, 4.0, 5.0] [1.0, 2.0] [4] [0, 0, 0, 4] [0, 1, 0]
print(lexsort([[1, 5, 1, 4, 3, 4, 4], [9, 4, 0, 4, 0, 2, 1]]), lexsort(([3.0, 1.0, 2.0], [1.0, 1.0, 0.0])), partition([3, 4, 2, 1], 2)[2], argpartition([3.0, 4.0, 2.0, 1.0], 1)[1])
# out: [2, 4, 6, 5, 3, 1, 0] [2, 1, 0] 3 2
let m3 = [[10.0, nan, 4.0], [3.0, 2.0, 1.0], [nan, nan, nan]]
print(nanmedian(m3, axis=1), nanmedian(m3), nanmedian(m3, axis=0), nanpercentile(m3, 25.0, axis=1), nanquantile([1.0, nan, 2.0, 4.0], 0.4))
# out: [7.0, 2.0, nan] 3.0 [6.5, 2.0, 2.5] [5.5, 1.5, nan] 1.8
print(shape(nanmedian(m3, axis=0, keepdims=true)), shape(nanmedian(m3, keepdims=true)), nanmedian([[1.0, 2.0], [3.0, nan]], axis=1, keepdims=true)[1])
# out: (1, 3) (1, 1) [3.0]
let t3 = [[10.0, 30.0, 20.0], [60.0, 40.0, 50.0]]
print(take_along_axis(t3, argsort(t3, axis=1), axis=1)[1], take_along_axis(t3, argmax(t3, axis=0, keepdims=true), axis=0), take_along_axis(t3, [[0], [-1]], axis=1)[1], shape(take_along_axis(ones([2, 3, 4]), zeros([2, 3, 1], dtype=i64), axis=2)))
# out: [40.0, 50.0, 60.0] [[60.0, 40.0, 50.0]] [50.0] (2, 3, 1)
# `none` for one bound of clip leaves that side open
print(clip(arange(5), none, 2), clip(arange(5), 2, none), clip(arange(5) as f32, [0, 1, 2, 3, 4], none), clip(arange(5), none, hi=3))
# out: [0, 1, 2, 2, 2] [2, 2, 2, 3, 4] [0.0, 1.0, 2.0, 3.0, 4.0] [0, 1, 2, 3, 3]
# pads wider than the axis repeat the pattern
print(pad(arange(4), 5, mode="wrap"), pad([1, 2], [5, 3], mode="reflect"), pad([7], 2, mode="reflect"), pad(reshape(arange(6), [2, 3]), [[3, 1], [4, 0]], mode="symmetric")[0])
# out: [3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0] [2, 1, 2, 1, 2, 1, 2, 1, 2, 1] [7, 7, 7, 7, 7] [5, 5, 4, 3, 3, 4, 5]
# NumPy's second positional parameters: trapezoid's sample points, cov's and corrcoef's second variables, norm's ord
print(trapezoid([1.0, 2.0, 3.0], [0.0, 1.0, 3.0]), trapezoid([[1.0, 2.0, 3.0], [2.0, 2.0, 5.0]], [0.0, 1.0, 3.0]), trapezoid([[1.0, 2.0, 3.0], [2.0, 2.0, 5.0]], [[0.0, 1.0, 3.0], [1.0, 2.0, 4.0]], axis=0), trapz([1, 2, 4], dx=0.5))
# out: 6.5 [6.5, 9.0] [1.5, 2.0, 4.0] 2.25
let cv = cov([1.0, 2.0, 4.0], [1.0, 0.0, 2.0])
let cb = cov([[1.0, 2.0], [2.0, 0.0], [4.0, 2.0]], rowvar=false, bias=true)
let cc = corrcoef([1.0, 2.0, 4.0], [1.0, 0.0, 2.0])
print(shape(cv), cv[0, 0], cv[0, 1], cv[1, 1], cov([1.0, 2.0, 4.0], ddof=0), cb[0, 0], cb[0, 1], cb[1, 1], cc[0, 1], cc[1, 1])
# out: (2, 2) 2.3333333333333335 1.0 1.0 1.5555555555555556 1.5555555555555556 0.22222222222222224 0.888888888888889 0.6546536707079771 1.0
let nm = [[1.0, -2.0], [3.0, 4.0]]
print(norm(nm, 1), norm(nm, -1), norm(nm, inf), norm(nm, -inf), norm(nm, "fro"), norm([3.0, -4.0, 0.0], 0), norm(nm, 1, axis=1), norm(nm, -inf, axis=0))
# out: 6.0 4.0 7.0 3.0 5.477225575051661 2.0 [3.0, 7.0] [1.0, 2.0]
print(norm([3.0, -4.0], 3))
# out: 4.497941445275415
# decreasing bins, uneven sample spacing
let gu = gradient([1.0, 2.0, 4.0, 7.0], [0.0, 1.0, 3.0, 4.0])
let g2 = gradient([[1.0, 2.0], [2.0, 5.0], [4.0, 4.0]], [0.0, 0.5, 3.0], axis=0)
print(digitize([0.5, 1.5, 3.0], [3.0, 2.0, 1.0]), digitize([0.5, 1.0, 3.0], [3.0, 2.0, 1.0], right=true), gu[0], gu[1], gu[2], gu[3], g2[1, 0], g2[1, 1])
# out: [3, 2, 0] [3, 3, 1] 1.0 1.0 2.3333333333333335 3.0 1.8 4.933333333333334
# NumPy's keywords: dtype= of sum, prod, mean, cumsum, cumprod; eye's k; where(cond) alone; NumPy's dtype names
let kx = arange(10) as f32 / 3.0
let ki = arange(5) as i32
print(sum(kx, dtype=f64), mean(kx, dtype="float64"), sum(ki, dtype=int32), prod(ki + 1, dtype=float64))
# out: 15.000000029802322 1.5000000029802323 10 120.0
print(sum(reshape(kx, [2, 5]), axis=1, dtype=f64), cumsum(ki, dtype=i32), cumprod(ki + 1, dtype="int64"))
# out: [3.3333334028720856, 11.666666626930237] [ 0,  1,  3,  6, 10] [  1,   2,   6,  24, 120]
print(cumsum(kx[:3], dtype=f64), ravel(eye(3, k=1)), ravel(eye(2, 3, -1, dtype=i64)))
# out: [               0.0, 0.3333333432674408, 1.0000000298023224] [0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0] [0, 0, 0, 1, 0, 0]
print(where([[1, 0, 3], [0, 5, 0]] > 0), zeros([2], dtype="float64"), kx[1:3] as int32, kx[4:6] as float64)
# out: ([0, 0, 1], [0, 2, 1]) [0.0, 0.0] [0, 0] [1.3333333730697632, 1.6666666269302368]
# NumPy names: fmod, the comparison functions, logical_not of numbers, expand_dims of several axes, None, sort's kind
print(fmod([-7, 7, -7, 7, 6], [3, -3, -3, 3, 3]), fmod([-7.5, 7.5, -1e-300, 5.0], [2.0, -2.0, 3.0, inf]))
# out: [-1,  1, -1,  1,  0] [ -1.5e+00,   1.5e+00, -1.0e-300,   5.0e+00]
print(equal([1, 2], 2), not_equal([1.0, nan], nan), less([1, 2], [2, 2]), less_equal(1, [0, 1]), greater([3], 2.5), greater_equal([2, 3], 3))
# out: [false,  true] [true, true] [ true, false] [false,  true] [true] [false,  true]
print(logical_not([0, 2, -1]), logical_not([0.0, nan, 1.5]), shape(expand_dims(ones([2, 3]), (0, 3))), shape(expand_dims(ones([2, 3]), (-1, 0))))
# out: [ true, false, false] [ true, false, false] (1, 2, 3, 1) (1, 2, 3, 1)
print(sum(reshape(arange(6.0), [2, 3]), axis=None), shape(zeros([])), sort([3, 1, 2], kind="stable"), argsort([3, 1, 3, 0], kind="mergesort"))
# out: 15.0 () [1, 2, 3] [3, 1, 0, 2]
# index conversions: unravel_index, ravel_multi_index, indices, ix_
print(unravel_index([22, 41, 37], (7, 6)), unravel_index(5, [2, 3]), unravel_index([[1, 5]], (2, 3)))
# out: ([3, 6, 6], [4, 5, 1]) (1, 2) ([[0, 1]], [[1, 2]])
print(ravel_multi_index(([3, 6, 6], [4, 5, 1]), (7, 6)), ravel_multi_index([[3, 6, 6], [4, 5, 1]], (7, 6)), ravel_multi_index((1, [0, 2]), (2, 3)))
# out: [22, 41, 37] [22, 41, 37] [3, 5]
print(indices((2, 3)), shape(indices([2, 3, 4])), indices([3], dtype=f32))
# out: [[[0, 0, 0],
# out:   [1, 1, 1]],
# out:
# out:  [[0, 1, 2],
# out:   [0, 1, 2]]] (3, 2, 3, 4) [[0.0, 1.0, 2.0]]
let gx = reshape(arange(20), [4, 5])
print(ix_([0, 2], [1, 3]), gx[ix_([0, 2], [1, 3])], gx[ix_([true, false, true, false], [4, 0])])
# out: ([[0],
# out:  [2]], [[1, 3]]) [[ 1,  3],
# out:  [11, 13]] [[ 4,  0],
# out:  [14, 10]]
# insert, delete, trim_zeros
print(delete([1, 2, 3, 4], 1), delete([1, 2, 3, 4], [0, -1]), delete(reshape(arange(6), [2, 3]), 1, axis=1), delete(reshape(arange(6), [2, 3]), [0]), delete([1, 2, 3], [true, false, true]))
# out: [1, 3, 4] [2, 3] [[0, 2],
# out:  [3, 5]] [1, 2, 3, 4, 5] [2]
print(insert([1, 2, 3], 1, 9), insert([1, 2, 3], [1, 1, 3], [7, 8, 9]), insert([1, 2, 3], -1, [5, 6]), insert([1, 2, 3], 1, 2.7), insert([1, 2, 3], [1], [7, 8]), insert([1.0, 2.0], [2, 0], [5, 6]))
# out: [1, 9, 2, 3] [1, 7, 8, 2, 3, 9] [1, 2, 5, 6, 3] [1, 2, 2, 3] [1, 7, 8, 2, 3] [6.0, 1.0, 2.0, 5.0]
print(insert(reshape(arange(6), [2, 3]), 1, [10, 20], axis=1), insert(reshape(arange(6), [2, 3]), 0, 5, axis=0), insert(reshape(arange(6), [2, 3]), [0, 2], [[10], [20]], axis=-1), insert(reshape(arange(6), [2, 3]), 3, 7))
# out: [[ 0, 10,  1,  2],
# out:  [ 3, 20,  4,  5]] [[5, 5, 5],
# out:  [0, 1, 2],
# out:  [3, 4, 5]] [[10,  0,  1, 10,  2],
# out:  [20,  3,  4, 20,  5]] [0, 1, 2, 7, 3, 4, 5]
print(trim_zeros([0, 0, 1, 2, 0, 3, 0]), trim_zeros([0, 0, 1, 2, 0], "f"), trim_zeros([0, 1, 0], trim="b"), trim_zeros([0, 0]), trim_zeros([0.0, 1.5]))
# out: [1, 2, 0, 3] [1, 2, 0] [0, 1] [] [1.5]
# the set functions: sorted distinct values
print(setdiff1d([5, 1, 3, 3, 7], [3, 8]), intersect1d([1, 3, 4, 3], [3, 1, 2, 1]), union1d([-1, 0, 1], [-2, 0, 2]), setxor1d([1, 2, 3, 2, 4], [2, 3, 5, 7, 5]))
# out: [1, 5, 7] [1, 3] [-2, -1,  0,  1,  2] [1, 4, 5, 7]
print(setdiff1d([1.0, nan, 2.0], [nan]), intersect1d([1, 2], [2.5, 1.0]), union1d([[1, 2], [2, 3]], [0]), setxor1d([1.0, nan], [nan, 2.0]), setdiff1d([1, 2], []), intersect1d([1], [2]))
# out: [1.0, 2.0, nan] [1.0] [0, 1, 2, 3] [1.0, 2.0, nan, nan] [1, 2] []
# NumPy's keywords: diff's prepend and append, clip's a_min/a_max/min/max, full's fill_value, eye's N and M
print(diff([1, 4, 9], prepend=0), diff([1, 4, 9], append=[20, 30]), diff(reshape(arange(6), [2, 3]), axis=0, prepend=[[1, 1, 1]]), diff([1.0, 2.0], n=2, prepend=0, append=5))
# out: [1, 3, 5] [ 3,  5, 11, 10] [[-1,  0,  1],
# out:  [ 3,  3,  3]] [0.0, 2.0]
print(clip(arange(5), a_min=1, a_max=3), clip(a=arange(5), min=2, max=3), clip(arange(5), a_max=2, a_min=1), full(2, fill_value=3), full([2], fill_value=1.5, dtype=f32), eye(N=2), eye(N=2, M=3, k=1))
# out: [1, 1, 2, 3, 3] [2, 2, 2, 3, 3] [1, 1, 2, 2, 2] [3, 3] [1.5, 1.5] [[1.0, 0.0],
# out:  [0.0, 1.0]] [[0.0, 1.0, 0.0],
# out:  [0.0, 0.0, 1.0]]
# put writes in place, through a view too
let pz = transpose(reshape(arange(6), [2, 3]))
put(pz, [1, -1], 7)
let pw = zeros([4])
put(pw, [0, 1, 2], [5.0, 6.0])
print(pz, pw)
# out: [[0, 7],
# out:  [1, 4],
# out:  [2, 7]] [5.0, 6.0, 5.0, 0.0]
print(tri(3), tri(2, 3, k=1, dtype=i64), tri(3, k=-1)[2], float_power(2, -1), float_power([2, 3], 2.0), float_power(4.0, [0.5, -2]))
# out: [[1.0, 0.0, 0.0],
# out:  [1.0, 1.0, 0.0],
# out:  [1.0, 1.0, 1.0]] [[1, 1, 0],
# out:  [1, 1, 1]] [1.0, 1.0, 0.0] 0.5 [4.0, 9.0] [   2.0, 0.0625]
let ua = [[1, 2], [3, 4], [1, 2], [0, 9]]
let (uv, ui, uinv, uc) = unique(ua, axis=0, return_index=true, return_inverse=true, return_counts=true)
print(uv, ui, uinv, uc)
# out: [[0, 9],
# out:  [1, 2],
# out:  [3, 4]] [3, 0, 1] [1, 2, 1, 0] [1, 2, 1]
print(unique([[1.0, 0.0, 1.0], [2.0, 5.0, 2.0]], axis=-1), unique(reshape(arange(8) % 2, [2, 2, 2]), axis=2)[1, 1])
# out: [[0.0, 1.0],
# out:  [5.0, 2.0]] [0, 1]
