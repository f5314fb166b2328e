# expect: E0400
# Integer floor division by a zero that only the data shows: arange(3) starts at 0.
print(7 // arange(3))
