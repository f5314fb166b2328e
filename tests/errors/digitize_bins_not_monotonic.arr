# expect: E0413
print(digitize([1.0, 2.0], [1.0, 3.0, 2.0]))
