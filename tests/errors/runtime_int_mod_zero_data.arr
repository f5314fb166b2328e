# expect: E0400
# The zero divisor is only known from the data: arange(3) starts at 0.
let d = arange(3)
print(10 % d)
