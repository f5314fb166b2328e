# Whole program `nbody` (see bench/programs/programs.py): n bodies, `iters`
# steps of semi-implicit Euler with all n x n pairwise forces, f32.
fn step(x, y, z, vx, vy, vz, m, dt, soft) {
    let dx = x[newaxis, :] - x[:, newaxis]
    let dy = y[newaxis, :] - y[:, newaxis]
    let dz = z[newaxis, :] - z[:, newaxis]
    let r2 = dx * dx + dy * dy + dz * dz + soft
    let w = m[newaxis, :] / (r2 * sqrt(r2))
    let vx2 = vx + dt * sum(dx * w, axis=1)
    let vy2 = vy + dt * sum(dy * w, axis=1)
    let vz2 = vz + dt * sum(dz * w, axis=1)
    (x + dt * vx2, y + dt * vy2, z + dt * vz2, vx2, vy2, vz2)
}

let n = 4096  # scale
let iters = 10  # iters
let x = rand([n])
let y = rand([n])
let z = rand([n])
let vx = 0.1 * (rand([n]) - 0.5)
let vy = 0.1 * (rand([n]) - 0.5)
let vz = 0.1 * (rand([n]) - 0.5)
let m = (0.5 + rand([n])) / n
for t in 0..iters {
    let (x1, y1, z1, vx1, vy1, vz1) = step(x, y, z, vx, vy, vz, m, 0.001, 0.01)
    x = x1; y = y1; z = z1
    vx = vx1; vy = vy1; vz = vz1
}
print("kinetic energy:", 0.5 * sum(m * (vx * vx + vy * vy + vz * vz)))
