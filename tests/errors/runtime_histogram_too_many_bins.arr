# expect: E0403
# 10^12 bins: 16 TB of edges and counts, refused before any is made (it was a hang).
let x = arange(10)
print(histogram(x, bins=1000000000000))
