# expect: E0307
let big = 2 ** 62
print(big * 4)
