# expect: E0212
# Python's float() takes one element
let v = float(linspace(0, 1, 4))
