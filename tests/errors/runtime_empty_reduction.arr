# expect: E0402
# max has no identity, so the max of nothing is an error (as in NumPy).
let empty = zeros([0])
print(max(empty))
