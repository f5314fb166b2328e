# expect: E0403
# The count is shown compactly, not as 300 digits.
print(arange(0, 10, 1e-300)[0])
