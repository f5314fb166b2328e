# Benchmark workload `argmax_rows` (CPU only: bench/cpu.py): argmax along the rows of (2^18, 1024).
# Inputs are realized before the timed loop; each loop iteration is one realize.
# Lines marked `# scale` are divided for --quick and the CPU variant (bench/cpu.py,
# which has the NumPy, Numba and JAX twins); `# iters` may be replaced.
let rows = 262144  # scale
let iters = 35  # iters
let x = realize(rand([rows, 1024]))
for i in 0..iters { let r = argmax(x, axis=1) }
