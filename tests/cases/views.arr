# Slices are views; slice assignment writes through (hand-derived).
let a = arange(10)
print(a[2:5], a[-3:], a[::3], a[::-1][:3])
# out: [2, 3, 4] [7, 8, 9] [0, 3, 6, 9] [9, 8, 7]
let m = reshape(arange(12), [3, 4])
print(m[1], m[:, 1], m[-1, -1])
# out: [4, 5, 6, 7] [1, 5, 9] 11
print(shape(m[:, newaxis, 1:3]), shape(m[..., 0]), shape(m[newaxis]))
# out: (3, 1, 2) (3,) (1, 3, 4)
let v = m[1:, 2:]
m[1:, 2:] = 0
print(v)
# out: [[0, 0],
# out:  [0, 0]]
m[:, 0] = m[:, 1]
print(m[:, 0])
# out: [1, 5, 9]
let z = zeros([2, 3])
z[0, :] += 1.5
z[1] = [1, 2, 3]
print(z)
# out: [[1.5, 1.5, 1.5],
# out:  [1.0, 2.0, 3.0]]
print(transpose(m)[0], m[[2, 0], 1])
# out: [1, 5, 9] [9, 1]
# a copy of a value not yet computed leaves the value whole (it was garbage on the fused executor)
let ca = arange(4.0)
let cp = copy(ca)
let cz = zeros([4])
cz[0] = 1.0
print(ca, cp, flatten(ca * 2.0))
# out: [0.0, 1.0, 2.0, 3.0] [0.0, 1.0, 2.0, 3.0] [0.0, 2.0, 4.0, 6.0]
