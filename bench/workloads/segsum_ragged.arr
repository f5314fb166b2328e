# Benchmark workload `segsum_ragged` (bench/peers.py has the same name and sizes): segsum
# of 3M segments of random lengths 1..63 (about 96M f32 values), the segments given by
# their lengths. Inputs are realized before the timed loop; each loop iteration is one
# realize. bench/run.py reads the per-kernel medians from `arr run --profile-json`.
# Lines marked `# scale` are divided for --quick and the CPU variant; `# iters` may be
# replaced.
let nseg = 3000000  # scale
let iters = 35  # iters
let lengths = realize(1 + floor(rand([nseg]) * 63) as i64)
let x = realize(rand([sum(lengths)]))
for i in 0..iters { let s = segsum(x, lengths) }
