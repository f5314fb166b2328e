# The storage-only dtypes (u8, i8, i16, u16, u32, f16, bf16) in fused maps and
# reductions on the CPU: loaded widened, computed in i32 (u32 in i64) or f32, each op's
# result wrapped or rounded as its store would (so a chain equals the node by
# node reference), stored narrowed. Arrays of more than one parallel task's
# blocks, read through strided, reversed and broadcast views; the values come
# from indices so that the NumPy oracle (storage_fused.py) computes the same.
let n = 30000
let i = arange(n * 7)
let a = realize(reshape((i * 37 + 11) % 256, [n, 7]) as u8)
let b = realize(reshape((i * 53 + 5) % 256 - 128, [n, 7]) as i8)
let s = realize(reshape(i * 977 % 65536 - 32768, [n, 7]) as i16)
let w = realize(reshape(i * 1301 % 65536, [n, 7]) as u16)
let u = realize(reshape(i * 2654435761 % 4294967296, [n, 7]) as u32)
fn ck(x) = sum(x as i64)
print(ck(a + a), ck(a * 3), ck(a - 200), ck(-a), ck(~a), ck(a << 1), ck(a >> 2))
# out: 26669904 26774904 26774952 26775256 26775176 26669904 6614956
print(ck(where(a > 100, a // 3, a % 7)), ck(maximum(a, 77)), ck(minimum(a[::-1], a[:, ::-1])))
# out: 7745302 29238252 20053162
print(ck(a[::2, ::-1] + a[1::2]), ck(a + a[0]), ck(transpose(a) * 2 + 1))
# out: 13545000 26774600 26879904
print(ck(max(a, axis=0)), ck(min(a, axis=1)), sum(a, axis=0), ck(max(transpose(a), axis=1)))
# out: 1785 534019 [3822792, 3824568, 3826344, 3827352, 3826056, 3824504, 3823208] 1785
print(any(a == 255), all(a > 0), ck(argmax(a, axis=1)), ck(cumsum(a[:10, 0])))
# out: true false 89005 1100
print(ck(b + b), ck(b * b), ck(abs(b)), ck(b // 3), ck(b % 5), ck(max(b, axis=0)), ck(b as u8))
# out: -210032 -1364616 13230100 -105005 419999 889 26774984
print(ck(s * 3), ck(s + w), ck(w * w), ck(w // 7 + 1), ck(u + u), ck(u // 3), ck(u * u))
# out: -203384 6880361232 6802316408 983107094 450969354227120 150324918303617 451806723399992
# narrow integers compute in i32 lanes: products past i32 and shifts past
# the width keep the low bits the narrow store keeps
print(ck(a << 9), ck(a << 31), ck(b >> 10), ck(a * a * a), ck(w * w * w), ck(s * s * s), ck(w * 65535), ck(-s), ck(abs(s)))
# out: 0 0 -105000 23519632 6773600576 -105563584 6881388232 286248 3440275674
let x = reshape(i % 1000, [n, 7]) * 0.37 - 20.0
print(ck(x as u8), ck(x as i8), ck((x * 10.0) as i16), ck((x * 1000.0) as u16), ck(nan_to_num(x / 0.0, posinf=1e10) as u32))
# out: 32103960 20492220 346026660 11792737950 852336259692750
let h = realize((reshape(i % 2000, [n, 7]) * 0.01) as f16)
let g = realize((reshape(i % 3000, [n, 7]) * 0.0123) as bf16)
fn fk(x) = sum(x as f64)
print(fk(h), fk(h * 3.0 + 1.0), fk(h * h - h), fk(exp(h * 0.1)), fk(h[::-1] + h[0]))
# out: 2098949.9975967407 6506848.76953125 25880350.430374146 670311.38671875 2105314.2906188965
print(fk(g), fk(g * 3.0 + 1.0), fk(g * g - g), fk(sqrt(g)), fk(g + h), fk(max(h, axis=1)), fk(sum(h, axis=1)))
# out: 3873157.293701172 11829492.5 91427103.26538086 850203.9013671875 5972107.291297913 301646.34338378906 2098950.2856445313
print(fk((x * 1.0001) as f16), fk((x as f64 * 1.0000001) as f16), fk((x * 3.3) as bf16), fk(mean(h, axis=0)))
# out: 34614677.03933716 34611191.275177 114216083.89160156 69.9453125
print(ck(h > 9.5), ck(where(g > 5.0, a, b)), fk(h as f32 * 2.0), ck((h * 10.0) as u8))
# out: 110145 23118920 4197899.995193481 20897310
# a realize with a kernel the fused executor leaves to the reference (the
# wrap padding's concatenation, a scan) beside fused maps of the same dtype
let board = reshape((i[:4096] * 2654435761) % 1000 < 300, [64, 64]) as u8
for gen in 0..5 {
    let p = pad(board, 1, mode="wrap")
    let nb = p[:-2, :-2] + p[:-2, 1:-1] + p[:-2, 2:] + p[1:-1, :-2] + p[1:-1, 2:] + p[2:, :-2] + p[2:, 1:-1] + p[2:, 2:]
    board = ((nb == 3) | ((board == 1) & (nb == 2))) as u8
}
print(ck(board), ck(board * arange(64)), ck(cumsum(a[:100, 0] * 2)), ck(cumsum(h[:50, 1] * 2.0) > 40.0))
# out: 401 12552 583128 26
