# Benchmark workload `add_rank3` (bench/peers.py has the same name and shapes): rank-3 broadcast (256, 256, 256) + (256, 1, 256)
# Inputs are realized before the timed loop, so they are not fused into the
# measured kernel; each loop iteration is one realize. bench/run.py reads the
# per-kernel medians from `arr run --profile-json`. Lines marked `# scale`
# are divided for --quick and the CPU variant; `# iters` may be replaced.
let d0 = 256  # scale
let iters = 35  # iters
let a = realize(rand([d0, 256, 256]))
let b = realize(rand([d0, 1, 256]))
for i in 0..iters { let c = a + b }
