# Benchmark workload `rotate` (CPU only: bench/cpu.py has the NumPy, numexpr,
# Numba and JAX twins): x cos(t) - y sin(t), the first coordinate of points
# rotated by angles in [0, 2 pi), 2^26 f32 each.
# Inputs are realized before the timed loop; each loop iteration is one realize.
# Lines marked `# scale` are divided for --quick and the CPU variant; `# iters` may be replaced.
let n = 67108864  # scale
let iters = 35  # iters
let x = realize(rand([n]))
let y = realize(rand([n]))
let t = realize(rand([n]) * 6.2831855)
for i in 0..iters { let r = x * cos(t) - y * sin(t) }
