# expect: E0300
# `^` is exclusive or, as in Python; powers are `**`
print(2.0 ^ 3)
