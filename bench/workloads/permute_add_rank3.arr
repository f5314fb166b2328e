# Benchmark workload `permute_add_rank3` (bench/peers.py has the same name and shapes): permute(b, (0, 2, 1)) + a of (256, 1024, 1024)
# Inputs are realized before the timed loop, so they are not fused into the
# measured kernel; each loop iteration is one realize. bench/run.py reads the
# per-kernel medians from `arr run --profile-json`. Lines marked `# scale`
# are divided for --quick and the CPU variant; `# iters` may be replaced.
let d0 = 256  # scale
let iters = 35  # iters
let a = realize(rand([d0, 1024, 1024]))
let b = realize(rand([d0, 1024, 1024]))
for i in 0..iters { let c = permute(b, (0, 2, 1)) + a }
