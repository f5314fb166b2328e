# Benchmark workload `mean_var_rows` (bench/peers.py has the same name and shapes): mean(x, axis=1) and var(x, axis=1) of (2^15, 4096), both kept
# Inputs are realized before the timed loop, so they are not fused into the
# measured kernel; each loop iteration is one realize. bench/run.py reads the
# per-kernel medians from `arr run --profile-json`. Lines marked `# scale`
# are divided for --quick and the CPU variant; `# iters` may be replaced.
let rows = 32768  # scale
let iters = 35  # iters
let x = realize(rand([rows, 4096]))
for i in 0..iters {
    let m = mean(x, axis=1)
    let v = var(x, axis=1)
}
