# `out=` of the elementwise builtins, as NumPy's ufuncs: the result is written
# into that array's memory (every name and view of it sees the values) and is
# the call's value; the result broadcasts to `out`'s shape and is cast to its
# dtype. Expected values from NumPy (tests/cases/out_param.py prints the same).
let a = arange(6) as f32
let b = ones([2, 6])
let o = zeros([2, 6])
let r = add(a, b, out=o)
r[1, 0] = 9.0
print(o, o[1, 0] == 9.0)
# out: [[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
# out:  [9.0, 2.0, 3.0, 4.0, 5.0, 6.0]] true
let v = o[0]
multiply(v, 2.0, out=v)
print(o)
# out: [[ 2.0,  4.0,  6.0,  8.0, 10.0, 12.0],
# out:  [ 9.0,  2.0,  3.0,  4.0,  5.0,  6.0]]
let x = arange(5) as f64
let y = x
sqrt(x, out=x)
print(y)
# out: [               0.0,                1.0, 1.4142135623730951,
# out:  1.7320508075688772,                2.0]
let i = zeros([3], dtype=i32)
add(arange(3), 1, out=i)
print(i)
# out: [1, 2, 3]
let f = zeros([3])
greater(arange(3), 1, out=f)
print(f)
# out: [0.0, 0.0, 1.0]
print(clip(arange(6), 1, 3, out=zeros([6], dtype=i64)))
# out: [1, 1, 2, 3, 3, 3]
let m = zeros([3, 4])
let col = m[:, 1]
subtract(arange(3) as f32, 0.5, out=col)
print(m)
# out: [[ 0.0, -0.5,  0.0,  0.0],
# out:  [ 0.0,  0.5,  0.0,  0.0],
# out:  [ 0.0,  1.5,  0.0,  0.0]]
# a source that reads `out` itself, through a view the other way round
let t = reshape(arange(12) as f32, [3, 4])
add(t, transpose(transpose(t)[:4, :3])[::-1], out=t)
print(t)
# out: [[ 8.0, 10.0, 12.0, 14.0],
# out:  [ 8.0, 10.0, 12.0, 14.0],
# out:  [ 8.0, 10.0, 12.0, 14.0]]
let g = zeros([2, 3])
exp(zeros([3]), out=g)
print(g)
# out: [[1.0, 1.0, 1.0],
# out:  [1.0, 1.0, 1.0]]
let w = arange(6) as f32
maximum(w[::-1], 2.5, out=w)
print(w)
# out: [5.0, 4.0, 3.0, 2.5, 2.5, 2.5]
let k = arange(8)
left_shift(k, 1, out=k)
bitwise_and(k, 6, out=k)
print(k)
# out: [0, 2, 4, 6, 0, 2, 4, 6]
let c = zeros([4], dtype=bool)
logical_or(arange(4) > 2, arange(4) < 1, out=c)
print(c)
# out: [ true, false, false,  true]
let s = zeros([4])
round([0.5, 1.5, 2.25, -0.5], 1, out=s)
print(s)
# out: [ 0.5,  1.5,  2.2, -0.5]
# reductions, scans and `@` take `out=` of exactly the result's shape
let x = reshape(arange(12) as f32, [3, 4])
let s = zeros([4])
sum(x, axis=0, out=s)
print(s)
# out: [12.0, 15.0, 18.0, 21.0]
let mx = zeros([3, 1])
max(x, axis=1, keepdims=true, out=mx)
print(mx)
# out: [[ 3.0],
# out:  [ 7.0],
# out:  [11.0]]
let am = zeros([4], dtype=i32)
argmax(x, axis=0, out=am)
print(am)
# out: [2, 2, 2, 2]
let cs = zeros([3, 4], dtype=f64)
cumsum(x, axis=1, out=cs)
print(cs)
# out: [[ 0.0,  1.0,  3.0,  6.0],
# out:  [ 4.0,  9.0, 15.0, 22.0],
# out:  [ 8.0, 17.0, 27.0, 38.0]]
let p = zeros([3, 3])
matmul(x, transpose(x), out=p)
print(p)
# out: [[ 14.0,  38.0,  62.0],
# out:  [ 38.0, 126.0, 214.0],
# out:  [ 62.0, 214.0, 366.0]]
let mu = zeros([])
mean(x, out=mu)
print(mu)
# out: 5.5
