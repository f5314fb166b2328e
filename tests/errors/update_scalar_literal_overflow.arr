# expect: E0307
# `x <<= k` on a host scalar follows `x << k`: literal integers are not wrapped
print("before")
let x = 3
x <<= 70
print(x)
