# expect: E0301
# A condition must be one bool, not an array of them: use any() or all().
let positive = arange(3) > 0
if positive { print(1) }
