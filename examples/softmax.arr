# Softmax over the rows of an 8x16 matrix of random logits.
#
# Written out by hand (subtracting each row's maximum first, so that exp
# cannot overflow) and compared with the stdlib's softmax; also the row-wise
# log-sum-exp and the entropy of each row's distribution. Prints the row sums
# (all 1 up to rounding), the first four probabilities of row 0, the largest
# difference between the two softmaxes, the log-sum-exps and the entropies.

fn my_softmax(x, axis = -1) {
    let e = exp(x - max(x, axis=axis, keepdims=true))
    e / sum(e, axis=axis, keepdims=true)
}

seed(4)
let logits = 1.5 * randn([8, 16])

let p = my_softmax(logits, axis=1)
let q = softmax(logits, axis=1)

print("row sums:", sum(p, axis=1))
print("first row starts with:", p[0, :4])
print("largest difference from the stdlib softmax:", max(abs(p - q)))
print("log-sum-exp of each row:", logsumexp(logits, axis=1))
print("entropy of each row:", -sum(p * log(p), axis=1))
