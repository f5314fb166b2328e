# N-body (Benchpress `nbody_nice`): a galaxy of n planets and 2n asteroids with
# separate x, y, z position and velocity vectors. Planets pull on planets and on
# asteroids: pairwise differences by broadcasting, the diagonal's NaN (a body on
# itself) cleared through a flat view as Benchpress's fill_diagonal does, forces
# summed over axis 1. Bodies start on a deterministic spiral.
let n = 300  # scale
let iters = 10  # iters
let nb = 2 * n
let g = 6.673e-11
let dt = 1e12
let solarmass = 1.98892e30
let x_max = 1e18

fn fill_diag(a, val) {
    let dd = shape(a)[0]
    let flat = reshape(a, [dd * dd])
    flat[::dd + 1] = val
}

fn circlev(rx, ry, rz) {
    let r2 = sqrt(rx * rx + ry * ry + rz * rz)
    let numerator = 6.67e-11 * 1e6 * solarmass
    sqrt(numerator / r2)
}

fn calc_force(ax, ay, az, am, bx, by, bz, bm, same) {
    let dx = bx - ax[:, newaxis]
    let dy = by - ay[:, newaxis]
    let dz = bz - az[:, newaxis]
    let pm = bm * am[:, newaxis]
    let r = (dx ** 2 + dy ** 2 + dz ** 2) ** 0.5
    let fx = g * pm / r ** 2 * (dx / r)
    let fy = g * pm / r ** 2 * (dy / r)
    let fz = g * pm / r ** 2 * (dz / r)
    if same {
        fill_diag(fx, 0.0)
        fill_diag(fy, 0.0)
        fill_diag(fz, 0.0)
    }
    (sum(fx, axis=1) / am * dt, sum(fy, axis=1) / am * dt, sum(fz, axis=1) / am * dt)
}

fn spiral(count, turn, shift) {
    let i = arange(count) as f64
    let rad = x_max * (0.05 + i / count)
    let x = rad * cos(turn * i + shift)
    let y = rad * sin(turn * i + shift)
    let z = 0.01 * x_max * sin(0.7 * i + shift)
    (x, y, z)
}

let (px, py, pz) = spiral(n, 2.399, 0.0)
let pm = solarmass * (1.0 + 9.0 * (0.5 + 0.5 * sin(arange(n) * 1.3))) + 1e20
let magv = circlev(px, py, pz)
let absangle = arctan(abs(py / px))
let thetav = pi / 2 - absangle
let pvx = -1 * sign(py) * cos(thetav) * magv
let pvy = sign(px) * sin(thetav) * magv
let pvz = zeros([n], dtype=f64)
pm[0] = 1e6 * solarmass
px[0] = 0.0
py[0] = 0.0
pz[0] = 0.0
pvx[0] = 0.0
pvy[0] = 0.0

let (ax, ay, az) = spiral(nb, 1.618, 0.3)
let am = solarmass * (1.0 + 9.0 * (0.5 + 0.5 * cos(arange(nb) * 0.9))) + 1e14
let amagv = circlev(ax, ay, az)
let aabsangle = arctan(abs(ay / ax))
let athetav = pi / 2 - aabsangle
let avx = -1 * sign(ay) * cos(athetav) * amagv
let avy = sign(ax) * sin(athetav) * amagv
let avz = zeros([nb], dtype=f64)

for step in 0..iters {
    let (dvx, dvy, dvz) = calc_force(px, py, pz, pm, px, py, pz, pm, true)
    pvx = pvx + dvx
    pvy = pvy + dvy
    pvz = pvz + dvz
    let (bvx, bvy, bvz) = calc_force(ax, ay, az, am, px, py, pz, pm, false)
    avx = avx + bvx
    avy = avy + bvy
    avz = avz + bvz
    px = px + pvx * dt
    py = py + pvy * dt
    pz = pz + pvz * dt
    ax = ax + avx * dt
    ay = ay + avy * dt
    az = az + avz * dt
}
print(sum(px) / x_max)
print(sum(py) / x_max)
print(sum(abs(pz)) / x_max)
print(sum(ax) / x_max)
print(sum(ay) / x_max)
print(sum(sqrt(pvx ** 2 + pvy ** 2 + pvz ** 2)))
print(sum(sqrt(avx ** 2 + avy ** 2 + avz ** 2)))
