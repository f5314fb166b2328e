# expect: E0001
# A tuple pattern takes one starred name (Python: "multiple starred expressions in assignment").
let (a, *b, *c) = (1, 2, 3)
