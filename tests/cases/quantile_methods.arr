# percentile's and quantile's `method=`, every one of NumPy's (the oracle,
# quantile_methods.py, has NumPy compute each): the methods that pick a value
# keep an integer input's dtype, the others give floats
let d = array([7, -3, 12, 5, 0])
let f = array([0.5, -1.25, 3.0, 2.0, 7.5, 1.0])
let m = reshape(arange(12) * 7 % 11, [3, 4])
print(percentile(d, [0, 10, 25, 40, 50, 75, 90, 100], method="inverted_cdf"))
# out: [-3, -3,  0,  0,  5,  7, 12, 12]
print(quantile(f, [0.0, 0.1, 0.3, 0.5, 0.9, 1.0], method="inverted_cdf"), percentile(m, 30, axis=1, method="inverted_cdf"))
# out: [-1.25, -1.25,   0.5,   1.0,   7.5,   7.5] [3, 5, 1]
print(percentile(d, [0, 10, 25, 40, 50, 75, 90, 100], method="averaged_inverted_cdf"))
# out: [-3.0, -3.0,  0.0,  2.5,  5.0,  7.0, 12.0, 12.0]
print(quantile(f, [0.0, 0.1, 0.3, 0.5, 0.9, 1.0], method="averaged_inverted_cdf"), percentile(m, 30, axis=1, method="averaged_inverted_cdf"))
# out: [-1.25, -1.25,   0.5,   1.5,   7.5,   7.5] [3.0, 5.0, 1.0]
print(percentile(d, [0, 10, 25, 40, 50, 75, 90, 100], method="closest_observation"))
# out: [-3, -3, -3,  0,  0,  7,  7, 12]
print(quantile(f, [0.0, 0.1, 0.3, 0.5, 0.9, 1.0], method="closest_observation"), percentile(m, 30, axis=1, method="closest_observation"))
# out: [-1.25, -1.25,   0.5,   1.0,   3.0,   7.5] [0, 2, 0]
print(percentile(d, [0, 10, 25, 40, 50, 75, 90, 100], method="interpolated_inverted_cdf"))
# out: [ -3.0,  -3.0, -2.25,   0.0,   2.5,   6.5,   9.5,  12.0]
print(quantile(f, [0.0, 0.1, 0.3, 0.5, 0.9, 1.0], method="interpolated_inverted_cdf"), percentile(m, 30, axis=1, method="interpolated_inverted_cdf"))
# out: [             -1.25,              -1.25, 0.1499999999999997,
# out:                 1.0,  4.800000000000002,                7.5] [ 0.5999999999999999,  2.5999999999999996, 0.19999999999999996]
print(percentile(d, [0, 10, 25, 40, 50, 75, 90, 100], method="hazen"))
# out: [ -3.0,  -3.0, -0.75,   2.5,   5.0,  8.25,  12.0,  12.0]
print(quantile(f, [0.0, 0.1, 0.3, 0.5, 0.9, 1.0], method="hazen"), percentile(m, 30, axis=1, method="hazen"))
# out: [              -1.25, -1.0749999999999997,  0.6499999999999999,
# out:                  1.5,   7.050000000000002,                 7.5] [2.0999999999999996,                4.1,                0.7]
print(percentile(d, [0, 10, 25, 40, 50, 75, 90, 100], method="weibull"))
# out: [              -3.0,               -3.0,               -1.5,
# out:  1.9999999999999996,                5.0,                9.5,
# out:                12.0,               12.0]
print(quantile(f, [0.0, 0.1, 0.3, 0.5, 0.9, 1.0], method="weibull"), percentile(m, 30, axis=1, method="weibull"))
# out: [             -1.25,              -1.25, 0.5499999999999998,
# out:                 1.5,                7.5,                7.5] [1.5, 3.5, 0.5]
print(percentile(d, [0, 10, 25, 40, 50, 75, 90, 100], method="linear"))
# out: [               -3.0, -1.7999999999999998,                 0.0,
# out:   3.0000000000000004,                 5.0,                 7.0,
# out:                 10.0,                12.0]
print(quantile(f, [0.0, 0.1, 0.3, 0.5, 0.9, 1.0], method="linear"), percentile(m, 30, axis=1, method="linear"))
# out: [ -1.25, -0.375,   0.75,    1.5,   5.25,    7.5] [2.6999999999999997,  4.699999999999999, 0.8999999999999999]
print(percentile(d, [0, 10, 25, 40, 50, 75, 90, 100], method="median_unbiased"))
# out: [               -3.0,                -3.0, -0.9999999999999998,
# out:    2.333333333333334,                 5.0,   8.666666666666664,
# out:                 12.0,                12.0]
print(quantile(f, [0.0, 0.1, 0.3, 0.5, 0.9, 1.0], method="median_unbiased"), percentile(m, 30, axis=1, method="median_unbiased"))
# out: [             -1.25,              -1.25, 0.6166666666666667,
# out:                 1.5,                7.5,                7.5] [               1.9,                3.9, 0.6333333333333333]
print(percentile(d, [0, 10, 25, 40, 50, 75, 90, 100], method="normal_unbiased"))
# out: [              -3.0,               -3.0,            -0.9375,
# out:  2.3750000000000004,                5.0,             8.5625,
# out:                12.0,               12.0]
print(quantile(f, [0.0, 0.1, 0.3, 0.5, 0.9, 1.0], method="normal_unbiased"), percentile(m, 30, axis=1, method="normal_unbiased"))
# out: [-1.25, -1.25, 0.625,   1.5,   7.5,   7.5] [1.9499999999999997, 3.9499999999999997, 0.6499999999999999]
print(percentile(d, [0, 10, 25, 40, 50, 75, 90, 100], method="lower"))
# out: [-3, -3,  0,  0,  5,  7,  7, 12]
print(quantile(f, [0.0, 0.1, 0.3, 0.5, 0.9, 1.0], method="lower"), percentile(m, 30, axis=1, method="lower"))
# out: [-1.25, -1.25,   0.5,   1.0,   3.0,   7.5] [0, 2, 0]
print(percentile(d, [0, 10, 25, 40, 50, 75, 90, 100], method="higher"))
# out: [-3,  0,  0,  5,  5,  7, 12, 12]
print(quantile(f, [0.0, 0.1, 0.3, 0.5, 0.9, 1.0], method="higher"), percentile(m, 30, axis=1, method="higher"))
# out: [-1.25,   0.5,   1.0,   2.0,   7.5,   7.5] [3, 5, 1]
print(percentile(d, [0, 10, 25, 40, 50, 75, 90, 100], method="midpoint"))
# out: [-3.0, -1.5,  0.0,  2.5,  5.0,  7.0,  9.5, 12.0]
print(quantile(f, [0.0, 0.1, 0.3, 0.5, 0.9, 1.0], method="midpoint"), percentile(m, 30, axis=1, method="midpoint"))
# out: [ -1.25, -0.375,   0.75,    1.5,   5.25,    7.5] [1.5, 3.5, 0.5]
print(percentile(d, [0, 10, 25, 40, 50, 75, 90, 100], method="nearest"))
# out: [-3, -3,  0,  5,  5,  7, 12, 12]
print(quantile(f, [0.0, 0.1, 0.3, 0.5, 0.9, 1.0], method="nearest"), percentile(m, 30, axis=1, method="nearest"))
# out: [-1.25, -1.25,   1.0,   1.0,   3.0,   7.5] [3, 5, 1]
