# expect: E0413
# NumPy: "a and p must have same size".
print(choice(3, size=5, p=[0.5, 0.5]))
