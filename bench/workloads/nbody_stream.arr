# Benchmark workload `nbody_stream` (bench/peers.py has the same name and shapes): sum over j of (a_i - b_j)^2, n = 16384: the n x n temporary is streamed, never stored
# Inputs are realized before the timed loop, so they are not fused into the
# measured kernel; each loop iteration is one realize. bench/run.py reads the
# per-kernel medians from `arr run --profile-json`. Lines marked `# scale`
# are divided for --quick and the CPU variant; `# iters` may be replaced.
let n = 16384  # scale
let iters = 35  # iters
let a = realize(rand([n]))
let b = realize(rand([n]))
for i in 0..iters {
    let d = a[:, newaxis] - b[newaxis, :]
    let s = sum(d * d, axis=1)
}
