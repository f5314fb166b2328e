# expect: E0104
print(clip(arange(3), 0, 2, a_min=1))
