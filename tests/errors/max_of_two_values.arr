# expect: E0305
# Python's max of two values; Arr's reads the second as an axis.
print(max(3.0, 5.0))
