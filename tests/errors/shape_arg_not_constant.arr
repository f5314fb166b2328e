# expect: E0305
# A shape must be known before the program runs; argmax depends on the data.
let k = argmax(rand([5]))
let z = zeros(k)
