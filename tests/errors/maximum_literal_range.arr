# expect: E0307
# NumPy 2: OverflowError, a Python int out of bounds for uint8.
print(maximum(arange(3) as u8, -1))
