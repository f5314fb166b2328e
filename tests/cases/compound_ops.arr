# The updating operators NumPy users write, `//=`, `%=` and `**=` beside
# `+= -= *= /=`: on host scalars, whole arrays and slices, through a view.
# Expected values from NumPy (tests/cases/compound_ops.py prints OK when
# NumPy computes the same numbers).
let k = 17
k //= 3
k %= 4
let j = 3
j **= 3
let m = -7
m //= 2
let r = -7
r %= 3
print(k, j, m, r)
# out: 1 27 -4 2
let a = arange(6.0)
a //= 2
let alias = a
a %= 1.5
print(alias)
# out: [0.0, 0.0, 1.0, 1.0, 0.5, 0.5]
let b = arange(5)
b **= 2
b[1:4] //= 2
b[::2] %= 5
print(b)
# out: [0, 0, 2, 4, 1]
let f = 2.0
f **= 0.5
print(f)
# out: 1.4142135623730951
let g = reshape(arange(12) as f32, [3, 4])
let col = g[:, 1]
col **= 2
g[1:, :] //= [1.0, 2.0, 3.0, 4.0]
g %= 7.0
print(g)
# out: [[0.0, 1.0, 2.0, 3.0],
# out:  [4.0, 5.0, 2.0, 1.0],
# out:  [1.0, 5.0, 3.0, 2.0]]
