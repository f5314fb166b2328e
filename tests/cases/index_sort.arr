# Boolean masks, integer-array indexing, sorting, searching and counting
# (NumPy's names): run on both CPU executors and, in the GPU suite, on CUDA.
let a = reshape(arange(24) * 7 % 11, [4, 6]) as f32
print(a[a > 5])
print(a[[true, false, true, false]])
print(a[:, [0, -1, 2]])
let b = copy(a)
b[b < 3] = -1
b[[0, 2]] += 100
print(b)
print(a[None, 1:3, None])
print(sort(a), sort(a, axis=0), argsort(a), argsort(transpose(a), axis=none))
let v = [2.0, nan, -1.0, 2.0, 0.5] as f32
print(sort(v), argsort(v))
let (u, c) = unique(a, return_counts=true)
print(u, c)
print(searchsorted(sort(v), [0.0, 2.0, 9.0]), searchsorted(u, 5.0, side="right"))
print(median(a), median(a, axis=1), percentile(a, [5, 50, 95], axis=0), quantile(a, 0.25))
print(bincount(flatten(a) as i64), bincount([1, 1, 4], weights=[0.5, 0.25, 2.0], minlength=6))
let (h, e) = histogram(a, bins=5)
print(h, e)
print(nonzero(a > 8)[0], nonzero(a > 8)[1], count_nonzero(a > 5, axis=0), take(a, [3, -1]))
