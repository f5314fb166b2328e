# expect: E0001
# As in Python, a positional argument cannot follow a named one.
let x = ones([2, 3])
print(sum(axis=0, x))
