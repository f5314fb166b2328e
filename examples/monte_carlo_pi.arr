# Pi by Monte Carlo.
#
# Throws n random points into the unit square and counts those that land
# inside the quarter circle of radius 1: that fraction approaches pi/4.
# Uses the session's default seed, so the count is the same on every run and
# every backend. Prints the count, the number of points, and the estimate.

let n = 100_000
let x = rand([n])
let y = rand([n])
let inside = sum(x * x + y * y < 1.0)
let estimate = 4.0 * inside / n

print("inside:", inside, "of", n)
print("pi is about", estimate)
