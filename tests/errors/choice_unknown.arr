# expect: E0413
let x = [3.0, 1.0, 2.0]
print(pad(x, 2, mode="mirror"))
