# Matrix multiply (Benchpress `mxm`/`mxmul`): by broadcasting and a sum over
# the middle axis, Benchpress's own form (x[:, newaxis] * transpose(y) summed
# over the last axis, accumulated into C), and with `@`; repeated iters times.
let n = 160  # scale
let iters = 4  # iters
let i = arange(n) as f64
let a = sin(i[:, newaxis] * 0.7 + i[newaxis, :] * 0.3)
let b = cos(i[:, newaxis] * 0.2 - i[newaxis, :] * 0.5) / n
let c = a
let d = a
let e = zeros_like(a)
for k in 0..iters {
    c = sum(c[:, :, newaxis] * b[newaxis, :, :], axis=1) + a
    e += sum(a[:, newaxis] * transpose(b), -1)
    d = d @ b + a
}
print(sum(c))
print(sum(d))
print(max(abs(c - d)))
print(sum(c * c))
print(sum(e))
print(max(abs(e - iters * (a @ b))))
