# expect: E0001
# Python's `return`: the hint says a function's value is its last expression.
fn f(x) { if x > 0 { return x }; 0 }
print(f(2))
