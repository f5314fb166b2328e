# expect: E0105
let x = linspace(0.0, 1.0, num=5)
let c = clip(x, 0.2)
