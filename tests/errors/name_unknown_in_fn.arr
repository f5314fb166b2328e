# expect: E0100
# The error is in the body of a function, found when checking the call.
fn shift(x) = x + offest
print(shift(1))
