# expect: E0413
print("before")
let p = percentile(arange(10), [50, 150])
