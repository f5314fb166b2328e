# expect: E0401
print(arange(4) ** -1)
