# Benchmark workload `gelu_tanh` (CPU only: bench/cpu.py has the NumPy,
# numexpr, Numba and JAX twins): GELU's tanh form (GPT-2's, PyTorch's
# approximate="tanh") of 2^26 f32 in [-4, 4).
# Inputs are realized before the timed loop; each loop iteration is one realize.
# Lines marked `# scale` are divided for --quick and the CPU variant; `# iters` may be replaced.
let n = 67108864  # scale
let iters = 35  # iters
let x = realize(rand([n]) * 8.0 - 4.0)
for i in 0..iters { let y = 0.5 * x * (1.0 + tanh(0.7978846 * (x + 0.044715 * x ** 3))) }
