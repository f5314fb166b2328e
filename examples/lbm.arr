# Lattice Boltzmann D2Q9: a shear wave decaying in a periodic box.
#
# Nine populations f0..f8 on an ny x nx grid move with the lattice velocities
# c0 = (0, 0), c1 = (1, 0), c2 = (0, 1), c3 = (-1, 0), c4 = (0, -1),
# c5 = (1, 1), c6 = (-1, 1), c7 = (-1, -1), c8 = (1, -1) (streaming, with
# periodic wrap-around) and relax toward the local equilibrium with time
# constant tau (BGK collision). The initial flow ux = u0 sin(2 pi y / ny)
# decays as exp(-nu k^2 t), k = 2 pi / ny, with the lattice viscosity
# nu = (tau - 1/2) / 3. Prints the total mass (conserved), the remaining
# amplitude of ux, and its ratio to that decay law (close to 1). f64.

let nx = 32
let ny = 24
let steps = 300
let tau = 0.8
let u0 = 0.01
let pi = 3.141592653589793

# One step of streaming along x (+1: east, -1: west) or y (+1: north, -1: south), wrapping around.
fn east(a) = concat([a[:, -1:], a[:, :-1]], axis=1)
fn west(a) = concat([a[:, 1:], a[:, :1]], axis=1)
fn north(a) = concat([a[-1:, :], a[:-1, :]], axis=0)
fn south(a) = concat([a[1:, :], a[:1, :]], axis=0)

# The equilibrium population of weight w and velocity (cx, cy).
fn feq(w, cx, cy, rho, ux, uy) {
    let cu = 3.0 * (cx * ux + cy * uy)
    w * rho * (1.0 + cu + 0.5 * cu * cu - 1.5 * (ux * ux + uy * uy))
}

let y = arange(ny) as f64
let rho0 = ones([ny, nx], dtype=f64)
let ux0 = broadcast_to((u0 * sin(2.0 * pi * y / ny))[:, newaxis], [ny, nx])
let uy0 = zeros([ny, nx], dtype=f64)
let f0 = feq(4.0 / 9.0, 0.0, 0.0, rho0, ux0, uy0)
let f1 = feq(1.0 / 9.0, 1.0, 0.0, rho0, ux0, uy0)
let f2 = feq(1.0 / 9.0, 0.0, 1.0, rho0, ux0, uy0)
let f3 = feq(1.0 / 9.0, -1.0, 0.0, rho0, ux0, uy0)
let f4 = feq(1.0 / 9.0, 0.0, -1.0, rho0, ux0, uy0)
let f5 = feq(1.0 / 36.0, 1.0, 1.0, rho0, ux0, uy0)
let f6 = feq(1.0 / 36.0, -1.0, 1.0, rho0, ux0, uy0)
let f7 = feq(1.0 / 36.0, -1.0, -1.0, rho0, ux0, uy0)
let f8 = feq(1.0 / 36.0, 1.0, -1.0, rho0, ux0, uy0)

for t in 0..steps {
    let rho = f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8
    let ux = (f1 + f5 + f8 - f3 - f6 - f7) / rho
    let uy = (f2 + f5 + f6 - f4 - f7 - f8) / rho
    # collide, then stream
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

let rho = f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8
let ux = (f1 + f5 + f8 - f3 - f6 - f7) / rho
let nu = (tau - 0.5) / 3.0
let k = 2.0 * pi / ny
let amplitude = max(abs(ux))
print("total mass:", sum(rho))
print("amplitude:", amplitude)
print("amplitude / theory:", amplitude / (u0 * exp(-nu * k * k * steps)))
