# Benchmark workload `sum_middle` (bench/peers.py has the same name and shapes): sum over the middle axis of (64, 4096, 64)
# Inputs are realized before the timed loop, so they are not fused into the
# measured kernel; each loop iteration is one realize. bench/run.py reads the
# per-kernel medians from `arr run --profile-json`. Lines marked `# scale`
# are divided for --quick and the CPU variant; `# iters` may be replaced.
let mid = 4096  # scale
let iters = 35  # iters
let x = realize(rand([64, mid, 64]))
for i in 0..iters { let s = sum(x, axis=1) }
