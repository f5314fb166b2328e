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

# NumPy's `linalg.norm`. Without `ord`, the Euclidean (L2) norm along `axis` (of all elements
# when none). With `ord`, a vector norm along `axis` (of a 1-D array when none): inf (largest
# |x|), -inf (smallest), 0 (count of non-zeros), 1, 2 or any p (sum(|x|**p) ** (1/p)); or a
# matrix norm over the two axes of a pair `axis` (of a 2-D array when none; the other axes are a
# batch): "fro", inf and -inf (largest and smallest row sum of |x|), 1 and -1 (column sums), 2
# and -2 (largest and smallest singular value), "nuc" (their sum).
fn norm(x, ord = none, axis = none, keepdims = false) {
    if ord == none {
        # squared in a float (as NumPy's `x.astype(float)`): an integer's square can overflow
        let f = x * 1.0
        sqrt(sum(f * f, axis=axis, keepdims=keepdims))
    } else if (axis == none and ndim(x) == 2) or (axis != none and size(axis) == 2) {
        let n = ndim(x)
        let (r, c) = if axis == none { (0, 1) } else { (normalize_axis_index(axis[0], n), normalize_axis_index(axis[1], n)) }
        if r == c {
            error("norm's two axes must differ")
        }
        # the pair's axes last, rows then columns, after the batch axes in their order
        let rest = arange(n)[logical_and(arange(n) != r, arange(n) != c)]
        let perm = concat([rest, [r, c]])
        let a = permute(abs(x) * 1.0, perm)
        let m = if ord == "fro" {
            sqrt(sum(a * a, axis=(-2, -1)))
        } else if ord == inf {
            max(sum(a, axis=-1), axis=-1)
        } else if ord == -inf {
            min(sum(a, axis=-1), axis=-1)
        } else if ord == 1 {
            max(sum(a, axis=-2), axis=-1)
        } else if ord == -1 {
            min(sum(a, axis=-2), axis=-1)
        } else if ord == 2 {
            max(svdvals(permute(x, perm)), axis=-1)
        } else if ord == -2 {
            min(svdvals(permute(x, perm)), axis=-1)
        } else if ord == "nuc" {
            sum(svdvals(permute(x, perm)), axis=-1)
        } else {
            error(f"norm of a matrix takes ord \"fro\", \"nuc\", inf, -inf, 1, -1, 2 or -2, not {ord}")
        }
        if keepdims {
            expand_dims(expand_dims(m, minimum(r, c)), maximum(r, c))
        } else {
            m
        }
    } else if axis == none and ndim(x) != 1 {
        error(f"norm with an ord takes a 1-D or 2-D array, or an axis; this array has {ndim(x)} dimensions")
    } else if ord == "fro" or ord == "nuc" {
        error(f"norm's ord \"{ord}\" is a matrix norm: it takes a 2-D array or a pair of axes")
    } else {
        let a = abs(x) * 1.0
        if ord == inf {
            max(a, axis=axis, keepdims=keepdims)
        } else if ord == -inf {
            min(a, axis=axis, keepdims=keepdims)
        } else if ord == 0 {
            sum(a != 0, axis=axis, keepdims=keepdims) * 1.0
        } else if ord == 1 {
            sum(a, axis=axis, keepdims=keepdims)
        } else if ord == 2 {
            sqrt(sum(a * a, axis=axis, keepdims=keepdims))
        } else {
            sum(a ** ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)
        }
    }
}

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

# The tuple (x1 // x2, x1 % x2), elementwise: the floor quotient and the remainder of the
# divisor's sign (NumPy's `divmod`).
fn divmod(x1, x2) = (x1 // x2, x1 % x2)

# Elementwise maximum that ignores NaN: the other value where one is NaN (NaN where both are).
# On a tie `a`, as NumPy's fmax (`maximum` gives its second operand there: the sign of a zero).
fn fmax(a, b) = where(isnan(b), a, where(isnan(a), b, maximum(b, a)))

# Elementwise minimum that ignores NaN: the other value where one is NaN (NaN where both are).
# On a tie `a`, as NumPy's fmin.
fn fmin(a, b) = where(isnan(b), a, where(isnan(a), b, minimum(b, a)))

# log(exp(a) + exp(b)) without overflow; equal infinities give themselves.
fn logaddexp(a, b) {
    let m = maximum(a, b)
    where(a == b, a + log(2.0), m + log1p(exp(-abs(a - b))))
}

# The Heaviside step: 0 below zero, `h0` at zero, 1 above (NaN stays NaN).
fn heaviside(x, h0) = where(isnan(x), x, where(x < 0, 0.0, where(x > 0, 1.0, h0)))

# C's remainder, elementwise: the sign of the dividend `x1` (where `%` takes the divisor's).
# Exact on integers and where |x1| < |x2|; otherwise a float's result comes from `%`'s, so a
# remainder far smaller than `x2` is within an ulp of `x2` of NumPy's.
fn fmod(x1, x2) {
    let r = x1 % x2
    let back = where(logical_and(r != 0, (r < 0) != (x1 < 0)), r - x2, r)
    where(abs(x1) < abs(x2), x1, back)
}

# NumPy's random sampling functions, drawn from the session's generator (`seed`), f64 as NumPy's.
# `size` is an int or a shape; none gives the shape the parameters broadcast to (one value for
# scalars), each element its own draw.
fn shape_of_size(size, params = 0.0) = if size == none { shape(params) } else { size }

# Uniform floats in [low, high) (NumPy's random.uniform); low and high broadcast.
fn uniform(low = 0.0, high = 1.0, size = none) = low + (high - low) * rand(shape_of_size(size, low + high), dtype=f64)

# Standard normal floats (NumPy's random.standard_normal).
fn standard_normal(size = none) = randn(shape_of_size(size), dtype=f64)

# Normal floats of mean `loc` and standard deviation `scale` (NumPy's random.normal).
fn normal(loc = 0.0, scale = 1.0, size = none) {
    if any(scale < 0) {
        error("normal's scale must be non-negative")
    }
    loc + scale * randn(shape_of_size(size, loc + scale), dtype=f64)
}

# Integers in [low, high), each equally likely, i64 (NumPy's random.randint); with one bound, [0, low).
fn randint(low, high = none, size = none) {
    let lo = if high == none { 0 } else { low }
    let hi = if high == none { low } else { high }
    if any(hi <= lo) {
        error("randint needs low < high")
    }
    let k = lo + floor((hi - lo) * rand(shape_of_size(size, lo + hi), dtype=f64)) as i64
    # the product can round up to hi - lo when it is large
    minimum(k, hi - 1)
}

# A random ordering of arange(x) for an int x, else of x's rows (NumPy's random.permutation).
fn permutation(x) {
    if ndim(x) == 0 {
        argsort(rand([x], dtype=f64))
    } else {
        x[argsort(rand([shape(x)[0]], dtype=f64))]
    }
}

# Draws from the elements of 1-D `a` (or arange(a) for an int), with replacement unless `replace`
# is false, each with probability `p` (equal when none) (NumPy's random.choice).
fn choice(a, size = none, replace = true, p = none) {
    let pool = if ndim(a) == 0 { arange(a) } else { a }
    let n = shape(pool)[0]
    let k = if size == none { 1 } else { prod(size) }
    if n == 0 and k > 0 {
        if ndim(a) == 0 {
            error(f"choice's `a` must be a positive integer unless no samples are taken, found {a}")
        } else {
            error("choice's `a` cannot be empty unless no samples are taken")
        }
    }
    if p != none and (ndim(p) != 1 or size(p) != n) {
        error(f"choice's `a` and `p` must have the same size, found {n} and {size(p)}")
    }
    if p != none and (any(p < 0) or abs(sum(p) - 1.0) > 1e-8) {
        error("choice's probabilities p must be non-negative and sum to 1")
    }
    if replace {
        let u = rand(shape_of_size(size), dtype=f64)
        let i = if p == none {
            floor(n * u) as i64
        } else {
            let c = cumsum(p * 1.0)
            searchsorted(c / c[-1], u, side="right")
        }
        pool[minimum(i, n - 1)]
    } else {
        if k > n {
            error("choice without replacement cannot take more elements than the population")
        }
        if p != none and sum(p > 0) < k {
            error("choice without replacement has fewer non-zero entries in p than it takes")
        }
        # the k largest of u ** (1 / p): a weighted draw without replacement (Efraimidis and Spirakis)
        let key = if p == none { rand([n], dtype=f64) } else { log(rand([n], dtype=f64)) / p }
        let picked = pool[argsort(-key)[:k]]
        if size == none { picked[0] } else { reshape(picked, size) }
    }
}

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
    let (a, b) = (normalize_axis_index(axis1, n), normalize_axis_index(axis2, n))
    let perm = arange(n)
    perm[a] = b
    perm[b] = a
    permute(x, perm)
}

# Moves axis `source` to position `destination`, the others keeping their order (a view).
fn moveaxis(x, source, destination) {
    let n = ndim(x)
    let (s, d) = (normalize_axis_index(source, n), normalize_axis_index(destination, n))
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

# The integral of `y` along `axis` by the trapezoidal rule: at sample points `x` (1-D along
# `axis`, or of y's shape) when given, else samples `dx` apart.
fn trapezoid(y, x = none, dx = 1.0, axis = -1) {
    if x == none {
        dx * (sum(y, axis=axis) - 0.5 * (take(y, 0, axis=axis) + take(y, -1, axis=axis)))
    } else {
        let v = moveaxis(y * 1.0, axis, -1)
        let d = if ndim(x) == 1 { diff(x) } else { moveaxis(diff(x, axis=axis), axis, -1) }
        sum(d * (v[..., 1:] + v[..., :-1]) / 2.0, axis=-1)
    }
}

# NumPy 1's name for `trapezoid`.
fn trapz(y, x = none, dx = 1.0, axis = -1) = trapezoid(y, x=x, dx=dx, axis=axis)

# Covariance of the variables in the rows of `m` (in the columns when `rowvar` is false), and of
# those of `y` after them when given; observations along the other axis, normalised by their
# count minus `ddof` (1, or 0 when `bias`); a 1-D array is one variable.
fn cov(m, y = none, rowvar = true, bias = false, ddof = none) {
    let dd = if ddof != none { ddof } else if bias { 0 } else { 1 }
    if ndim(m) > 2 or (y != none and ndim(y) > 2) {
        error("cov takes 1-D or 2-D arrays: m and y hold variables of observations")
    }
    if ndim(m) == 1 and y == none {
        var(m, ddof=dd)
    } else {
        let a = if ndim(m) == 1 { m[newaxis, :] } else if rowvar { m } else { transpose(m) }
        let x = if y == none {
            a
        } else {
            let b = if ndim(y) == 1 { y[newaxis, :] } else if rowvar { y } else { transpose(y) }
            concat([a * 1.0, b * 1.0], axis=0)
        }
        let d = x - mean(x, axis=1, keepdims=true)
        (d @ transpose(d)) / maximum(shape(x)[1] - dd, 0)
    }
}

# Pearson correlation coefficients of the variables in the rows of `x` (columns when `rowvar` is
# false), and of those of `y` after them when given.
fn corrcoef(x, y = none, rowvar = true) {
    let c = cov(x, y, rowvar=rowvar)
    if ndim(c) == 0 {
        c / c
    } else {
        let s = sqrt(diag(c))
        clip(c / outer(s, s), -1.0, 1.0)
    }
}

# Whether each element of `element` is among `test_elements` (booleans of `element`'s shape);
# with `invert`, whether it is not.
fn isin(element, test_elements, invert = false) {
    let found = any(expand_dims(element, -1) == ravel(test_elements), axis=-1)
    if invert { not found } else { found }
}

# The index of the bin each `x` falls in. For increasing `bins`: i with bins[i-1] <= x < bins[i]
# (bins[i-1] < x <= bins[i] when `right`), 0 below the first edge, len(bins) past the last; for
# decreasing ones: i with bins[i-1] > x >= bins[i] (bins[i-1] >= x > bins[i] when `right`).
fn digitize(x, bins, right = false) {
    let side = if right { "left" } else { "right" }
    if size(bins) < 2 {
        searchsorted(bins, x, side=side)
    } else if all(bins[1:] >= bins[:-1]) {
        searchsorted(bins, x, side=side)
    } else if all(bins[1:] <= bins[:-1]) {
        size(bins) - searchsorted(bins[::-1], x, side=side)
    } else {
        error("digitize needs bins that increase or decrease monotonically")
    }
}

# The Kronecker product of arrays of any ranks, as NumPy's `kron`: the one of lower rank
# gets leading size-1 axes, and the result's shape is the two shapes multiplied axis by axis.
fn kron(a, b) {
    let n = maximum(ndim(a), ndim(b))
    let sa = concat([ones([n - ndim(a)], dtype=i64), array(shape(a), dtype=i64)])
    let sb = concat([ones([n - ndim(b)], dtype=i64), array(shape(b), dtype=i64)])
    let one = ones([n], dtype=i64)
    # a's axis k becomes axis 2k (beside a size-1 axis 2k + 1) and b's axis k axis 2k + 1, so
    # that the product's axes 2k and 2k + 1 merge into the result's axis k
    let pa = reshape(stack([sa, one], axis=1), [2 * n])
    let pb = reshape(stack([one, sb], axis=1), [2 * n])
    reshape(reshape(a, pa) * reshape(b, pb), sa * sb)
}

# ---- more of NumPy's names

# Weighted average along `axis` (of all elements when none): sum(a * weights) / sum(weights);
# 1-D `weights` with an `axis` weigh the positions along that axis. Without weights, `mean`.
fn average(a, axis = none, weights = none, keepdims = false) {
    if weights == none {
        mean(a, axis=axis, keepdims=keepdims)
    } else {
        # one axis is checked first: 1-D weights are laid along it
        let k = if axis == none or ndim(axis) != 0 { none } else { normalize_axis_index(axis, ndim(a)) }
        let same = ndim(weights) == ndim(a) and all(array(shape(weights)) == array(shape(a)))
        if not same {
            if k == none {
                error("average needs an axis when the weights' shape differs from the array's")
            }
            if ndim(weights) != 1 or size(weights) != shape(a)[k] {
                error(f"average's weights must have the array's shape, or be 1-D of its length along the axis ({shape(a)[k]})")
            }
        }
        let w = if k != none and ndim(weights) == 1 and ndim(a) > 1 {
            reshape(weights, concat([ones([k], dtype=i64), [size(weights)], ones([ndim(a) - k - 1], dtype=i64)]))
        } else {
            weights
        }
        let total = sum(w * ones_like(a), axis=axis, keepdims=keepdims)
        if any(total == 0) {
            error("average's weights sum to zero: they cannot be normalised")
        }
        sum(a * w, axis=axis, keepdims=keepdims) / total
    }
}

# Rotates by 90 degrees `k` times, from the first of `axes` towards the second (a view).
fn rot90(m, k = 1, axes = (0, 1)) {
    if size(axes) != 2 {
        error(f"rot90 takes two axes, found {size(axes)}")
    }
    let (a0, a1) = (normalize_axis_index(axes[0], ndim(m)), normalize_axis_index(axes[1], ndim(m)))
    if a0 == a1 {
        error(f"rot90's axes must be different, found {axes[0]} and {axes[1]}")
    }
    let r = k % 4
    if r == 0 {
        m
    } else if r == 2 {
        flip(flip(m, axis=a0), axis=a1)
    } else if r == 1 {
        swapaxes(flip(m, axis=a1), a0, a1)
    } else {
        flip(swapaxes(m, a0, a1), axis=a1)
    }
}

# `num` values from `start` to `stop` in geometric progression (both of one sign, not zero).
fn geomspace(start, stop, num = 50, endpoint = true) {
    if start == 0 or stop == 0 {
        error("geomspace's start and stop cannot be zero: a geometric sequence never reaches it")
    }
    let s = if start < 0 { -1.0 } else { 1.0 }
    let v = s * 10.0 ** linspace(log10(s * start), log10(s * stop), num, endpoint=endpoint, dtype=f64)
    if num > 0 {
        v[0] = start
    }
    if endpoint and num > 1 {
        v[num - 1] = stop
    }
    v
}

# `x` with at least one axis (a scalar becomes shape [1]).
fn atleast_1d(x) = if ndim(x) == 0 { reshape(x, [1]) } else { x }

# `x` with at least two axes: shape [n] becomes [1, n].
fn atleast_2d(x) = if ndim(x) == 0 { reshape(x, [1, 1]) } else if ndim(x) == 1 { x[newaxis, :] } else { x }

# `x` with at least three axes: [n] becomes [1, n, 1] and [m, n] becomes [m, n, 1].
fn atleast_3d(x) {
    if ndim(x) == 0 {
        reshape(x, [1, 1, 1])
    } else if ndim(x) == 1 {
        x[newaxis, :, newaxis]
    } else if ndim(x) == 2 {
        x[:, :, newaxis]
    } else {
        x
    }
}

# `values` appended to `arr` along `axis` (both flattened when none): a new array.
fn append(arr, values, axis = none) {
    if axis == none {
        concat([ravel(arr), ravel(values)])
    } else {
        concat([arr, values], axis=axis)
    }
}

# NumPy's `gradient` (edge_order 1): the derivative of samples `f` along `axis`, spaced `dx`
# apart, or at the coordinates `dx` when it is a 1-D array. With no `axis`, a 1-D `f` gives its
# derivative, and an N-D `f` the tuple of its derivatives along every axis (a tuple `axis`: along
# those; one derivative alone when it names one axis), each axis spaced `dx` apart, or `dx[k]`
# when `dx` holds one spacing per axis.
fn gradient(f, dx = 1.0, axis = none) {
    if axis == none and ndim(f) == 1 {
        gradient_along(f, dx, 0)
    } else if axis == none or size(axis) > 1 or ndim(axis) == 1 {
        let axes = if axis == none { arange(ndim(f)) } else { axis }
        if ndim(dx) != 0 and size(dx) != size(axes) {
            error(f"gradient takes one spacing for all axes or one per axis ({size(axes)}), not {size(dx)}")
        }
        let parts = ()
        for k in 0..size(axes) {
            let h = if ndim(dx) == 0 { dx } else { dx[k] }
            parts = parts + (gradient_along(f, h, axes[k]),)
        }
        # as NumPy's: one axis asked for gives its derivative alone
        if size(axes) == 1 { parts[0] } else { parts }
    } else {
        gradient_along(f, dx, axis)
    }
}

# The derivative of samples `f` along one `axis`, spaced `dx` apart or at the 1-D coordinates
# `dx`: central differences inside (second-order accurate for uneven spacing too), one-sided at
# the two ends (`gradient`'s work for each axis).
fn gradient_along(f, dx, axis) {
    let g = moveaxis(f * 1.0, axis, 0)
    let n = shape(g)[0]
    if n < 2 {
        error(f"gradient needs at least 2 elements along axis {axis}, found {n}")
    }
    if ndim(dx) == 0 {
        let inner = (g[2:] - g[:-2]) / (2.0 * dx)
        let first = (g[1:2] - g[0:1]) / dx
        let last = (g[-1:] - g[-2:-1]) / dx
        moveaxis(concat([first, inner, last], axis=0), 0, axis)
    } else {
        if ndim(dx) != 1 or size(dx) != n {
            error(f"gradient's coordinates must be 1-D with one per sample ({n}), not of shape {shape(dx)}")
        }
        let h = diff(dx * 1.0)
        # the spacings before and after each inner sample, along axis 0 of g
        let column = concat([[n - 2], ones([ndim(g) - 1], dtype=i64)])
        let (hs, hd) = (reshape(h[:-1], column), reshape(h[1:], column))
        let inner = (hs * hs * g[2:] + (hd * hd - hs * hs) * g[1:-1] - hd * hd * g[:-2]) / (hs * hd * (hd + hs))
        let first = (g[1:2] - g[0:1]) / h[0]
        let last = (g[-1:] - g[-2:-1]) / h[-1]
        moveaxis(concat([first, inner, last], axis=0), 0, axis)
    }
}

# The discrete linear convolution of two 1-D arrays: "full" (length n + m - 1), "same"
# (the longer one's length, centred) or "valid" (where they overlap fully). One pass over
# the longer array per element of the shorter one.
fn convolve(a, v, mode = "full") {
    if mode != "full" and mode != "same" and mode != "valid" {
        error(f"`mode` of `convolve` cannot be \"{mode}\": it is one of \"full\", \"same\", \"valid\"")
    }
    if size(a) == 0 or size(v) == 0 {
        error("convolve of an empty array")
    }
    if ndim(a) > 1 or ndim(v) > 1 {
        error("convolve takes 1-D arrays (ravel a matrix first, or convolve its rows one by one)")
    }
    let (big, small) = if size(a) >= size(v) { (ravel(a), ravel(v)) } else { (ravel(v), ravel(a)) }
    let (lb, ls) = (size(big), size(small))
    let padded = pad(big, ls - 1)
    let full = zeros_like(padded[:lb + ls - 1] * small[0])
    for j in 0..ls {
        full += small[j] * padded[ls - 1 - j:2 * ls - 2 - j + lb]
    }
    if mode == "full" {
        full
    } else if mode == "same" {
        let start = (ls - 1) // 2
        full[start:start + lb]
    } else {
        full[ls - 1:lb]
    }
}

# The cross-correlation of two 1-D arrays, sum over n of a[n + k] * v[n], in NumPy's modes
# and order (default "valid"; with `a` the shorter, NumPy's reversed result).
fn correlate(a, v, mode = "valid") {
    if mode != "full" and mode != "same" and mode != "valid" {
        error(f"`mode` of `correlate` cannot be \"{mode}\": it is one of \"full\", \"same\", \"valid\"")
    }
    if size(a) >= size(v) {
        convolve(a, flip(v), mode=mode)
    } else {
        flip(convolve(v, flip(a), mode=mode))
    }
}

# The sum of products over the last `axes` axes of `a` and the first `axes` axes of `b`.
fn tensordot(a, b, axes = 2) {
    if axes < 0 or axes > ndim(a) or axes > ndim(b) {
        error(f"tensordot sums over {axes} axes, but `a` has {ndim(a)} and `b` {ndim(b)}")
    }
    let (ka, kb) = (ndim(a) - axes, axes)
    if shape(a)[ka:] != shape(b)[:kb] {
        error(f"tensordot's summed axes differ: the last {axes} of `a` are {shape(a)[ka:]}, the first {axes} of `b` {shape(b)[:kb]}")
    }
    let (sa, sb) = (array(shape(a)), array(shape(b)))
    let k = prod(sa[ka:])
    let r = reshape(a, [prod(sa[:ka]), k]) @ reshape(b, [k, prod(sb[kb:])])
    reshape(r, concat([sa[:ka], sb[kb:]]))
}

# Cumulative sum along `axis` with NaN counted as zero.
fn nancumsum(x, axis = none) = cumsum(where(isnan(x), 0, x), axis=axis)

# Cumulative product along `axis` with NaN counted as one.
fn nancumprod(x, axis = none) = cumprod(where(isnan(x), 1, x), axis=axis)

# Product along `axis` of the values that are not NaN.
fn nanprod(x, axis = none, keepdims = false) = prod(where(isnan(x), 1, x), axis=axis, keepdims=keepdims)

# Index of the largest value that is not NaN along `axis`.
fn nanargmax(x, axis = none) {
    if any(all(isnan(x), axis=axis)) {
        error("nanargmax of a slice that is all NaN")
    }
    argmax(where(isnan(x), -inf, x), axis=axis)
}

# Index of the smallest value that is not NaN along `axis`.
fn nanargmin(x, axis = none) {
    if any(all(isnan(x), axis=axis)) {
        error("nanargmin of a slice that is all NaN")
    }
    argmin(where(isnan(x), inf, x), axis=axis)
}

# sin(pi x) / (pi x), and 1 at 0.
fn sinc(x) {
    let y = pi * where(x == 0, 1.0e-20, x)
    where(x == 0, 1.0, sin(y) / y)
}

# Rounds toward zero (NumPy's `fix`).
fn fix(x) = trunc(x)

# Rounds to the nearest integer, halves to even (NumPy's `rint`).
fn rint(x) = round(x)

# Rounds to `decimals` decimal places (NumPy's `around`).
fn around(x, decimals = 0) = round(x, decimals)

# 1 / x.
fn reciprocal(x) = 1 / x

# |x| (NumPy's `absolute`).
fn absolute(x) = abs(x)

# Whether the sign bit is set (true for -0.0).
fn signbit(x) = where(x == 0, 1.0 / x < 0, x < 0)

# The magnitude of `a` with the sign of `b`.
fn copysign(a, b) = where(signbit(b), -abs(a), abs(a))

# The Vandermonde matrix: columns x ** (N - 1), ..., x ** 0 (increasing powers when `increasing`).
fn vander(x, N = none, increasing = false) {
    let n = if N == none { size(x) } else { N }
    let p = if increasing { arange(n) } else { arange(n - 1, -1, -1) }
    x[:, newaxis] ** p
}

# An n x m array (m = n when none) of ones at and below diagonal `k`, zeros above (NumPy's tri).
fn tri(N, M = none, k = 0, dtype = f32) = tril(ones([N, if M == none { N } else { M }], dtype=dtype), k)

# x1 ** x2 computed in f64 whatever their dtypes, as NumPy's float_power.
fn float_power(x1, x2) = asarray(x1, dtype=f64) ** asarray(x2, dtype=f64)

# Indices (rows, columns) of the lower triangle of an n x m matrix, diagonal `k` and below.
fn tril_indices(n, k = 0, m = none) = nonzero(tril(ones([n, if m == none { n } else { m }], dtype=i32), k))

# Indices (rows, columns) of the upper triangle of an n x m matrix, diagonal `k` and above.
fn triu_indices(n, k = 0, m = none) = nonzero(triu(ones([n, if m == none { n } else { m }], dtype=i32), k))

# Indices (rows, columns) of the main diagonal of an n x n matrix.
fn diag_indices(n) = (arange(n), arange(n))

# The inner product over the last axes of `a` and `b`.
fn inner(a, b) {
    if ndim(a) == 0 or ndim(b) == 0 {
        a * b
    } else {
        tensordot(a, moveaxis(b, -1, 0), axes=1)
    }
}

# Least-squares polynomial of degree `deg` through (x, y), highest power first; y may hold
# several data sets as columns. As NumPy: the Vandermonde columns scaled to unit norm, then
# `lstsq` (through the SVD, so a high degree does not square the condition number).
fn polyfit(x, y, deg) {
    let v = vander(x * 1.0, deg + 1)
    let scale = sqrt(sum(v * v, axis=0))
    let (c, residuals, rank, s) = lstsq(v / scale, y * 1.0, rcond=shape(x)[0] * 2.220446049250313e-16)
    if ndim(c) == 1 { c / scale } else { c / scale[:, newaxis] }
}

# Stacks a tuple of arrays along the third axis: 1-D arrays of n as [1, n, k], 2-D ones as
# [m, n, k], 3-D ones joined along axis 2.
fn dstack(tup) {
    if ndim(tup[0]) == 1 {
        stack(tup, axis=1)[newaxis]
    } else if ndim(tup[0]) == 2 {
        stack(tup, axis=2)
    } else {
        concat(tup, axis=2)
    }
}

# `x` converted to `dtype` (a new array, as NumPy's `x.astype(dtype)`); `dtype` may be a value
# such as `dtype(y)`, where `x as f64` takes a dtype name.
fn astype(x, dtype) = array(x, dtype=dtype)

# The values of the first of `choicelist` whose condition in `condlist` holds, element by
# element, else `default` (conditions and choices stacked along a first axis, or lists).
fn select(condlist, choicelist, default = 0) {
    let c = array(condlist)
    let v = array(choicelist)
    let k = shape(c)[0]
    if k == 0 or shape(v)[0] != k {
        error(f"select needs as many choices as conditions, at least one; found {shape(v)[0]} and {k}")
    }
    let out = where(c[k - 1], v[k - 1], default)
    for j in 1..k {
        out = where(c[k - 1 - j], v[k - 1 - j], out)
    }
    out
}

# The elements of `arr` (flattened) where `condition` (flattened) is nonzero.
fn extract(condition, arr) = take(ravel(arr), nonzero(ravel(condition))[0])

# The slices of `a` along `axis` (of the flattened array when none) where the 1-D
# `condition` is nonzero.
fn compress(condition, a, axis = none) {
    let idx = nonzero(ravel(condition))[0]
    if axis == none { take(ravel(a), idx) } else { take(a, idx, axis=axis) }
}

# A 2-D array with the flattened `v` on its k-th diagonal.
fn diagflat(v, k = 0) = diag(ravel(v), k=k)

# Writes `val` into the main diagonal of the 2-D `a`, in place, as NumPy's
# `fill_diagonal` (a[i, i] for i < min(rows, columns); with `wrap`, a tall matrix's
# diagonal starts again every columns + 1 rows). `val` is a number or a 1-D array,
# repeated along the diagonal as NumPy does.
fn fill_diagonal(a, val, wrap = false) {
    if ndim(a) != 2 {
        error(f"fill_diagonal needs a 2-D array, found {ndim(a)} axes")
    }
    let (rows, cols) = shape(a)
    let end = if wrap { rows * cols } else { minimum(rows, cols) * cols }
    let flat = arange(0, end, cols + 1)
    let count = size(flat)
    let values = if ndim(val) == 0 { val } else { take(ravel(val), arange(count) % size(val)) }
    a[flat // cols, flat % cols] = values
    none
}

# The indices that sort by several 1-D keys, the last key first (NumPy's `lexsort`):
# stable sorts from the least significant key to the most.
fn lexsort(keys) {
    let ks = array(keys)
    let n = shape(ks)[0]
    let idx = argsort(ks[0])
    for j in 1..n {
        idx = idx[argsort(ks[j][idx])]
    }
    idx
}

# The q-th quantile (a number in [0, 1]) of the values that are not NaN along `axis`
# (all when none), by linear interpolation as `quantile`; NaN where a line has none.
fn nanquantile(a, q, axis = none, keepdims = false) {
    if ndim(q) != 0 {
        error("nanquantile takes one q at a time")
    }
    if q < 0 or q > 1 {
        error(f"nanquantile needs q in [0, 1], found {q}")
    }
    nan_order_statistics(a, q, axis, keepdims, false)
}

# The shared body of `nanquantile` and `nanmedian`: each line's values that are not NaN, sorted,
# read at q by NumPy's linear interpolation (`_lerp`: from the nearer end), or, for `median`, the
# middle one or the mean of the middle two (as NumPy's `nanmedian`: two equal infinities give
# themselves).
fn nan_order_statistics(a, q, axis, keepdims, median) {
    let x = if axis == none { ravel(a * 1.0) } else { moveaxis(a * 1.0, axis, -1) }
    let s = sort(x, axis=-1)
    let n = sum(not isnan(x), axis=-1, keepdims=true)
    let pos = q * (n - 1)
    let lo = floor(pos)
    let hi = minimum(lo + 1, maximum(n - 1, 0))
    let at = arange(shape(x)[ndim(x) - 1])
    let v_lo = sum(where(at == lo, s, 0.0), axis=-1, keepdims=true)
    let v_hi = sum(where(at == hi, s, 0.0), axis=-1, keepdims=true)
    let t = pos - lo
    let d = v_hi - v_lo
    let mixed = if median {
        where(t == 0, v_lo, (v_lo + v_hi) / 2)
    } else {
        where(t >= 0.5, v_hi - d * (1 - t), v_lo + d * t)
    }
    let r = where(n == 0, nan, mixed)
    if axis == none {
        if keepdims { reshape(r, shape(sum(a, keepdims=true))) } else { r[0] }
    } else if keepdims {
        moveaxis(r, -1, axis)
    } else {
        r[..., 0]
    }
}

# The q-th percentile (q in [0, 100]) of the values that are not NaN (see `nanquantile`).
fn nanpercentile(a, q, axis = none, keepdims = false) {
    if ndim(q) != 0 {
        error("nanpercentile takes one q at a time")
    }
    if q < 0 or q > 100 {
        error(f"nanpercentile needs q in [0, 100], found {q}")
    }
    nanquantile(a, q / 100.0, axis=axis, keepdims=keepdims)
}

# The median of the values that are not NaN along `axis` (see `nanquantile`).
fn nanmedian(a, axis = none, keepdims = false) = nan_order_statistics(a, 0.5, axis, keepdims, true)

# The elements of `arr` at `indices` along `axis`, line by line (NumPy's
# `take_along_axis`, as with the result of `argsort` or `argmax(..., keepdims=true)`):
# `indices` has `arr`'s rank and broadcasts against it but along `axis`.
fn take_along_axis(arr, indices, axis) {
    let a = moveaxis(arr, axis, -1)
    let idx = moveaxis(indices, axis, -1)
    let n = shape(a)[ndim(a) - 1]
    let k = shape(idx)[ndim(idx) - 1]
    let lead = array(shape(a))[:-1]
    let lines = size(a) // maximum(n, 1)
    let i2 = reshape(broadcast_to(idx, concat([lead, [k]])), [lines, k])
    if any((i2 >= n) or (i2 < -n)) {
        error(f"take_along_axis: an index out of range for an axis of {n}")
    }
    let flat = arange(lines)[:, newaxis] * n + where(i2 < 0, i2 + n, i2)
    moveaxis(reshape(take(ravel(a), ravel(flat)), concat([lead, [k]])), -1, axis)
}

# ---- inserting, deleting and trimming; sets of sorted distinct values

# `arr` without the entries of `obj` (an index or a list of them; negative from the end; a
# boolean mask of the axis's length) along `axis` (of the flattened array when none).
fn delete(arr, obj, axis = none) {
    let a = if axis == none { ravel(arr) } else { arr }
    let ax = if axis == none { 0 } else { normalize_axis_index(axis, ndim(a)) }
    let n = shape(a)[ax]
    let drop = array(obj)
    if any((drop < -n) or (drop >= n)) {
        error(f"delete: an index of {drop} is out of bounds for an axis of {n}")
    }
    let keep = ones([n], dtype=bool)
    keep[drop] = false
    take(a, nonzero(keep)[0], axis=ax)
}

# `values` inserted into `arr` before the index or indices `obj` along `axis` (of the flattened
# array when none), cast to `arr`'s dtype. Several indices are positions in the original
# `arr`: values at equal indices go in their order.
fn insert(arr, obj, values, axis = none) {
    let a = if axis == none { ravel(arr) } else { arr }
    let ax = if axis == none { 0 } else { axis }
    let m = moveaxis(a, ax, 0)
    let n = shape(m)[0]
    let at = array(obj)
    if ndim(at) > 1 {
        error(f"insert's `obj` takes an index or a 1-D list of them, found {dtype(at)} of shape {shape(at)}")
    }
    if any((at < -n) or (at > n)) {
        error(f"insert: an index of {at} is out of bounds for an axis of {n}")
    }
    let pos = where(at < 0, at + n, at)
    let v = array(values, dtype=dtype(a))
    # NumPy gives `values` the rank of `arr` by leading axes; a single index takes their first
    # axis as the inserted axis, a list of indices broadcasts them along `axis`
    let v = reshape(v, concat([ones([maximum(ndim(a) - ndim(v), 0)], dtype=i64), array(shape(v), dtype=i64)]))
    let rest = array(shape(m), dtype=i64)[1:]
    let slab = if ndim(at) == 0 {
        broadcast_to(v, concat([[shape(v)[0]], rest]))
    } else if size(at) == 1 {
        let w = moveaxis(v, ax, 0)
        broadcast_to(w, concat([[shape(w)[0]], rest]))
    } else {
        moveaxis(broadcast_to(v, shape(moveaxis(zeros(concat([[size(at)], rest])), 0, ax))), ax, 0)
    }
    let k = shape(slab)[0]
    let first = ravel(pos)
    let new_at = if size(first) == 1 {
        first[0] + arange(k)
    } else {
        # each value moves past the ones inserted before it
        let order = argsort(first)
        let shifted = zeros([k], dtype=i64)
        shifted[order] = first[order] + arange(k)
        shifted
    }
    let old = ones([n + k], dtype=bool)
    old[new_at] = false
    let dest = concat([nonzero(old)[0], new_at])
    moveaxis(take(concat([m, slab], axis=0), argsort(dest), axis=0), 0, ax)
}

# The elements of the flattened `filt` without its leading zeros ("f" in `trim`) and trailing
# zeros ("b" in `trim`).
fn trim_zeros(filt, trim = "fb") {
    if trim != "fb" and trim != "bf" and trim != "f" and trim != "b" {
        error(f"trim_zeros takes trim \"fb\", \"f\" or \"b\", not \"{trim}\"")
    }
    let nz = flatnonzero(filt)
    if size(nz) == 0 {
        ravel(filt)[:0]
    } else {
        let start = if trim == "b" { 0 } else { nz[0] }
        let stop = if trim == "f" { size(filt) } else { nz[-1] + 1 }
        ravel(filt)[start:stop]
    }
}

# Whether each element of `x` is in the sorted distinct 1-D `sorted_unique`, by binary search.
fn in_sorted_unique(x, sorted_unique) {
    if size(sorted_unique) == 0 {
        zeros_like(x, dtype=bool)
    } else {
        let at = minimum(searchsorted(sorted_unique, x), size(sorted_unique) - 1)
        take(sorted_unique, at) == x
    }
}

# The sorted distinct values of `ar1` that are not in `ar2`.
fn setdiff1d(ar1, ar2) {
    let u = unique(ar1)
    u[not in_sorted_unique(u, unique(ar2))]
}

# The sorted distinct values in both `ar1` and `ar2`.
fn intersect1d(ar1, ar2) {
    let aux = sort(concat([unique(ar1), unique(ar2)]))
    aux[:-1][aux[1:] == aux[:-1]]
}

# The sorted distinct values in either `ar1` or `ar2`.
fn union1d(ar1, ar2) = unique(concat([ravel(ar1), ravel(ar2)]))

# The sorted distinct values in exactly one of `ar1` and `ar2`.
fn setxor1d(ar1, ar2) {
    let aux = sort(concat([unique(ar1), unique(ar2)]))
    if size(aux) == 0 {
        aux
    } else {
        let flag = concat([[true], aux[1:] != aux[:-1], [true]])
        aux[flag[1:] and flag[:-1]]
    }
}

# Writes `v` (repeated as needed) at the flat indices `ind` of `a`, in place, as NumPy's `put`:
# through `a`'s own coordinates, so that a view writes into the array it views.
fn put(a, ind, v) {
    let i = ravel(array(ind))
    a[unravel_index(where(i < 0, i + size(a), i), shape(a))] = take(ravel(array(v)), arange(size(i)) % size(v))
}

# NumPy's `np.add.at(a, indices, b)`, in place: adds `b` at `indices` of `a` unbuffered, so that
# an index given k times adds k values (where `a[indices] += b` adds one). `indices` is whatever
# indexes `a` (an integer array along the first axis, a tuple of them, slices, a mask) and `b`
# broadcasts to the shape of `a[indices]`. Each element's values are summed in f64 (exact for
# integers below 2**53), cast to `b`'s dtype and added once, with `out=`'s casting rule.
fn add_at(a, indices, b) {
    let at = reshape(arange(size(a)), shape(a))[indices]
    let v = broadcast_to(b, shape(at))
    let sums = reshape(bincount(ravel(at), weights=ravel(v), minlength=size(a)), shape(a))
    if dtype(a) == bool {
        # NumPy's add of booleans is `or`
        logical_or(a, sums != 0, out=a)
    } else {
        add(a, array(sums, dtype=dtype(v)), out=a)
    }
}

# NumPy 2's array-API names of functions Arr has under NumPy's older names.
# `arcsin`, `arccos`, `arctan`, `arcsinh`, `arccosh`, `arctanh`: `asin` ... `atanh`.
fn asin(x) = arcsin(x)
fn acos(x) = arccos(x)
fn atan(x) = arctan(x)
fn asinh(x) = arcsinh(x)
fn acosh(x) = arccosh(x)
fn atanh(x) = arctanh(x)

# `x1 ** x2` (NumPy 2's `pow`, the array API's name of `power`).
fn pow(x1, x2) = x1 ** x2

# `transpose(x, axes)` (NumPy 2's `permute_dims`).
fn permute_dims(x, axes) = permute(x, axes)

# The last two axes swapped: each matrix of a stack transposed (NumPy 2's `matrix_transpose`).
fn matrix_transpose(x) {
    if ndim(x) < 2 {
        error(f"matrix_transpose needs at least 2 dimensions, found {ndim(x)}")
    }
    swapaxes(x, -1, -2)
}

# The sorted distinct values (NumPy 2's `unique_values`, `unique` without its options).
fn unique_values(x) = unique(x)

# Sums of products along `axis` (NumPy 2's `vecdot`, of real arrays), broadcasting the rest.
fn vecdot(x1, x2, axis = -1) = sum(x1 * x2, axis=axis)

# The running sum along `axis` (NumPy 2's `cumulative_sum`; `axis` may be left out of a 1-D
# array only), with a leading 0 when `include_initial`.
fn cumulative_sum(x, axis = none, include_initial = false) {
    if axis == none and ndim(x) > 1 {
        error("cumulative_sum of an array of more than one dimension needs an axis")
    }
    let k = if axis == none { 0 } else { normalize_axis_index(axis, ndim(x)) }
    let c = cumsum(x, axis=k)
    if include_initial {
        let first = zeros_like(take(c, [0], axis=k))
        concat([first, c], axis=k)
    } else {
        c
    }
}

# The running product along `axis` (NumPy 2's `cumulative_prod`), with a leading 1 when
# `include_initial`.
fn cumulative_prod(x, axis = none, include_initial = false) {
    if axis == none and ndim(x) > 1 {
        error("cumulative_prod of an array of more than one dimension needs an axis")
    }
    let k = if axis == none { 0 } else { normalize_axis_index(axis, ndim(x)) }
    let c = cumprod(x, axis=k)
    if include_initial {
        let first = ones_like(take(c, [0], axis=k))
        concat([first, c], axis=k)
    } else {
        c
    }
}

# |x| as a float (NumPy's `fabs`: integers become floats).
fn fabs(x) = abs(x * 1.0)

# A copy of `x` (NumPy's `positive`, the unary `+`); bools are refused as NumPy does.
fn positive(x) {
    if dtype(x) == bool {
        error("positive of bools is not defined")
    }
    copy(x)
}

# Whether each element is +inf (NumPy's `isposinf`).
fn isposinf(x) = logical_and(isinf(x), x > 0)

# Whether each element is -inf (NumPy's `isneginf`).
fn isneginf(x) = logical_and(isinf(x), x < 0)

# log2(2**a + 2**b) without overflow; equal infinities give themselves.
fn logaddexp2(a, b) {
    let m = maximum(a, b)
    where(a == b, a + 1.0, m + log1p(exp2(-abs(a - b))) / log(2.0))
}

# The greatest common divisor of integers, elementwise (broadcasting), never negative; gcd(0, 0)
# is 0 (NumPy's `gcd`).
fn gcd(x1, x2) {
    let t = dtype(x1 + x2)
    if not (t == i64 or t == i32 or t == i16 or t == i8 or t == u8 or t == u16 or t == u32) {
        error(f"gcd and lcm take integers, not {t}")
    }
    let a = abs(x1 + 0 * x2)
    let b = abs(x2 + 0 * x1)
    # Euclid's steps, all elements at once, until every remainder is 0
    while any(b != 0) {
        let r = a % where(b != 0, b, 1)
        a = where(b != 0, b, a)
        b = where(b != 0, r, 0)
    }
    a
}

# The least common multiple of integers, elementwise, never negative; 0 when either is 0
# (NumPy's `lcm`).
fn lcm(x1, x2) {
    let g = gcd(x1, x2)
    abs(x1 // where(g != 0, g, 1) * x2)
}
