# expect: E0004
# Integer literals are i64; this one does not fit.
let big = 99999999999999999999999
