# Ragged segmented reductions (hand-derived): segments by lengths or offsets,
# empty segments give the identity (NaN for segmean), fused and strided values.
print(segsum([1, 2, 3, 4, 5], [2, 0, 3]), segsum([1, 2, 3, 4, 5], offsets=[0, 2, 2, 5]))
# out: [ 3,  0, 12] [ 3,  0, 12]
print(segprod([1, 2, 3, 4], [1, 3]), segprod([2, 5], [0, 2, 0]))
# out: [ 1, 24] [ 1, 10,  1]
print(segmin([3, 1, 2, 5], offsets=[0, 2, 4]), segmax([3, 1, 2, 5], [2, 2]))
# out: [1, 2] [3, 5]
print(segmin([1.0, -2.0], [0, 2]), segmax([1.0, -2.0], [2, 0]))
# out: [ inf, -2.0] [ 1.0, -inf]
print(segmean([1.0, 2.0, 4.0], [2, 1]), segmean([1.0, 2.0], [2, 0]))
# out: [1.5, 4.0] [1.5, nan]
print(segmin([4, 7], [0, 2]), segmax([4, 7], [2, 0]))
# out: [9223372036854775807,                   4] [                   7, -9223372036854775808]
print(segmax([1.0, 0.0 / 0.0, 3.0, 2.0], [2, 2]), segsum([1.0, 0.0 / 0.0, 5.0], [2, 1]), segmin([2.0, 0.0 / 0.0], [1, 1]))
# out: [nan, 3.0] [nan, 5.0] [2.0, nan]
print(dtype(segsum(arange(4) as i32, [4])), dtype(segsum([true, false, true], [3])), segsum([true, false, true], [1, 2]))
# out: i64 i64 [1, 1]
print(dtype(segmean(arange(4) as i32, [4])), segmean(arange(4) as i32, [1, 3]))
# out: f32 [0.0, 2.0]
print(segmin([true, false, true], [1, 2, 0]), segmax([true, false, false], [1, 2, 0]))
# out: [ true, false,  true] [ true, false, false]
let x = arange(6) as f32
print(segsum(x * x, [3, 3]), segsum(arange(10)[::2], [2, 3]), segmax(arange(10)[::-3], [1, 3]))
# out: [ 5.0, 50.0] [ 2, 18] [9, 6]
print(size(segsum(zeros([0]), offsets=[0])), segsum(zeros([0]), [0, 0]))
# out: 0 [0.0, 0.0]
let big = ones([100000])
print(segsum(big, [1, 40000, 2000, 57999]), segmax(arange(100000), [1, 40000, 2000, 57999]))
# out: [    1.0, 40000.0,  2000.0, 57999.0] [    0, 40000, 42000, 99999]
# the same lengths array again gives the same segments; writing into it changes them
let lens = [2, 1, 3]
let v = arange(6)
print(segsum(v, lens), segsum(v * 2, lens), segmean(v as f64, lens))
# out: [ 1,  2, 12] [ 2,  4, 24] [0.5, 2.0, 4.0]
lens[0:2] = [1, 2]
print(segsum(v, lens), segmax(v, lens))
# out: [ 0,  3, 12] [0, 2, 5]
let offs = [0, 3, 6]
print(segsum(v, offsets=offs))
# out: [ 3, 12]
offs[1] = 1
print(segsum(v, offsets=offs))
# out: [ 0, 15]
