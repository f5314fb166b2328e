# Benchmark workload `copy` (bench/peers.py has the same name and shapes): a device-to-device copy of 2^28 f32 (the ceiling)
# Inputs are realized before the timed loop, so they are not fused into the
# measured kernel; each loop iteration is one realize. bench/run.py reads the
# per-kernel medians from `arr run --profile-json`. Lines marked `# scale`
# are divided for --quick and the CPU variant; `# iters` may be replaced.
let n = 268435456  # scale
let iters = 35  # iters
let a = realize(rand([n]))
for i in 0..iters { let c = copy(a) }
