# American put options on a binomial tree (Benchpress `pricing`, Rolf Poulsen's
# model), one tree per strike: from the payoff at expiry the values are rolled
# back one step at a time, v = disc * (q * v[1:] + (1 - q) * v[:-1]) shrinking
# by one, with early exercise max(v, strike - S) at every node.
let n = 1000  # scale
let nstrikes = 64
let s0 = 100.0
let r = 0.03
let alpha = 0.07
let sigma = 0.20
let expiry = 1.0
let dt = expiry / n
let u = exp(alpha * dt + sigma * sqrt(dt))
let d = exp(alpha * dt - sigma * sqrt(dt))
let rr = exp(r * dt)
let q = (rr - d) / (u - d)
let disc = 1.0 / rr
let strike = 80.0 + 40.0 * arange(nstrikes) / (nstrikes - 1)
let asc = arange(n + 1)
let desc = arange(n, -1, -1)
let st = s0 * u ** asc * d ** desc
let v = maximum(strike[:, newaxis] - st[newaxis, :], 0.0)
let european = copy(v)
for i in range(n - 1, -1, -1) {
    let j = arange(i + 1)
    let s = s0 * u ** j * d ** (i - j)
    v = disc * (q * v[:, 1:] + (1.0 - q) * v[:, :-1])
    v = maximum(v, strike[:, newaxis] - s[newaxis, :])
    european = disc * (q * european[:, 1:] + (1.0 - q) * european[:, :-1])
}
print(v[0, 0])
print(v[nstrikes - 1, 0])
print(sum(v))
print(sum(v - european))
print(shape(v)[1])
