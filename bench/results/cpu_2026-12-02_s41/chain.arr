let n = 40000
let a = arange(n) as f32 / n + 1.0
let b = arange(n) as f32 / n * 2.0 + 1.0
let c = arange(n) as f32 / n * 3.0 + 1.0
let y = zeros([n])
let t0 = time()
for i in 0..2000 {
  y = ((a + b) / c - 0.5 * (a - b)) * ((b + c) / a - 0.25 * (c - a)) / ((a * b) / c + 2.0 * (b * c)) + ((c + a) / b - 0.5 * (b - c))
}
print(sum(y), (time() - t0) / 2000 * 1e6, "us/iter")
