# expect: E0413
# NumPy: "a must be a positive integer unless no samples are taken".
print(choice(0, 3))
