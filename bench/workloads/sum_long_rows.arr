# Benchmark workload `sum_long_rows` (bench/peers.py has the same name and shapes): sum axis=1 of (64, 2^22): very long rows
# Inputs are realized before the timed loop, so they are not fused into the
# measured kernel; each loop iteration is one realize. bench/run.py reads the
# per-kernel medians from `arr run --profile-json`. Lines marked `# scale`
# are divided for --quick and the CPU variant; `# iters` may be replaced.
let cols = 4194304  # scale
let iters = 35  # iters
let x = realize(rand([64, cols]))
for i in 0..iters { let s = sum(x, axis=1) }
