# Benchmark workload `take` (CPU only: bench/cpu.py): x[idx] of 2^26 random indices into 2^28 f32 values.
# Inputs are realized before the timed loop; each loop iteration is one realize.
# Lines marked `# scale` are divided for --quick and the CPU variant (bench/cpu.py,
# which has the NumPy, Numba and JAX twins); `# iters` may be replaced.
let n = 268435456  # scale
let m = 67108864  # scale
let iters = 35  # iters
let x = realize(rand([n]))
let idx = realize(floor(rand([m]) * n) as i64)
for i in 0..iters { let r = x[idx] }
