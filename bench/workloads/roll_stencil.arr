# Benchmark workload `roll_stencil` (CPU only: bench/cpu.py): a five-point
# stencil written with rolls, as NumPy users write periodic boundaries,
# u + 0.1 * (four rolls of u - 4 u) of (16384, 4096) in f32.
# Inputs are realized before the timed loop; each loop iteration is one realize.
# Lines marked `# scale` are divided for --quick and the CPU variant (bench/cpu.py,
# which has the NumPy, Numba and JAX twins); `# iters` may be replaced.
let rows = 16384  # scale
let iters = 35  # iters
let u = realize(rand([rows, 4096]))
for i in 0..iters { let c = u + 0.1 * (roll(u, 1, axis=0) + roll(u, -1, axis=0) + roll(u, 1, axis=1) + roll(u, -1, axis=1) - 4.0 * u) }
