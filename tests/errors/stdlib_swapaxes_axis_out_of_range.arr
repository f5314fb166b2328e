# expect: E0201
# NumPy raises AxisError; the axis used to wrap around (4 % 2 is axis 0).
print(shape(swapaxes(zeros([2, 3]), 0, 4)))
