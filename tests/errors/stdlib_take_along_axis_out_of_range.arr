# expect: E0201
print(take_along_axis(arange(4), [2, 0], axis=1))
