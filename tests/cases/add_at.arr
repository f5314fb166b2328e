# `add_at` is NumPy's `np.add.at`: unbuffered, so a repeated index adds each of its
# values, where `a[idx] += v` adds one. Expected values from NumPy (tests/cases/add_at.py).
let a = zeros([5])
add_at(a, [0, 1, 1, 4, 1], 1.0)
print(a)
# out: [1.0, 3.0, 0.0, 0.0, 1.0]
let buffered = zeros([5])
buffered[[0, 1, 1, 4, 1]] += 1.0
print(buffered)
# out: [1.0, 1.0, 0.0, 0.0, 1.0]
# integers stay exact; negative indices count from the end
let c = full([3], 9007199254740000)
add_at(c, [2, 2, -1, 0], [1, 2, 3, 4])
print(c - 9007199254740000, dtype(c))
# out: [4, 0, 6] i64
# rows of a 2-D array, and `b` broadcast to the rows it is added to
let g = zeros([3, 2], dtype=f32)
add_at(g, [0, 2, 0], reshape(arange(6.0), [3, 2]))
add_at(g, [1, 1], [10.0, 20.0])
print(g, dtype(g))
# out: [[ 4.0,  6.0],
# out:  [20.0, 40.0],
# out:  [ 2.0,  3.0]] f32
# a tuple of index arrays, one per axis
let img = zeros([2, 3])
add_at(img, ([0, 1, 0], [2, 2, 2]), [1.0, 2.0, 3.0])
print(img)
# out: [[0.0, 0.0, 4.0],
# out:  [0.0, 0.0, 2.0]]
# a scalar index, and a mask
let s = arange(4.0)
add_at(s, 2, 5.0)
add_at(s, s > 2.5, 100.0)
print(s)
# out: [  0.0,   1.0, 107.0, 103.0]
# a view writes into the array it views
let v = zeros([4, 4])
let col = v[:, 1]
add_at(col, [3, 3, 0], 0.5)
print(v[:, 1], sum(v))
# out: [0.5, 0.0, 0.0, 1.0] 1.5
# booleans add as `or`
let b = zeros([3], dtype=bool)
add_at(b, [1, 1], true)
print(b)
# out: [false,  true, false]
# an index counted many times: one f64 sum per element
let counts = zeros([3], dtype=i32)
add_at(counts, arange(3000) % 3, 1)
print(counts, dtype(counts))
# out: [1000, 1000, 1000] i32
