# expect: E0303
# NumPy: stack takes an integer axis (concat flattens with axis=none).
print(stack([zeros([2]), ones([2])], axis=none))
