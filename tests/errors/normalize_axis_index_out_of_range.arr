# expect: E0201
fn last_axis_first(x, axis) = moveaxis(x, normalize_axis_index(axis, ndim(x)), 0)
print(last_axis_first(zeros([2, 3]), -3))
