# expect: E0204
print(ravel_multi_index(([0, 1], [2, 3]), (2, 3)))
