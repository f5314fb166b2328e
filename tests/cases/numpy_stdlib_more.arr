# Standard-library functions as NumPy gives them, after a NumPy user's bug hunt (issue 12):
# kron of operands of any ranks, isin's `invert`, divmod, and axes that the library's
# functions check by normalize_axis_index (negative ones counted from the end).
# Outputs from NumPy: tests/cases/numpy_stdlib_more.py.
print(kron(arange(3), reshape(arange(4), [2, 2])))
# out: [[0, 0, 0, 1, 0, 2],
# out:  [0, 0, 2, 3, 4, 6]]
print(kron(array([1, 2]), array([[1, 1]])))
# out: [[1, 1, 2, 2]]
print(kron(reshape(arange(4), [2, 2]), [1, 10]))
# out: [[ 0,  0,  1, 10],
# out:  [ 2, 20,  3, 30]]
print(kron([1, 2], [1, 10]), kron([[1, 2], [3, 4]], [[1, 10], [100, 1000]]))
# out: [ 1, 10,  2, 20] [[   1,   10,    2,   20],
# out:  [ 100, 1000,  200, 2000],
# out:  [   3,   30,    4,   40],
# out:  [ 300, 3000,  400, 4000]]
let k3 = kron(reshape(arange(6), [1, 2, 3]), reshape(arange(4), [2, 2]))
print(shape(k3), shape(kron(ones([2, 1, 3]), ones([4, 2]))), sum(k3))
# out: (1, 4, 6) (2, 4, 6) 90
print(k3[0, 1], k3[0, :, 5])
# out: [0, 0, 2, 3, 4, 6] [ 2,  6,  5, 15]
print(kron(3, [1, 2]), kron([1.5, 2.0], 2), kron(2, 3))
# out: [3, 6] [3.0, 4.0] 6
print(isin([1, 2, 3, 4], [2, 4], invert=true), isin([[1, 5], [3, 2]], [2, 3], invert=true))
# out: [ true, false,  true, false] [[ true,  true],
# out:  [false, false]]
print(divmod(7, 2), divmod([7, -7, 7], [2, 2, -2]))
# out: (3, 1) ([ 3, -4, -4], [ 1,  1, -1])
print(divmod(7.5, 2.0), divmod([-7.5, 1.0], 2))
# out: (3.0, 1.5) ([-4.0,  0.0], [0.5, 1.0])
print(shape(swapaxes(zeros([2, 3, 4]), -3, -1)), shape(moveaxis(zeros([2, 3, 4]), -3, 2)))
# out: (4, 3, 2) (3, 4, 2)
print(normalize_axis_index(-1, 3), normalize_axis_index(2, 3), normalize_axis_index(-3, 3))
# out: 2 2 0
print(rot90(reshape(arange(6), [2, 3]), axes=(1, 0)))
# out: [[3, 0],
# out:  [4, 1],
# out:  [5, 2]]
print(rot90(reshape(arange(6), [2, 3]), k=2, axes=(-1, -2)))
# out: [[5, 4, 3],
# out:  [2, 1, 0]]
print(average(reshape(arange(6), [2, 3]), axis=-1, weights=[1, 2, 3]))
# out: [1.3333333333333333,  4.333333333333333]
print(gradient(reshape(arange(6) * 1.0, [2, 3]) ** 2, axis=-1))
# out: [[1.0, 2.0, 3.0],
# out:  [7.0, 8.0, 9.0]]
print(take_along_axis(reshape(arange(6), [2, 3]), [[2], [0]], axis=-1), delete(reshape(arange(6), [2, 3]), 1, axis=-1))
# out: [[2],
# out:  [3]] [[0, 2],
# out:  [3, 5]]
# a selection by a constant index list takes a value with leading size-1 axes, as NumPy
let g = zeros([3, 4])
g[[0, 2]] = ones([1, 2, 4])
g[1:2] = [[5, 6, 7, 8]]
print(g)
# out: [[1.0, 1.0, 1.0, 1.0],
# out:  [5.0, 6.0, 7.0, 8.0],
# out:  [1.0, 1.0, 1.0, 1.0]]
