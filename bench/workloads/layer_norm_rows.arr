# Benchmark workload `layer_norm_rows` (bench/peers.py has the same name and shapes): a layer norm written in Arr (mean, centred variance, scale and shift) over rows of (2^15, 4096)
# Inputs are realized before the timed loop, so they are not fused into the
# measured kernel; each loop iteration is one realize. bench/run.py reads the
# per-kernel medians from `arr run --profile-json`. Lines marked `# scale`
# are divided for --quick and the CPU variant; `# iters` may be replaced.
let rows = 32768  # scale
let iters = 35  # iters
let x = realize(rand([rows, 4096]))
let g = realize(rand([4096]))
let b = realize(rand([4096]))
for i in 0..iters {
    let m = mean(x, axis=1, keepdims=true)
    let d = x - m
    let v = mean(d * d, axis=1, keepdims=true)
    let y = d / sqrt(v + 1e-5) * g + b
}
