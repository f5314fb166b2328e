# expect: E0413
# NumPy: ValueError, "Geometric sequence cannot include zero".
print(geomspace(0, 10, 3))
