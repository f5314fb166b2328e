# expect: E0403
# 10^15 f32 elements: 4 PB, more than any machine has.
let big = rand([100000, 100000, 100000])
print(big)
