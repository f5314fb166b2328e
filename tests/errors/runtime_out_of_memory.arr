# expect: E0403
# 10^13 f32 elements: 40 TB, more than any machine has.
let big = rand([100000, 100000, 1000])
print(big)
