# k-nearest neighbours (Benchpress `knn`): pairwise squared distances by
# broadcasting, the k nearest by argsort per row, a majority vote by counting.
let n = 2000  # scale
let q = 400
let dims = 8
let k = 7
let classes = 4
let it = arange(n) as f64
let iq = arange(q) as f64
let j = arange(dims) as f64
let train = sin(it[:, newaxis] * 0.37 + j[newaxis, :] * 1.3)
let test = 0.9 * cos(iq[:, newaxis] * 0.61 + j[newaxis, :] * 0.7)
let labels = (arange(n) * 7 + arange(n) // 5) % classes
let d2 = sum((test[:, newaxis, :] - train[newaxis, :, :]) ** 2, axis=2)
let nearest = argmin(d2, axis=1)
let idx = argsort(d2, axis=1)[:, :k]
let votes = labels[idx]
let counts = sum(votes[:, :, newaxis] == arange(classes), axis=1)
let pred = argmax(counts, axis=1)
let kth = take_along_axis(d2, idx[:, k - 1:k], axis=1)
# Benchpress's own kernel: feature-major data, reduced over the first axis
let base = transpose(train)
let target = transpose(test)
let dist = sqrt(sum((base[:, newaxis] - target[:, :, newaxis]) ** 2, axis=0))
let r = max(dist, axis=0)
print(sum(pred))
print(sum(counts[:, 0]))
print(sum(labels[nearest]))
print(sum(sqrt(kth)))
print(sum(min(d2, axis=1)))
print(sum(r))
print(max(abs(dist * dist - d2)))
