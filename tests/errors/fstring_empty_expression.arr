# expect: E0008
let x = 2
print(f"x = {x:.2f} {}")
