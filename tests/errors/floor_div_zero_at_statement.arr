# expect: E0400
# An integer floor division by zero is reported at its statement, before later output.
let x = array([10, 20, 30])
let d = array([1, 0, 1])
let y = x // d
print("not reached")
