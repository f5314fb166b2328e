# expect: E0210
# A nan bound gives no length (NumPy: "arange: cannot compute length").
let x = arange(0.0, nan)
