# Whole program `black_scholes` (see bench/programs/programs.py): call and put
# prices of a book of n European options, f64.
fn cnd(x) = 0.5 * (1.0 + erf(x * 0.7071067811865476))

let n = 10000000  # scale
let rate = 0.0625
let vol = 0.25
let s = 58.0 + 4.0 * rand([n], dtype=f64)
let k = 50.0 + 20.0 * rand([n], dtype=f64)
let t = 0.25 + 1.75 * rand([n], dtype=f64)
let sd = vol * sqrt(t)
let d1 = (log(s / k) + (rate + 0.5 * vol * vol) * t) / sd
let d2 = d1 - sd
let discounted = k * exp(-rate * t)
let call = s * cnd(d1) - discounted * cnd(d2)
let put = discounted * cnd(-d2) - s * cnd(-d1)
print("mean call", mean(call), "mean put", mean(put))
