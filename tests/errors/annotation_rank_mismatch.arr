# expect: E0207
# The annotation asks for a matrix; a vector has one axis too few.
fn row_sums(m: f32[n, k]) = sum(m, axis=1)
print(row_sums(ones([5])))
