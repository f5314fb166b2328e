# expect: E0406
# `continue` belongs to the loop it is written in; a function body has none.
fn skip(x) = {
    continue
    x
}
for i in 0..3 {
    print(skip(i))
}
