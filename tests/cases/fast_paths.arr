# Paths taken only for some operands, each against NumPy (fast_paths.py):
# integer `//` and `%` by one divisor (an exact floor of the f64 quotient for
# values below 2^52, the integer division above), scalar `%`, `//` and `**`
# folded on the host, a product of a tall matrix's transpose with a vector
# (chunks of short columns), and `bincount` of many values.
let n = 50000
let i = arange(n)
let x = (i * 7919) % 20001 - 10000
let x32 = x as i32
fn ck(v) = sum(v as i64)
print(ck(x // 3), ck(x % 3), ck(x // -7), ck(x % -7), ck(x // 1), ck(x % 1), ck(x // -1))
# out: -7619 50001 -25304 -149984 27144 0 -27144
print(ck(x32 // 5), ck(x32 % 5), ck(x32 // -2), ck(x32 % -2), ck(x32 // 10000), ck(x32 % 9999))
# out: -14571 99999 -26071 -24998 -24994 249942150
let big = x * 1000000000000000 + 12345
print(ck(big // 3 % 1000003), ck(big % 1000003), ck(big // 4503599627370497 % 97))
# out: 24993888769 24988566323 2400239
let m = [-2147483648, -7, 0, 7, 2147483647] as i32
print(m // 2, m % 2, m // -3, m % -3, m // 2147483647)
# out: [-1073741824,          -4,           0,           3,  1073741823] [0, 1, 0, 1, 1] [ 715827882,          2,          0,         -3, -715827883] [-2, -1,  0, -2, -2] [-2, -1,  0,  0,  1]
let u = (i % 256) as u8
print(ck(u // 3), ck(u % 7), ck((u * 3) // 5), ck(((i % 256) - 128) as i8 // -3))
# out: 2106052 148824 1254934 -6052
let s = 0
let t = 0.0
for k in 0..200 {
    s = s + k % 7 - k // 3 + (k % 5) ** 2 + (-k) // 4 + (-k) % 6
    t = t + (k * 0.5) % 3.0 + (k * 0.75) // 2.0 + (k * 0.1) ** 2 + k ** 0.5
}
print(s, t)
# out: -9323 35968.3420754046
let X = reshape((i * 31) % 17 - 8, [n // 10, 10]) as f64
let g = ((i[:n // 10] * 13) % 11 - 5) as f64
print(ck(transpose(X) @ g), (g @ X)[:5])
# out: 73 [43.0, 43.0, 94.0, 77.0, 26.0]
print(transpose(X[:, :3]) @ g)
# out: [43.0, 43.0, 94.0]
let idx = (i * 2654435761) % 1021
print(ck(bincount(idx) * arange(1021)), ck(bincount(idx, minlength=1500)), bincount(idx)[:5], ck(bincount(u)))
# out: 25499985 50000 [49, 49, 49, 49, 49] 50000
# `x = x op e` of host scalars overwrites x's element only where nothing else holds it
let a = 5
let b = a
a = a + 1
let c = 2.5
c = c * c - c
c = c + c
let z = 1
z = z + 0.5
let k = 0
let total = 0
while k < 10 { total = total + k * k - k % 3; k = k + 1 }
fn halves(n) {
    let h = 0
    for j in 0..n { h = h + j // 2 }
    h
}
print(a, b, c, z, k, total, halves(10))
# out: 6 5 7.5 1.5 10 276 20
