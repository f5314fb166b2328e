# expect: E0300
print(~1.5)
