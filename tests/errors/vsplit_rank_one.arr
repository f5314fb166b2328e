# expect: E0201
print("before")
let parts = vsplit(arange(6), 2)
