# expect: E0100
let done = True
