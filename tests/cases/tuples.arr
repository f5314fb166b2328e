# Tuples as Python's and NumPy's: slices of a shape, `+` joining two, `==`
# comparing them; an array unpacked along its first axis; a tuple of numbers
# given where an array is expected (`prod(shape(x)[1:])`, `concat` of
# shapes). Expected values from Python and NumPy (tests/cases/tuples.py
# prints OK when they compute the same numbers).
let x = reshape(arange(24.0), [2, 3, 4])
let s = shape(x)
print(s[1:], s[:-1], s[::-1], s[::2], s[5:])
# out: (3, 4) (2, 3) (4, 3, 2) (2, 4) ()
print(s[:1] + s[1:], s == (2, 3, 4), s != (2, 3, 4), s[1:] == (3,), () == s[3:])
# out: (2, 3, 4) true false false true
print(prod(s[1:]), sum(s), prod(s[:0]), sum((1, 2, 3)))
# out: 12 9 1.0 6
print(reshape(x, [s[0], prod(s[1:])])[1, 10])
# out: 22.0
print(concat([s[:1], (1,), s[1:]]))
# out: [2, 1, 3, 4]
let (rows, cols) = shape(x)[1:]
print(rows * cols)
# out: 12
let pts = reshape(arange(8.0), [4, 2])
let (px, py) = transpose(pts)
print(px, py)
# out: [0.0, 2.0, 4.0, 6.0] [1.0, 3.0, 5.0, 7.0]
let (first, second, third, fourth) = pts
print(third, sum(fourth))
# out: [4.0, 5.0] 13.0
# the rows unpacked are views, as NumPy's
first[0] = 100.0
print(pts[0, 0])
# out: 100.0
print(tensordot(ones([2, 3, 4]), reshape(arange(24.0), [3, 4, 2]), axes=2))
# out: [[132.0, 144.0],
# out:  [132.0, 144.0]]
print(tensordot(arange(2.0), arange(3.0), axes=0))
# out: [[0.0, 0.0, 0.0],
# out:  [0.0, 1.0, 2.0]]
# a starred name takes what the other names leave, as Python's (a tuple here, a list there)
let (head, *tail) = (1, 2, 3, 4)
print(head, tail)
# out: 1 (2, 3, 4)
let (*init, last) = (1, 2, 3)
print(init, last)
# out: (1, 2) 3
let (p, *mid, q) = (5, 6)
print(p, size(mid), q)
# out: 5 0 6
let (row0, *later) = reshape(arange(6.0), [3, 2])
print(row0, sum(later))
# out: [0.0, 1.0] 14.0
for i, *rest in reshape(arange(6), [2, 3]) {
    print(i, rest)
}
# out: 0 (1, 2)
# out: 3 (4, 5)
# a list of strings is a tuple of them (Python's list)
let names = ["heat", "wave"]
for (i, name) in enumerate(names) {
    print(i, name)
}
# out: 0 heat
# out: 1 wave
print(names, [("x", 1), ("y", 2)][1])
# out: (heat, wave) (y, 2)
