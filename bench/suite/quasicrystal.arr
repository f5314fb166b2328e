# Quasicrystal image (Benchpress `quasicrystal`): k plane waves in log-polar
# coordinates over an n x n grid, their cosines summed for each of a few phases.
let n = 512  # scale
let iters = 10  # iters
let k = 7
let stripes = 37
let phases = arange(0, 2 * pi, 2 * pi / iters)
let image = empty([n, n], dtype=f64)
let d = arange(-n / 2, n / 2, dtype=f64)
let (xv, yv) = meshgrid(d, d)
let theta = arctan2(yv, xv)
let r = log(sqrt(xv * xv + yv * yv))
r[isinf(r) == true] = 0
let tcos = theta * cos(arange(0, pi, pi / k))[:, newaxis, newaxis]
let rsin = r * sin(arange(0, pi, pi / k))[:, newaxis, newaxis]
let inner = (tcos - rsin) * stripes
let cinner = cos(inner)
let sinner = sin(inner)
let total = 0.0
for phase in phases {
    image[:] = sum(cinner * cos(phase) - sinner * sin(phase), axis=0) + k
    total = total + sum(image)
}
print(sum(image))
print(total)
print(image[n // 4, n // 3])
print(max(image))
print(sum(abs(image - k)))
