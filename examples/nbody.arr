# Gravitational n-body simulation.
#
# 64 bodies with random positions in the unit cube, small random velocities
# and random masses (total about 1, G = 1) move for 40 steps of semi-implicit
# Euler: velocities first, then positions with the new velocities. Every
# pairwise separation comes from broadcasting a row against a column, and the
# softened accelerations are summed along each row. Prints the kinetic energy
# at the start and at the end, and the final centre of mass.

# One time step. dx[i, j] = x[j] - x[i] points from body i to body j; a body
# exerts no pull on itself because its dx, dy, dz are zero.
fn step(x, y, z, vx, vy, vz, m, dt = 0.01, soft = 0.01) {
    let dx = x[newaxis, :] - x[:, newaxis]
    let dy = y[newaxis, :] - y[:, newaxis]
    let dz = z[newaxis, :] - z[:, newaxis]
    let r2 = dx * dx + dy * dy + dz * dz + soft
    let w = m[newaxis, :] / (r2 * sqrt(r2))    # m[j] / |r_ij|^3
    let vx2 = vx + dt * sum(dx * w, axis=1)
    let vy2 = vy + dt * sum(dy * w, axis=1)
    let vz2 = vz + dt * sum(dz * w, axis=1)
    (x + dt * vx2, y + dt * vy2, z + dt * vz2, vx2, vy2, vz2)
}

fn kinetic(vx, vy, vz, m) = 0.5 * sum(m * (vx * vx + vy * vy + vz * vz))

seed(2024)
let n = 64
let x = rand([n])
let y = rand([n])
let z = rand([n])
let vx = 0.1 * (rand([n]) - 0.5)
let vy = 0.1 * (rand([n]) - 0.5)
let vz = 0.1 * (rand([n]) - 0.5)
let m = (0.5 + rand([n])) / 64.0

print("kinetic energy at the start:", kinetic(vx, vy, vz, m))

for t in 0..40 {
    let (x1, y1, z1, vx1, vy1, vz1) = step(x, y, z, vx, vy, vz, m, dt=0.01)
    x = x1; y = y1; z = z1
    vx = vx1; vy = vy1; vz = vz1
}

print("kinetic energy at the end:", kinetic(vx, vy, vz, m))
let total = sum(m)
print("centre of mass:", sum(m * x) / total, sum(m * y) / total, sum(m * z) / total)
