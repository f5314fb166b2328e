# Python's `enumerate` and `zip`, and loops that unpack each item: an
# array's items along its first axis (numbers for a vector, row views
# above), a tuple's items, with or without parentheses around the names.
# Expected values from Python and NumPy (tests/cases/enumerate_zip.py
# prints OK when they compute the same numbers).
let x = [10.0, 20.0, 30.0]
let acc = 0.0
for (i, v) in enumerate(x) {
    acc += i * v
}
print(acc)
# out: 80.0
for i, v in enumerate(x, start=1) { print(i * v) }
# out: 10.0
# out: 40.0
# out: 90.0
let m = reshape(arange(6), [3, 2])
for (w, (p, q)) in zip((2, 3), m) { print(w * (p + q)) }
# out: 2
# out: 15
for (p, q) in m { print(p * q) }
# out: 0
# out: 6
# out: 20
print(enumerate((7, 8)), zip([1, 2, 3], (4, 5)))
# out: ((0, 7), (1, 8)) ((1, 4), (2, 5))
let rows = zeros([3, 2])
for (k, row) in enumerate(rows) {
    row[:] = k
}
print(sum(rows, axis=1))
# out: [0.0, 2.0, 4.0]
