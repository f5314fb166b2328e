# Reductions, scans and their dtypes (hand-derived).
let m = reshape(arange(6), [2, 3])
print(sum(m), sum(m, axis=0), sum(m, axis=1), sum(m, axis=-1, keepdims=true))
# out: 15 [3, 5, 7] [ 3, 12] [[ 3],
# out:  [12]]
print(prod(arange(1, 5)), min(m), max(m, axis=0), mean(m), mean(m, axis=1))
# out: 24 0 [3, 4, 5] 2.5 [1.0, 4.0]
print(argmax([3, 9, 2, 9]), argmin(m, axis=1), any(m > 4), all(m >= 0, axis=1))
# out: 1 [0, 0] true [true, true]
print(cumsum(arange(5)), cumprod([1, 2, 3, 4]), cummax([1, 3, 2, 5]), cummin([3, 1, 2, 0]))
# out: [ 0,  1,  3,  6, 10] [ 1,  2,  6, 24] [1, 3, 3, 5] [3, 1, 1, 0]
print(cumsum(m, axis=1))
# out: [[ 0,  1,  3],
# out:  [ 3,  7, 12]]
let t = reshape(arange(24), [2, 3, 4])
print(sum(t, axis=(0, 2)), sum(t, axis=1)[1])
# out: [ 60,  92, 124] [48, 51, 54, 57]
print(dtype(sum(arange(3) as i32)), dtype(sum(arange(3) > 0)), dtype(mean(arange(4) as i32)))
# out: i64 i64 f32
print(sum(zeros([0])), prod(zeros([0])))
# out: 0.0 1.0
