# expect: E0413
print(trim_zeros([0, 1, 0], trim="front"))
