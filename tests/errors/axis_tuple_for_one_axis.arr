# expect: E0305
print(argmax(ones([2, 3]), axis=(0, 1)))
