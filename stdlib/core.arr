# The standard library: functions written in Arr itself, loaded into every session.

# Variance over the given axes; `ddof` is subtracted from the count (1 for the sample variance).
fn var(x, axis = none, keepdims = false, ddof = 0) {
    let m = mean(x, axis=axis, keepdims=true)
    let d = x - m
    let n = size(x) / size(m)
    sum(d * d, axis=axis, keepdims=keepdims) / (n - ddof)
}

# Standard deviation over the given axes.
fn std(x, axis = none, keepdims = false, ddof = 0) = sqrt(var(x, axis=axis, keepdims=keepdims, ddof=ddof))

# exp(x) normalised to sum 1 along `axis`, computed stably.
fn softmax(x, axis = -1) {
    let e = exp(x - max(x, axis=axis, keepdims=true))
    e / sum(e, axis=axis, keepdims=true)
}

# log(sum(exp(x))) along `axis`, computed stably.
fn logsumexp(x, axis = none, keepdims = false) {
    let m = max(x, axis=axis, keepdims=true)
    log(sum(exp(x - m), axis=axis, keepdims=keepdims)) + max(x, axis=axis, keepdims=keepdims)
}

# The Euclidean (L2) norm along `axis` (of all elements when none).
fn norm(x, axis = none, keepdims = false) = sqrt(sum(x * x, axis=axis, keepdims=keepdims))

# Coordinate grids: (X, Y) with X[i, j] = x[j] and Y[i, j] = y[i], like NumPy's default "xy" indexing.
fn meshgrid(x: [n], y: [m]) = (copy(broadcast_to(x[newaxis, :], [m, n])), copy(broadcast_to(y[:, newaxis], [m, n])))
