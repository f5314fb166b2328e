# expect: E0005
# Only names and index expressions can be assigned; use `let (a, b) = ...`.
let a = 1
let b = 2
(a, b) = (b, a)
