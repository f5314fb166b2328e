# expect: E0413
# NumPy: ZeroDivisionError, "Weights sum to zero, can't be normalized".
print(average([1.0, 2.0], weights=[0.0, 0.0]))
