# Row reductions over the same rows whose results are each read later (on a
# GPU one row-resident kernel writes them all); hand-derived.
let x = reshape(arange(12) as f64, [3, 4])
let m = mean(x, axis=1)
let v = var(x, axis=1)
print(m, v)
# out: [1.5, 5.5, 9.5] [1.25, 1.25, 1.25]
let e = exp(x - max(x, axis=1, keepdims=true))
let top = max(x, axis=1)
print(top, sum(e / sum(e, axis=1, keepdims=true), axis=1))
# out: [ 3.0,  7.0, 11.0] [1.0, 1.0, 1.0]
for L in [1, 7, 300, 5000] {
    let p = arange(L) as f64
    let d = p[newaxis, :] - p[:, newaxis]
    let s1 = sum(d, axis=1)
    let s2 = sum(d * d, axis=1)
    let a = p + 0.5 * s1
    print(L, s1[0], s1[L - 1], s2[0], s2[L - 1], a[0], sum(a))
}
# out: 1 0.0 0.0 0.0 0.0 0.0 0.0
# out: 7 21.0 -21.0 91.0 91.0 10.5 21.0
# out: 300 44850.0 -44850.0 8955050.0 8955050.0 22425.0 44850.0
# out: 5000 12497500.0 -12497500.0 41654167500.0 41654167500.0 6248750.0 12497500.0
