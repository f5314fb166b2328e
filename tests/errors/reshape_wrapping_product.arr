# expect: E0203
# 8589934595 * 6148914685509894146 wraps to 6 in 64 bits; the true product is compared.
let x = reshape(arange(6), [8589934595, 6148914685509894146])
print(x[1, 0])
