# Whole program `monte_carlo_pi` (see bench/programs/programs.py): pi from the
# share of n random f32 points in the unit square inside the quarter circle.
let n = 100000000  # scale
let x = rand([n])
let y = rand([n])
let inside = sum(x * x + y * y < 1.0)
print("pi is about", 4.0 * inside / n)
