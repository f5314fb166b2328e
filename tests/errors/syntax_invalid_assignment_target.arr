# expect: E0005
let a = 1
a + 1 = 3
