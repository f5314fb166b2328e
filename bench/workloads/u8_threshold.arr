# Benchmark workload `u8_threshold` (CPU only: bench/cpu.py has the NumPy,
# Numba and JAX twins): a u8 image's pixels above 128 darkened by 128, the
# others brightened by 100 (wrapping, as NumPy's uint8 arithmetic), 2^26 pixels.
# Inputs are realized before the timed loop; each loop iteration is one realize.
# Lines marked `# scale` are divided for --quick and the CPU variant; `# iters` may be replaced.
let n = 16384  # scale
let iters = 35  # iters
let img = realize((rand([n, 4096]) * 255.0) as u8)
for i in 0..iters { let y = where(img > 128, img - 128, img + 100) }
