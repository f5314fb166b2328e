# Creation, shape and elementwise builtins (hand-derived).
print(eye(2), full([2], 7), linspace(0, 1, 5))
# out: [[1.0, 0.0],
# out:  [0.0, 1.0]] [7, 7] [ 0.0, 0.25,  0.5, 0.75,  1.0]
print(arange(1, 10, 3), arange(0.0, 1.0, 0.25), dtype(arange(3)), dtype(full([1], 2.5)))
# out: [1, 4, 7] [ 0.0, 0.25,  0.5, 0.75] i64 f32
print(shape(expand_dims(arange(3), 0)), shape(squeeze(zeros([1, 3, 1]))), shape(broadcast_to(arange(3), [2, 3])))
# out: (1, 3) (3,) (2, 3)
print(concat([arange(2), arange(3)]), stack([arange(2), arange(2)], axis=1)[1], flip(arange(3)))
# out: [0, 1, 0, 1, 2] [1, 1] [2, 1, 0]
print(shape(permute(zeros([2, 3, 4]), (2, 0, 1))), size(zeros([2, 5])), ndim(zeros([2, 5])))
# out: (4, 2, 3) 10 2
print(minimum([1, 5], 3), maximum([1, 5], 3), clip(arange(6), 1, 4))
# out: [1, 3] [3, 5] [1, 1, 2, 3, 4, 4]
print(where(arange(4) > 1, 1.0, 0.0), abs([-2, 3]), sign([-2.0, 0.0, 3.0]))
# out: [0.0, 0.0, 1.0, 1.0] [2, 3] [-1.0,  0.0,  1.0]
print(floor(2.7), ceil(2.1), round(2.5), round(3.5), sqrt(16.0), exp(0.0), log(1.0))
# out: 2.0 3.0 2.0 4.0 4.0 1.0 0.0
print(eye(2) @ [[1, 2], [3, 4]], [1, 2] @ [3, 4])
# out: [[1.0, 2.0],
# out:  [3.0, 4.0]] 11
print(isnan(nan), isnan(1.0), nan == nan)
# out: true false false
let np_a = reshape(arange(4), [2, 2])
let np_copy = array(np_a)
let np_same = asarray(np_a)
np_copy[0, 0] = 10
np_same[1, 1] = 30
print(np_a, array([[1, 2], [3, 4]], dtype=f32)[1], dtype(asarray([1, 2], dtype=f64)))
# out: [[ 0,  1],
# out:  [ 2, 30]] [3.0, 4.0] f64
