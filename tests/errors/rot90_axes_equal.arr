# expect: E0413
# NumPy: "Axes must be different."
print(rot90(reshape(arange(6), [2, 3]), axes=(0, 0)))
