# Loops, conditions, break and continue.
let total = 0
for i in 0..10 {
    if i % 2 == 0 { continue }
    if i > 7 { break }
    total += i
}
print(total)
# out: 16
let n = 0
let x = 100.0
while x > 1 {
    x = x / 2
    n += 1
}
print(n, x)
# out: 7 0.78125
let sign = if x > 0.5 { "big" } else { "small" }
print(sign)
# out: big
let acc = zeros([3])
for k in 0..4 { acc = acc + k }
print(acc)
# out: [6.0, 6.0, 6.0]
# `and`/`or` after one bool short-circuit as Python's: x[3] is never read
let sx = [3, 1, 4]
let si = 3
print(si < 3 and sx[si] > 0, si >= 3 or sx[si] > 0, si < 3 or true, false or (arange(3) > 1))
# out: false true true [false, false,  true]
let sj = 0
while sj < 3 and sx[sj] != 4 { sj += 1 }
print(sj)
# out: 2
# Python's range in a for loop: range(n) and range(a, b) count, a step walks arange
let rc = zeros([3, 3], dtype=i64)
let ry = [0, 1, 2, 1, 0, 2, 2, 1]
let rp = [0, 2, 2, 1, 0, 1, 2, 1]
for i in range(8) { rc[ry[i], rp[i]] += 1 }
let (rs, rt) = (0, 0)
for i in range(2, 5) { rs += i }
for i in range(10, 0, -3) { rt += i * i }
print(rc[1, 2], rc[2, 2], rs, rt)
# out: 1 2 9 166
