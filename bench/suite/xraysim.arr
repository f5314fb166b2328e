# Simplified X-ray simulation (Benchpress `xraysim`): an n^3 voxel scene of
# materials (air, a water sphere, a bone box), a detector of (2n)^2 pixels, and
# a few point sources. Each source's energy gives every material its
# attenuation; each ray from the source to a pixel is sampled at 2n points
# inside the scene, the attenuation gathered by integer voxel indices, and
# the pixel records intensity * area * exp(-sum).
let n = 64  # scale
let iters = 3  # iters
let nd = 2 * n
let ns = 2 * n
let invsqr = 1.0 / (pi * 4)

# scene: voxel centres, material ids by index
let c = (arange(n) + 0.5) / n
let gx = c[:, newaxis, newaxis]
let gy = c[newaxis, :, newaxis]
let gz = c[newaxis, newaxis, :]
let mat = zeros([n, n, n], dtype=i64)
mat[(gx - 0.5) ** 2 + (gy - 0.5) ** 2 + (gz - 0.5) ** 2 < 0.16] = 1
mat[(abs(gx - 0.55) < 0.12) and (abs(gy - 0.45) < 0.2) and (abs(gz - 0.5) < 0.3)] = 2
let mus = [0.01, 2.0, 5.0]

# detector at z = 2: pixel centres and the pixels' area vector
let pc = (arange(nd) + 0.5) / nd * 1.5 - 0.25
let (px, py) = meshgrid(pc, pc)
let pxf = ravel(px)
let pyf = ravel(py)
let pzf = full_like(pxf, 2.0)
let areavec = array([0.0, 0.0, (1.5 / nd) ** 2])

let result = zeros([nd, nd], dtype=f64)
let lastatt = 0.0
for s in 0..iters {
    let sx = 0.5 + 0.1 * s
    let sy = 0.5 - 0.05 * s
    let sz = -1.0
    let power = 1.0 + s
    let energy = 1.0 + 0.5 * s
    # attenuation map for this source's energy
    let att = zeros([n, n, n], dtype=f64)
    for mid in 0..3 {
        att = att + (mat == mid) * (mus[mid] / sqrt(energy))
    }
    # ray geometry
    let dx = pxf - sx
    let dy = pyf - sy
    let dz = pzf - sz
    let length = sqrt(dx ** 2 + dy ** 2 + dz ** 2)
    let udirs = stack([dx, dy, dz], axis=1) / length[:, newaxis]
    # the ray crosses the scene between z = 0 and z = 1
    let t0 = (0.0 - sz) / dz
    let t1 = (1.0 - sz) / dz
    let tk = t0[:, newaxis] + (t1 - t0)[:, newaxis] * ((arange(ns) + 0.5) / ns)[newaxis, :]
    let xs = sx + tk * dx[:, newaxis]
    let ys = sy + tk * dy[:, newaxis]
    let zs = sz + tk * dz[:, newaxis]
    let ix = floor(xs * n) as i64
    let iy = floor(ys * n) as i64
    let iz = floor(zs * n) as i64
    let inside = (ix >= 0) and (ix < n) and (iy >= 0) and (iy < n) and (iz >= 0) and (iz < n)
    let samples = att[clip(ix, 0, n - 1), clip(iy, 0, n - 1), clip(iz, 0, n - 1)]
    let seglen = (t1 - t0) * length / ns
    let dtect = reshape(sum(where(inside, samples, 0.0), axis=1) * seglen, [nd, nd])
    let intensity = reshape(power * invsqr / length, [nd, nd])
    let area = reshape(udirs @ reshape(areavec, [3, 1]), [nd, nd])
    result = result + intensity * area * exp(-dtect)
    lastatt = sum(dtect)
}
print(sum(result))
print(result[nd // 2, nd // 2])
print(min(result))
print(max(result))
print(lastatt)
print(sum(mat))
