# Benchmark workload `transpose_add_other` (bench/peers.py has the same name and shapes): transpose(b) + a of (16384, 16384)
# Inputs are realized before the timed loop, so they are not fused into the
# measured kernel; each loop iteration is one realize. bench/run.py reads the
# per-kernel medians from `arr run --profile-json`. Lines marked `# scale`
# are divided for --quick and the CPU variant; `# iters` may be replaced.
let n = 16384  # scale
let iters = 35  # iters
let a = realize(rand([n, n]))
let b = realize(rand([n, n]))
for i in 0..iters { let c = transpose(b) + a }
