# expect: E0204
print(unravel_index([1, 6], (2, 3)))
