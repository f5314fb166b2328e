# expect: E0413
print(insert([1, 2, 3], 5, 0))
