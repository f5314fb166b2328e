# expect: E0305
# A shape is made of integers; a float size is refused rather than truncated.
let z = zeros([2.5, 3])
