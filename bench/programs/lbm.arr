# Whole program `lbm` (bench/programs/programs.py has the same in PyTorch,
# CuPy and NumPy): lattice Boltzmann D2Q9 (BGK collision, periodic streaming)
# of a decaying shear wave on an n x n f32 grid, `iters` steps
# (examples/lbm.arr at scale). `# scale` / `# iters` lines may be changed by
# the harness (bench/common.py).
let n = 4096  # scale
let iters = 100  # iters
let tau = 0.8
let u0 = 0.01

fn east(a) = concat([a[:, -1:], a[:, :-1]], axis=1)
fn west(a) = concat([a[:, 1:], a[:, :1]], axis=1)
fn north(a) = concat([a[-1:, :], a[:-1, :]], axis=0)
fn south(a) = concat([a[1:, :], a[:1, :]], axis=0)

fn feq(w, cx, cy, rho, ux, uy) {
    let cu = 3.0 * (cx * ux + cy * uy)
    w * rho * (1.0 + cu + 0.5 * cu * cu - 1.5 * (ux * ux + uy * uy))
}

let y = arange(n) as f32
let rho0 = ones([n, n])
let ux0 = broadcast_to((u0 * sin(2.0 * 3.141592653589793 * y / n))[:, newaxis], [n, n])
let uy0 = zeros([n, n])
let f0 = feq(4.0 / 9.0, 0.0, 0.0, rho0, ux0, uy0)
let f1 = feq(1.0 / 9.0, 1.0, 0.0, rho0, ux0, uy0)
let f2 = feq(1.0 / 9.0, 0.0, 1.0, rho0, ux0, uy0)
let f3 = feq(1.0 / 9.0, -1.0, 0.0, rho0, ux0, uy0)
let f4 = feq(1.0 / 9.0, 0.0, -1.0, rho0, ux0, uy0)
let f5 = feq(1.0 / 36.0, 1.0, 1.0, rho0, ux0, uy0)
let f6 = feq(1.0 / 36.0, -1.0, 1.0, rho0, ux0, uy0)
let f7 = feq(1.0 / 36.0, -1.0, -1.0, rho0, ux0, uy0)
let f8 = feq(1.0 / 36.0, 1.0, -1.0, rho0, ux0, uy0)

for t in 0..iters {
    let rho = f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8
    let ux = (f1 + f5 + f8 - f3 - f6 - f7) / rho
    let uy = (f2 + f5 + f6 - f4 - f7 - f8) / rho
    f0 = f0 - (f0 - feq(4.0 / 9.0, 0.0, 0.0, rho, ux, uy)) / tau
    f1 = east(f1 - (f1 - feq(1.0 / 9.0, 1.0, 0.0, rho, ux, uy)) / tau)
    f2 = north(f2 - (f2 - feq(1.0 / 9.0, 0.0, 1.0, rho, ux, uy)) / tau)
    f3 = west(f3 - (f3 - feq(1.0 / 9.0, -1.0, 0.0, rho, ux, uy)) / tau)
    f4 = south(f4 - (f4 - feq(1.0 / 9.0, 0.0, -1.0, rho, ux, uy)) / tau)
    f5 = north(east(f5 - (f5 - feq(1.0 / 36.0, 1.0, 1.0, rho, ux, uy)) / tau))
    f6 = north(west(f6 - (f6 - feq(1.0 / 36.0, -1.0, 1.0, rho, ux, uy)) / tau))
    f7 = south(west(f7 - (f7 - feq(1.0 / 36.0, -1.0, -1.0, rho, ux, uy)) / tau))
    f8 = south(east(f8 - (f8 - feq(1.0 / 36.0, 1.0, -1.0, rho, ux, uy)) / tau))
}
let ux = (f1 + f5 + f8 - f3 - f6 - f7) / (f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8)
print("amplitude:", max(abs(ux)))
