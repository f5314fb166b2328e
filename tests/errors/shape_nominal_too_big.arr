# expect: E0403
# NumPy rule: the non-zero sizes must fit the address space even when a zero empties the array.
print(zeros([2**62, 0, 2**62]) + 1)
