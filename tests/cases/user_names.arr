# A program's own names do not change what the standard library computes, as a
# Python script's `pi = 3` or `def mean(x)` leaves NumPy alone. Expected values
# from NumPy (tests/cases/user_names.py).
let pi = 3
let e = 2
let inf = 1000
let nan = 0
let var = array([9.0])
fn mean(x) = 42
fn sqrt(x) = x
fn moveaxis(x, a, b) = x
print(pi, e, mean(1), sqrt(4))
# out: 3 2 42 4
print(deg2rad(180.0), sinc(array([0.5])))
# out: 3.141592653589793 [0.6366197723675814]
print(std(array([1.0, 3.0])), cov(array([1.0, 2.0, 3.0])))
# out: 1.0 1.0
print(nanargmax(array([0.0 / 0.0, -2000.0, -3000.0])), isnan(nanmedian(array([0.0 / 0.0]))))
# out: 1 true
print(nanmedian(array([1.0, 0.0 / 0.0, 3.0, 4.0])), logsumexp(array([-1.0 / 0.0, 0.0])))
# out: 3.0 0.0
print(gradient(reshape(arange(6.0, dtype=f64) ** 2, [2, 3]), axis=1))
# out: [[1.0, 2.0, 3.0],
# out:  [7.0, 8.0, 9.0]]
# the program's names are still its own, in its functions too
fn twice_pi() = 2 * pi
print(twice_pi(), mean(arange(3)))
# out: 6 42
# `norm` squares integers in a float, as NumPy converts them first
print(round(norm(array([100000, 100000], dtype=i32))), norm(array([4000000000, 1])))
# out: 141421.0 4000000000.0
# `z[()]` of a 0-d array is its value, as in NumPy
let z = array(5.0)
print(z[()], z[()] + 1, arange(3)[()])
# out: 5.0 6.0 [0, 1, 2]
