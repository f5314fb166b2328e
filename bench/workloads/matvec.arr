# Benchmark workload `matvec` (CPU only: bench/cpu.py): (2^17, 2048) @ 2048 in f32.
# Inputs are realized before the timed loop; each loop iteration is one realize.
# Lines marked `# scale` are divided for --quick and the CPU variant (bench/cpu.py,
# which has the NumPy, Numba and JAX twins); `# iters` may be replaced.
let rows = 131072  # scale
let iters = 35  # iters
let a = realize(rand([rows, 2048]))
let v = realize(rand([2048]))
for i in 0..iters { let r = a @ v }
