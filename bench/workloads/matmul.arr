# Benchmark workload `matmul` (bench/peers.py has the same name and shapes): (8192, 8192) @ (8192, 8192) f32 (the peers use cuBLAS, TF32 off)
# Inputs are realized before the timed loop, so they are not fused into the
# measured kernel; each loop iteration is one realize. bench/run.py reads the
# per-kernel medians from `arr run --profile-json`. Lines marked `# scale`
# are divided for --quick and the CPU variant; `# iters` may be replaced.
let n = 8192  # scale
let iters = 5  # iters
let a = realize(rand([n, n]))
let b = realize(rand([n, n]))
for i in 0..iters { let c = a @ b }
