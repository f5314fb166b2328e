# Benchmark workload `fused_chain` (bench/peers.py has the same name and shapes): exp(a*b+c) - 0.5*tanh(a), 2^26 f32 each
# Inputs are realized before the timed loop, so they are not fused into the
# measured kernel; each loop iteration is one realize. bench/run.py reads the
# per-kernel medians from `arr run --profile-json`. Lines marked `# scale`
# are divided for --quick and the CPU variant; `# iters` may be replaced.
let n = 67108864  # scale
let iters = 35  # iters
let a = realize(rand([n]))
let b = realize(rand([n]))
let c = realize(rand([n]))
for i in 0..iters { let d = exp(a * b + c) - 0.5 * tanh(a) }
