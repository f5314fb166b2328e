# expect: E0301
let x = 3
if x { print(x) }
