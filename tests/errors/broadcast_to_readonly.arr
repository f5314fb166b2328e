# expect: E0208
# NumPy: broadcast_to gives a read-only view, and so are its views.
let c = zeros([3])
let d = broadcast_to(c[:, newaxis], [3, 2])
d[:, 1] = [1.0, 2.0, 3.0]
