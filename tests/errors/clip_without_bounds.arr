# expect: E0303
let x = arange(5)
print(clip(x, none, none))
