# expect: E0307
# NumPy 2 raises OverflowError for a Python int out of a uint8 array's range
let img = zeros([2, 2], dtype=u8)
print(img + 256)
