# expect: E0201
# A destination past the last axis is refused, as NumPy, not taken modulo the rank.
print(shape(moveaxis(zeros([2, 3, 4]), 0, 3)))
