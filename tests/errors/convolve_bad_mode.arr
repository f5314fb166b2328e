# expect: E0413
print(convolve(arange(3) * 1.0, arange(2) * 1.0, mode="vaild"))
