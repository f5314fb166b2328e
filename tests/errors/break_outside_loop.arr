# expect: E0406
let x = 1
break
