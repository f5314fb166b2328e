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
