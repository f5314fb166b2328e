# expect: E0001
# `&` binds tighter than `>`, as in Python: the masks need parentheses
let a = arange(4)
let b = arange(4)
print(a > 0 & b < 3)
