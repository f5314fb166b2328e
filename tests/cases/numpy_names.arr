# NumPy's functions of the operators, and its other names of builtins, worked
# out by hand; each also agrees with the operator or builtin it names.
let x = arange(4)
let y = x as f32
print(add(x, 1), subtract(x, 1), multiply(x, 2))
# out: [1, 2, 3, 4] [-1,  0,  1,  2] [0, 2, 4, 6]
print(divide(x, 2), true_divide(7, 2))
# out: [0.0, 0.5, 1.0, 1.5] 3.5
print(power(x, 2), power(2.0, -1))
# out: [0, 1, 4, 9] 0.5
print(mod(-7, 3), remainder(x, 3), mod(7.5, -2.0))
# out: 2 [0, 1, 2, 0] -0.5
print(floor_divide(-7, 2))
# out: -4
print(array_equal(add(y, 0.5), y + 0.5), array_equal(power(y, y), y ** y), array_equal(mod(y, 3), y % 3))
# out: true true true
print(concatenate([arange(2), arange(3)]), concatenate([ones([1, 2]), zeros([1, 2])], axis=1))
# out: [0, 1, 0, 1, 2] [[1.0, 1.0, 0.0, 0.0]]
let m = reshape(arange(6), [2, 3])
print(amax(m), amin(m, axis=1), amax(m, axis=0, keepdims=true))
# out: 5 [0, 3] [[3, 4, 5]]
print(array_equal(amax(m, axis=1), max(m, axis=1)))
# out: true
# split, array_split, hsplit, vsplit: tuples of views (NumPy's parts, checked by hand against NumPy 2)
let (p0, p1, p2) = array_split(arange(7), 3)
print(p0, p1, p2, split(arange(6), 3), split(arange(5), [3, 1]), split(arange(5), [-2]))
# out: [0, 1, 2] [3, 4] [5, 6] ([0, 1], [2, 3], [4, 5]) ([0, 1, 2], [], [1, 2, 3, 4]) ([0, 1, 2], [3, 4])
let m12 = reshape(arange(12), [3, 4])
print(hsplit(m12, 2)[1], vsplit(m12, [1])[1], shape(split(m12, [1, 10], axis=1)[2]), array_split(arange(2), 4))
# out: [[ 2,  3],
# out:  [ 6,  7],
# out:  [10, 11]] [[ 4,  5,  6,  7],
# out:  [ 8,  9, 10, 11]] (3, 0) ([0], [1], [], [])
# the parts are views: writing into one writes into the array, as in NumPy
let base = arange(6)
let (h0, h1) = split(base, 2)
h1[0] = 40
print(base, h0, hsplit(arange(4), [1])[1])
# out: [ 0,  1,  2, 40,  4,  5] [0, 1, 2] [1, 2, 3]
# a dtype's name converts, as NumPy's `np.float64(x)` and Python's `float(x)`, `int(x)`
print(float(ones([1])), int(-2.7), f32(arange(3)), float32(2.5), bool(0), dtype(float(3)) == f64)
# out: 1.0 -2 [0.0, 1.0, 2.0] 2.5 false true
# fill_diagonal writes in place; a tall matrix's diagonal wraps with `wrap`
let fd = zeros([7, 3])
fill_diagonal(fd, [1.0, 2.0], wrap=true)
print(sum(fd, axis=0), fd[4, 0], fd[3, 0])
# out: [3.0, 3.0, 3.0] 2.0 0.0
# the fast scalar powers: x ** 0.5 is sqrt(x) (-0.0 stays -0.0), x ** -1 is 1 / x
let pw = array([4.0, -0.0, 2.0], dtype=f64)
print(pw ** 0.5, pw ** -1, (arange(3) + 1) ** -1.0)
# out: [               2.0,               -0.0, 1.4142135623730951] [0.25, -inf,  0.5] [               1.0,                0.5, 0.3333333333333333]
# a vector's elements are numbers: range with a step counts down without arrays
let countdown = 0
for i in range(4, -1, -2) {
    countdown = countdown * 10 + i
}
print(countdown)
# out: 420
# `np.size(a, axis)`: the length of one axis
print(size(zeros([2, 3]), 1), size(zeros([2, 3]), axis=-2), size(zeros([2, 3])))
# out: 3 2 6
# Python's `len`: the first axis of an array, the items of a tuple
print(len(zeros([4, 2])), len(shape(zeros([2, 3, 5]))), len(arange(7)), len(zeros([0, 3])))
# out: 4 3 7 0
