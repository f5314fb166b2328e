# Snakes and ladders as a Markov chain (Benchpress `snakes_and_ladders`): the
# transition matrix is built row by row with slice assignments (a die throw
# moves 1..6 squares, overshooting lands on the last square), snakes and
# ladders move a column's probability to another column, then the state
# distribution is pushed through the chain with vector-matrix products.
let n = 1000  # scale
let iters = 600  # iters
let size = n
let p = zeros([size + 1, size + 1], dtype=f64)
for i in 0..size + 1 {
    p[i, i + 1:i + 7] = 1.0 / 6.0
}
p[size, size] = 1.0
for j in 1..7 {
    p[size - j, size] = (7 - j) / 6.0
}
# ladders (up) and snakes (down) every 37 squares, deterministic
let nspecial = (size - 10) // 37
for s in 0..nspecial {
    let start = 5 + 37 * s
    let stop = if s % 2 == 0 { minimum(start + 23, size - 1) } else { start - 4 }
    p[:, stop] += p[:, start]
    p[:, start] = 0.0
}
let v = zeros([size + 1], dtype=f64)
v[0] = 1.0
let a = zeros([size + 1], dtype=f64)
let pr_end = zeros([iters], dtype=f64)
let expect = 0.0
for k in 0..iters {
    pr_end[k] = v[size]
    a = a + v
    expect = expect + (1.0 - v[size])
    v = v @ p
}
print(sum(a))
print(pr_end[iters - 1])
print(expect)
print(sum(pr_end * arange(iters)))
print(sum(p))
