# Benchmark workload `bmm` (bench/peers.py has the same name and shapes): (512, 64, 64) @ (512, 64, 64) f32, a stack of products (the peers use torch.bmm / cupy.matmul, cuBLAS strided-batched, TF32 off)
# Inputs are realized before the timed loop, so they are not fused into the
# measured kernel; each loop iteration is one realize. bench/run.py reads the
# per-kernel medians from `arr run --profile-json`. Lines marked `# scale`
# are divided for --quick and the CPU variant; `# iters` may be replaced.
let b = 512  # scale
let iters = 20  # iters
let x = realize(rand([b, 64, 64]))
let y = realize(rand([b, 64, 64]))
for i in 0..iters { let c = x @ y }
