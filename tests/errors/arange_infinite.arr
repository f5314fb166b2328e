# expect: E0403
# An infinite range has no end (NumPy: "Maximum allowed size exceeded").
let x = arange(0.0, inf)
