import numpy as np


def run(n, iters):
    nd = 2 * n
    ns = 2 * n
    invsqr = 1.0 / (np.pi * 4)

    c = (np.arange(n) + 0.5) / n
    gx = c[:, np.newaxis, np.newaxis]
    gy = c[np.newaxis, :, np.newaxis]
    gz = c[np.newaxis, np.newaxis, :]
    mat = np.zeros((n, n, n), dtype=np.int64)
    mat[(gx - 0.5) ** 2 + (gy - 0.5) ** 2 + (gz - 0.5) ** 2 < 0.16] = 1
    mat[(np.abs(gx - 0.55) < 0.12) & (np.abs(gy - 0.45) < 0.2) & (np.abs(gz - 0.5) < 0.3)] = 2
    mus = np.array([0.01, 2.0, 5.0])

    pc = (np.arange(nd) + 0.5) / nd * 1.5 - 0.25
    px, py = np.meshgrid(pc, pc)
    pxf = px.ravel()
    pyf = py.ravel()
    pzf = np.full_like(pxf, 2.0)
    areavec = np.array([0.0, 0.0, (1.5 / nd) ** 2])

    result = np.zeros((nd, nd))
    lastatt = 0.0
    for s in range(iters):
        sx = 0.5 + 0.1 * s
        sy = 0.5 - 0.05 * s
        sz = -1.0
        power = 1.0 + s
        energy = 1.0 + 0.5 * s
        att = np.zeros((n, n, n))
        for mid in range(3):
            att += (mat == mid) * (mus[mid] / np.sqrt(energy))
        dx = pxf - sx
        dy = pyf - sy
        dz = pzf - sz
        length = np.sqrt(dx ** 2 + dy ** 2 + dz ** 2)
        udirs = np.stack([dx, dy, dz], axis=1) / length[:, np.newaxis]
        t0 = (0.0 - sz) / dz
        t1 = (1.0 - sz) / dz
        tk = t0[:, np.newaxis] + (t1 - t0)[:, np.newaxis] * ((np.arange(ns) + 0.5) / ns)[np.newaxis, :]
        xs = sx + tk * dx[:, np.newaxis]
        ys = sy + tk * dy[:, np.newaxis]
        zs = sz + tk * dz[:, np.newaxis]
        ix = np.floor(xs * n).astype(np.int64)
        iy = np.floor(ys * n).astype(np.int64)
        iz = np.floor(zs * n).astype(np.int64)
        inside = (ix >= 0) & (ix < n) & (iy >= 0) & (iy < n) & (iz >= 0) & (iz < n)
        samples = att[np.clip(ix, 0, n - 1), np.clip(iy, 0, n - 1), np.clip(iz, 0, n - 1)]
        seglen = (t1 - t0) * length / ns
        dtect = (np.where(inside, samples, 0.0).sum(axis=1) * seglen).reshape(nd, nd)
        intensity = (power * invsqr / length).reshape(nd, nd)
        area = np.dot(udirs, areavec.reshape(3, 1)).reshape(nd, nd)
        result += intensity * area * np.exp(-dtect)
        lastatt = dtect.sum()
    return [result.sum(), result[nd // 2, nd // 2], result.min(), result.max(), lastatt, mat.sum()]
