# expect: E0413
let x = [[1.0, nan], [nan, nan]]
print(nanargmax(x, axis=1))
