# expect: E0104
fn area(w, h, w) = w * h
print(area(1, 2, 3))
