# expect: E0300
# `m += e` keeps a bool array's dtype: an integer result does not fit it (NumPy's same_kind casting)
let m = arange(4) > 1
m += 1
