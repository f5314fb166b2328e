# expect: E0201
# Python's min of two values; Arr's reads the 2 as an axis of the vector.
let x = ones([3])
print(min(x, 2))
