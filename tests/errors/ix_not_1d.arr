# expect: E0210
print(ix_([0, 1], ones([2, 2])))
