# The standard library: functions written in Arr itself, loaded into every session.

# Variance over the given axes; `ddof` is subtracted from the count (1 for the sample variance).
# With `ddof` at or above the count the divisor is 0, as in NumPy: nan (or inf).
fn var(x, axis = none, keepdims = false, ddof = 0) {
    let m = mean(x, axis=axis, keepdims=true)
    let d = x - m
    let n = size(x) / size(m)
    sum(d * d, axis=axis, keepdims=keepdims) / maximum(n - ddof, 0)
}

# Standard deviation over the given axes.
fn std(x, axis = none, keepdims = false, ddof = 0) = sqrt(var(x, axis=axis, keepdims=keepdims, ddof=ddof))

# exp(x) normalised to sum 1 along `axis`, computed stably; an empty array gives an empty array.
fn softmax(x, axis = -1) {
    if size(x) == 0 {
        exp(x)
    } else {
        let e = exp(x - max(x, axis=axis, keepdims=true))
        e / sum(e, axis=axis, keepdims=true)
    }
}

# log(sum(exp(x))) along `axis`, computed stably. As in SciPy, an infinite
# maximum is not subtracted (all -inf gives -inf, not nan) and an empty sum gives -inf.
fn logsumexp(x, axis = none, keepdims = false) {
    if size(x) == 0 {
        log(sum(exp(x), axis=axis, keepdims=keepdims))
    } else {
        let m = max(x, axis=axis, keepdims=true)
        let shift = where(abs(m) < inf, m, 0)
        log(sum(exp(x - shift), axis=axis, keepdims=keepdims)) + max(shift, axis=axis, keepdims=keepdims)
    }
}

# The Euclidean (L2) norm along `axis` (of all elements when none).
fn norm(x, axis = none, keepdims = false) = sqrt(sum(x * x, axis=axis, keepdims=keepdims))
