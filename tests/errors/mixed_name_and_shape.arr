# expect: E0100 E0200
# Errors from different checks are all reported, in source order.
let a = undefined_thing
let b = zeros([2]) + zeros([3])
