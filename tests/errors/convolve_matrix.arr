# expect: E0413
# NumPy: ValueError, "object too deep for desired array".
print(convolve(ones([2, 2]), [1.0]))
