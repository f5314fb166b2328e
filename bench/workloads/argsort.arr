# Benchmark workload `argsort` (CPU only: bench/cpu.py): the stable argsort of 2^26 f32 values.
# Inputs are realized before the timed loop; each loop iteration is one realize.
# Lines marked `# scale` are divided for --quick and the CPU variant (bench/cpu.py,
# which has the NumPy, Numba and JAX twins); `# iters` may be replaced.
let n = 67108864  # scale
let iters = 35  # iters
let x = realize(rand([n]))
for i in 0..iters { let r = argsort(x) }
