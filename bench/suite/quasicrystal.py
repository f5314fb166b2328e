import numpy as np


def run(n, iters):
    k = 7
    stripes = 37
    phases = np.arange(0, 2 * np.pi, 2 * np.pi / iters)
    image = np.empty((n, n), dtype=np.float64)
    d = np.arange(-n / 2, n / 2, dtype=np.float64)
    xv, yv = np.meshgrid(d, d)
    theta = np.arctan2(yv, xv)
    with np.errstate(divide="ignore"):
        r = np.log(np.sqrt(xv * xv + yv * yv))
    r[np.isinf(r) == True] = 0  # noqa: E712 (as Benchpress writes it)
    tcos = theta * np.cos(np.arange(0, np.pi, np.pi / k))[:, np.newaxis, np.newaxis]
    rsin = r * np.sin(np.arange(0, np.pi, np.pi / k))[:, np.newaxis, np.newaxis]
    inner = (tcos - rsin) * stripes
    cinner = np.cos(inner)
    sinner = np.sin(inner)
    total = 0.0
    for phase in phases:
        image[:] = np.sum(cinner * np.cos(phase) - sinner * np.sin(phase), axis=0) + k
        total = total + image.sum()
    return [image.sum(), total, image[n // 4, n // 3], image.max(), np.abs(image - k).sum()]
