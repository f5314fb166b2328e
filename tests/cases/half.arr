# The half floats f16 and bf16 (values worked out by hand from their bit layouts:
# f16 has 11 significant bits and tops out at 65504, bf16 has 8).
# 0.1 as f16 holds 0.0999755859375 and prints its shortest digits
print(0.1 as f16)
# out: 0.1
print((0.1 as f16) as f64)
# out: 0.0999755859375
# 1/3: spacing 2^-12 near 0.33, so four digits are needed
print((1.0 / 3.0) as f16)
# out: 0.3333
# 2049 lies halfway between 2048 and 2050: ties to even
print(2049.0 as f16)
# out: 2048.0
# 65504 + 32 lies halfway between 65504 (odd significand) and 2^16: rounds up, past the top
print((65504.0 as f16) + (32.0 as f16))
# out: inf
# bf16: spacing 2 between 256 and 512
print(300.7 as bf16)
# out: 300.0
print(0.1 as bf16)
# out: 0.1
# 1 + 0.001 is within half a spacing (2^-8) of 1
print((1.0 as bf16) + 0.001)
# out: 1.0
# promotion: ints give the half float, f16 with bf16 gives f32, literals stay weak
print(dtype(arange(3) + (ones([3]) as f16)))
# out: f16
print(dtype((ones([2]) as f16) + (ones([2]) as bf16)))
# out: f32
print(dtype((ones([2]) as bf16) * 0.5))
# out: bf16
print(dtype((ones([2]) as f16) + ones([2])))
# out: f32
print(dtype(exp(ones([2]) as bf16)))
# out: bf16
# a sum accumulates in f32: 3000 ones reach 3000 (an f16 accumulator would stop at 2048)
print(sum(ones([3000]) as f16))
# out: 3000.0
print((ones([2, 3]) as f16) @ (ones([3]) as f16))
# out: [3.0, 3.0]
let h = zeros([3], dtype=f16)
h[1] = 0.1
print(h[1] as f64)
# out: 0.0999755859375
print(dtype(h))
# out: f16
# rand in a half float stays below 1 (an f32 uniform within 2^-12 of 1 would round up to it)
print(max(rand([200000], dtype=f16)) < 1.0)
# out: true
print(max(rand([200000], dtype=bf16)) < 1.0)
# out: true
# an array literal of half-float scalars keeps their dtype and values
let q = ones([4], dtype=f16) * 0.1
print([sum(q), max(q), q[0] * 3])
# out: [   0.4,    0.1, 0.2998]
print(dtype([max(q), 2.0]), dtype([ones([2], dtype=bf16), zeros([2], dtype=bf16)]))
# out: f16 bf16
# a half float's mean is computed in f32: 70000 ones sum past f16's 65504
print(mean(ones([70000], dtype=f16)), mean(ones([300, 70000], dtype=bf16) * 3, axis=1)[0])
# out: 1.0 3.0
