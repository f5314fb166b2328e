# Steady-state heat on a square plate, by Jacobi iteration.
#
# The edges of a 24x24 grid are held fixed (the top edge at 100 degrees, the
# others at 0). Every sweep replaces each interior point by the average of
# itself and its four neighbours, until one sweep changes the plate by less
# than `eps` in total. Prints the number of sweeps, the change in the last
# sweep, and the total and mean temperature. The grid is f64 so that the sweep
# count does not depend on rounding.

let n = 24
let eps = 1.0
let max_sweeps = 5_000

let g = zeros([n, n], dtype=f64)
g[0, :] = 100.0

let delta = 1e30 as f64    # anything above eps, to enter the loop
let sweeps = 0
while delta > eps and sweeps < max_sweeps {
    let work = 0.2 * (g[1:-1, 1:-1] + g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:])
    delta = sum(abs(work - g[1:-1, 1:-1]))
    g[1:-1, 1:-1] = work
    sweeps += 1
}

print("sweeps:", sweeps)
print("change in the last sweep:", delta)
print("total heat:", sum(g))
print("mean temperature:", mean(g))
