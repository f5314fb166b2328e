# The stdlib written in Arr (values worked out by hand; a literal list is f64, as in NumPy).
let x = [1.0, 2.0, 3.0, 4.0]
print(var(x), var(x, ddof=1), std([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]))
# out: 1.25 1.6666666666666667 2.0
print(norm([3.0, 4.0]), abs(sum(softmax(x)) - 1) < 1e-6, softmax([0.0, 0.0]))
# out: 5.0 true [0.5, 0.5]
print(abs(logsumexp([0.0, 0.0]) - log(2.0)) < 1e-6)
# out: true
let (gx, gy) = meshgrid(arange(3), arange(2))
print(gx, gy)
# out: [[0, 1, 2],
# out:  [0, 1, 2]] [[0, 0, 0],
# out:  [1, 1, 1]]
