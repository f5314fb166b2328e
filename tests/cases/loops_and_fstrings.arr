# `for v in array`, tuple items, f-strings and the timer (values worked out by hand;
# the f-string texts are what Python's f"..." gives for the same values).
let a = reshape(arange(6), [3, 2])
let total = 0
for row in a {
    total = total + row[0] * row[1]
}
print(total)
# out: 26
for row in a[::-1] { print(row) }
# out: [4, 5]
# out: [2, 3]
# out: [0, 1]
let t = (1, "two", 3.5)
for item in t { print(item) }
# out: 1
# out: two
# out: 3.5
print(t[1], t[-1], meshgrid([1, 2], [5, 6, 7])[1][2, 0])
# out: two 3.5 7
let b = zeros([2, 3])
for r in b { r[1] = 5.0 }
print(b)
# out: [[0.0, 5.0, 0.0],
# out:  [0.0, 5.0, 0.0]]
let x = 3.14159
let n = 42
print(f"x = {x:.3f}; n = {n:>5d}|{n:<5}|{n:^6}|{n:05d}|{-n:+d}|{n:x}|{1234567:,}")
# out: x = 3.142; n =    42|42   |  42  |00042|-42|2a|1,234,567
print(f"{x:e}|{x:10.2e}|{0.000125:g}|{123456789.0:g}|{0.25:.1%}|{x:*<8.2f}|{{}}")
# out: 3.141590e+00|  3.14e+00|0.000125|1.23457e+08|25.0%|3.14****|{}
print(f"{a[0]} {a[1]:.1f} {dtype(a)} {t}")
# out: [0, 1] [2.0, 3.0] i64 (1, two, 3.5)
let t0 = perf_counter()
let s = realize(sum(ones([1000])))
print(perf_counter() >= t0, time() > 1.7e9, dtype(time()))
# out: true true f64
# the narrow integers format as integers, as Python's int does (`{p:d}` of a u8 pixel)
let px = array([5, 200], dtype=u8)
let s16 = array([-3, 7], dtype=i16)
print(f"{px[1]:d} {px:4d} {s16:+d} {s16[1]:#x} {array([70000], dtype=u32):,}")
# out: 200 [   5,  200] [-3, +7] 0x7 [70,000]
# `,` and `_` group a float's digits with no type too, and `{x=}` names the value
print(f"{1234.5:,} {-1234567.25:_} {n=} {x = :.2f} {n==42} {n>=2}")
# out: 1,234.5 -1_234_567.25 n=42 x = 3.14 true true
