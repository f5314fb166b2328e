# Benchmark workload `sum_short_rows` (bench/peers.py has the same name and shapes): sum axis=1 of (2^22, 32): short rows
# Inputs are realized before the timed loop, so they are not fused into the
# measured kernel; each loop iteration is one realize. bench/run.py reads the
# per-kernel medians from `arr run --profile-json`. Lines marked `# scale`
# are divided for --quick and the CPU variant; `# iters` may be replaced.
let rows = 4194304  # scale
let iters = 35  # iters
let x = realize(rand([rows, 32]))
for i in 0..iters { let s = sum(x, axis=1) }
