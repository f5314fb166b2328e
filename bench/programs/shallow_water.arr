# Whole program `shallow_water` (see bench/programs/programs.py): Moler's
# two-step Lax-Wendroff "waterwave" on an (n+2) x (n+2) f32 grid with
# reflecting walls, a Gaussian drop, `iters` steps (examples/shallow_water.arr
# at scale). Deterministic, so every implementation prints the same water.
let n = 4000  # scale
let iters = 100  # iters
let g = 9.8
let dt = 0.02
let dx = 1.0
let dy = 1.0

fn sq(a) = a * a

let H = ones([n + 2, n + 2])
let U = zeros([n + 2, n + 2])
let V = zeros([n + 2, n + 2])
let c = arange(n + 2) as f32
let w = n / 32.0
let d2 = sq(c[:, newaxis] - 0.375 * n) + sq(c[newaxis, :] - 0.625 * n)
H += 0.5 * exp(-d2 / (8.0 * w * w))

for t in 0..iters {
    H[:, 0] = H[:, 1]
    U[:, 0] = U[:, 1]
    V[:, 0] = -V[:, 1]
    H[:, n + 1] = H[:, n]
    U[:, n + 1] = U[:, n]
    V[:, n + 1] = -V[:, n]
    H[0, :] = H[1, :]
    U[0, :] = -U[1, :]
    V[0, :] = V[1, :]
    H[n + 1, :] = H[n, :]
    U[n + 1, :] = -U[n, :]
    V[n + 1, :] = V[n, :]

    let Hc = H[:, 1:-1]
    let Uc = U[:, 1:-1]
    let Vc = V[:, 1:-1]
    let fu = sq(Uc) / Hc + g / 2 * sq(Hc)
    let fuv = Uc * Vc / Hc
    let Hx = (Hc[1:, :] + Hc[:-1, :]) / 2 - dt / (2 * dx) * (Uc[1:, :] - Uc[:-1, :])
    let Ux = (Uc[1:, :] + Uc[:-1, :]) / 2 - dt / (2 * dx) * (fu[1:, :] - fu[:-1, :])
    let Vx = (Vc[1:, :] + Vc[:-1, :]) / 2 - dt / (2 * dx) * (fuv[1:, :] - fuv[:-1, :])

    let Hr = H[1:-1, :]
    let Ur = U[1:-1, :]
    let Vr = V[1:-1, :]
    let fv = sq(Vr) / Hr + g / 2 * sq(Hr)
    let fvu = Vr * Ur / Hr
    let Hy = (Hr[:, 1:] + Hr[:, :-1]) / 2 - dt / (2 * dy) * (Vr[:, 1:] - Vr[:, :-1])
    let Uy = (Ur[:, 1:] + Ur[:, :-1]) / 2 - dt / (2 * dy) * (fvu[:, 1:] - fvu[:, :-1])
    let Vy = (Vr[:, 1:] + Vr[:, :-1]) / 2 - dt / (2 * dy) * (fv[:, 1:] - fv[:, :-1])

    let gx = sq(Ux) / Hx + g / 2 * sq(Hx)
    let gxy = Ux * Vx / Hx
    let gy = sq(Vy) / Hy + g / 2 * sq(Hy)
    let gyx = Vy * Uy / Hy
    H[1:-1, 1:-1] -= dt / dx * (Ux[1:, :] - Ux[:-1, :]) + dt / dy * (Vy[:, 1:] - Vy[:, :-1])
    U[1:-1, 1:-1] -= dt / dx * (gx[1:, :] - gx[:-1, :]) + dt / dy * (gyx[:, 1:] - gyx[:, :-1])
    V[1:-1, 1:-1] -= dt / dx * (gxy[1:, :] - gxy[:-1, :]) + dt / dy * (gy[:, 1:] - gy[:, :-1])
}
print("water:", sum(H[1:-1, 1:-1]), "highest:", max(H))
