# expect: E0210
print("before")
let x = linspace(0.0, 1.0, -4)
