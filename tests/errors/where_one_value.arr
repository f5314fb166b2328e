# expect: E0103
print(where([true, false], 1.0))
