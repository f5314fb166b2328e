# Black-Scholes prices of European call and put options.
#
# A book of 10,000 options with random spot prices (58 to 62), strikes (50 to
# 70) and maturities (3 months to 2 years), at a 6.25% risk-free rate and 25%
# volatility, all in f64. Prints the call and put price of the first option,
# the summed call and put prices of the book, and the largest put-call parity
# residual |C - P - (S - K exp(-rT))|, which is zero up to rounding.

# Cumulative distribution function of the standard normal (0.7071... = 1/sqrt(2)).
fn cnd(x) = 0.5 * (1.0 + erf(x * 0.7071067811865476))

fn black_scholes(s, k, t, rate = 0.0625, vol = 0.25) {
    let sd = vol * sqrt(t)
    let d1 = (log(s / k) + (rate + 0.5 * vol * vol) * t) / sd
    let d2 = d1 - sd
    let discounted = k * exp(-rate * t)
    let call = s * cnd(d1) - discounted * cnd(d2)
    let put = discounted * cnd(-d2) - s * cnd(-d1)
    (call, put)
}

seed(11)
let n = 10_000
let s = 58.0 + 4.0 * rand([n], dtype=f64)
let k = 50.0 + 20.0 * rand([n], dtype=f64)
let t = 0.25 + 1.75 * rand([n], dtype=f64)

let (call, put) = black_scholes(s, k, t)

print("first option: call", call[0], "put", put[0])
print("book: calls", sum(call), "puts", sum(put))
print("put-call parity residual:", max(abs(call - put - (s - k * exp(-0.0625 * t)))))
