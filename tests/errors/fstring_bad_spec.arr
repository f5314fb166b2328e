# expect: E0308
let x = 2.5
print(f"{x:d}")
