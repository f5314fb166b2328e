# expect: E0300
# `x += e` keeps an integer array's dtype, as NumPy's in-place operators
let counts = arange(4)
counts += 0.5
