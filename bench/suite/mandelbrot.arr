# Mandelbrot escape time (Benchpress `mandelbrot`) on an n x n grid, complex
# numbers as real and imaginary arrays; diverged points are pinned with `where`.
let n = 400  # scale
let iters = 60  # iters
let x = linspace(-2.0, 1.0, n, dtype=f64)
let y = linspace(-1.5, 1.5, n, dtype=f64)
let cr = x[newaxis, :] + zeros([n, 1], dtype=f64)
let ci = y[:, newaxis] + zeros([1, n], dtype=f64)
let zr = zeros([n, n], dtype=f64)
let zi = zeros([n, n], dtype=f64)
let divtime = full([n, n], iters, dtype=i64)
for k in 0..iters {
    let zr2 = zr * zr - zi * zi + cr
    zi = 2.0 * zr * zi + ci
    zr = zr2
    let diverged = zr * zr + zi * zi > 4.0
    let div_now = diverged and divtime == iters
    divtime = where(div_now, k, divtime)
    zr = where(diverged, 2.0, zr)
    zi = where(diverged, 0.0, zi)
}
print(sum(divtime))
print(sum(divtime == iters))
print(sum(zr))
print(sum(zi * zi))
