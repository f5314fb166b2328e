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

# Range of values (maximum minus minimum) along `axis` (of all elements when none).
fn ptp(x, axis = none, keepdims = false) = max(x, axis=axis, keepdims=keepdims) - min(x, axis=axis, keepdims=keepdims)

# Degrees to radians.
fn deg2rad(x) = x * (pi / 180.0)

# Radians to degrees.
fn rad2deg(x) = x * (180.0 / pi)

# Degrees to radians (NumPy's other name for `deg2rad`).
fn radians(x) = deg2rad(x)

# Radians to degrees (NumPy's other name for `rad2deg`).
fn degrees(x) = rad2deg(x)

# Elementwise maximum that ignores NaN: the other value where one is NaN (NaN where both are).
fn fmax(a, b) = where(isnan(b), a, where(isnan(a), b, maximum(a, b)))

# Elementwise minimum that ignores NaN: the other value where one is NaN (NaN where both are).
fn fmin(a, b) = where(isnan(b), a, where(isnan(a), b, minimum(a, b)))

# log(exp(a) + exp(b)) without overflow; equal infinities give themselves.
fn logaddexp(a, b) {
    let m = maximum(a, b)
    where(a == b, a + log(2.0), m + log1p(exp(-abs(a - b))))
}

# The Heaviside step: 0 below zero, `h0` at zero, 1 above (NaN stays NaN).
fn heaviside(x, h0) = where(isnan(x), x, where(x < 0, 0.0, where(x > 0, 1.0, h0)))

# Variance of the values that are not NaN along `axis`; `ddof` as in `var`.
fn nanvar(x, axis = none, keepdims = false, ddof = 0) {
    let ok = not isnan(x)
    let m = nanmean(x, axis=axis, keepdims=true)
    let d = where(ok, x - m, 0.0)
    let n = sum(ok, axis=axis, keepdims=keepdims)
    sum(d * d, axis=axis, keepdims=keepdims) / maximum(n - ddof, 0)
}

# Standard deviation of the values that are not NaN along `axis`.
fn nanstd(x, axis = none, keepdims = false, ddof = 0) = sqrt(nanvar(x, axis=axis, keepdims=keepdims, ddof=ddof))

# Reverses the columns (axis 1; a view).
fn fliplr(x) = flip(x, axis=1)

# Reverses the rows (axis 0; a view).
fn flipud(x) = flip(x, axis=0)

# Differences between consecutive elements of the flattened array.
fn ediff1d(x) = diff(ravel(x))

# Exchanges two axes (a view).
fn swapaxes(x, axis1, axis2) {
    let n = ndim(x)
    let (a, b) = (axis1 % n, axis2 % n)
    let perm = arange(n)
    perm[a] = b
    perm[b] = a
    permute(x, perm)
}

# Moves axis `source` to position `destination`, the others keeping their order (a view).
fn moveaxis(x, source, destination) {
    let n = ndim(x)
    let (s, d) = (source % n, destination % n)
    let rest = arange(n)[arange(n) != s]
    permute(x, concat([rest[:d], [s], rest[d:]]))
}

# The polynomial with coefficients `p` (highest power first) at `x`, by Horner's rule.
fn polyval(p, x) {
    let r = zeros_like(x * p[0])
    for c in p {
        r = r * x + c
    }
    r
}

# The dot product of the flattened arrays.
fn vdot(a, b) = sum(ravel(a) * ravel(b))

# `num` values from base**start to base**stop, evenly spaced in the exponent.
fn logspace(start, stop, num = 50, endpoint = true, base = 10.0) = base ** linspace(start, stop, num, endpoint=endpoint)

# The integral of `y` along `axis` by the trapezoidal rule, samples `dx` apart.
fn trapezoid(y, dx = 1.0, axis = -1) = dx * (sum(y, axis=axis) - 0.5 * (take(y, 0, axis=axis) + take(y, -1, axis=axis)))

# NumPy 1's name for `trapezoid`.
fn trapz(y, dx = 1.0, axis = -1) = trapezoid(y, dx=dx, axis=axis)

# Covariance of the variables in the rows of `m` (in the columns when `rowvar` is false),
# observations along the other axis, normalised by their count minus `ddof`; a 1-D `m` is one variable.
fn cov(m, rowvar = true, ddof = 1) {
    if ndim(m) == 1 {
        var(m, ddof=ddof)
    } else {
        let x = if rowvar { m } else { transpose(m) }
        let d = x - mean(x, axis=1, keepdims=true)
        (d @ transpose(d)) / maximum(shape(x)[1] - ddof, 0)
    }
}

# Pearson correlation coefficients of the variables in the rows of `x` (columns when `rowvar` is false).
fn corrcoef(x, rowvar = true) {
    let c = cov(x, rowvar=rowvar)
    if ndim(c) == 0 {
        c / c
    } else {
        let s = sqrt(diag(c))
        clip(c / outer(s, s), -1.0, 1.0)
    }
}

# Whether each element of `element` is among `test_elements` (booleans of `element`'s shape).
fn isin(element, test_elements) = any(expand_dims(element, -1) == ravel(test_elements), axis=-1)

# The index of the bin of increasing `bins` each `x` falls in: i with bins[i-1] <= x < bins[i]
# (bins[i-1] < x <= bins[i] when `right`); 0 below the first edge, len(bins) past the last.
fn digitize(x, bins, right = false) = searchsorted(bins, x, side=if right { "left" } else { "right" })

# The Kronecker product of two 1-D or two 2-D arrays.
fn kron(a, b) {
    if ndim(a) == 1 {
        ravel(outer(a, b))
    } else {
        let (sa, sb) = (shape(a), shape(b))
        reshape(a[:, newaxis, :, newaxis] * b[newaxis, :, newaxis, :], [sa[0] * sb[0], sa[1] * sb[1]])
    }
}
