import numpy as np


def run(n, iters):
    nb = 2 * n
    G = 6.673e-11
    dt = 1e12
    solarmass = 1.98892e30
    x_max = 1e18

    def fill_diagonal(a, val):
        d, _ = a.shape
        a.shape = d * d
        a[::d + 1] = val
        a.shape = (d, d)

    def circlev(rx, ry, rz):
        r2 = np.sqrt(rx * rx + ry * ry + rz * rz)
        numerator = 6.67e-11 * 1e6 * solarmass
        return np.sqrt(numerator / r2)

    def calc_force(a, b):
        dx = b['x'] - a['x'][:, None]
        dy = b['y'] - a['y'][:, None]
        dz = b['z'] - a['z'][:, None]
        pm = b['m'] * a['m'][:, None]
        r = (dx ** 2 + dy ** 2 + dz ** 2) ** 0.5
        Fx = G * pm / r ** 2 * (dx / r)
        Fy = G * pm / r ** 2 * (dy / r)
        Fz = G * pm / r ** 2 * (dz / r)
        if a is b:
            fill_diagonal(Fx, 0.)
            fill_diagonal(Fy, 0.)
            fill_diagonal(Fz, 0.)
        a['vx'] += np.add.reduce(Fx, axis=1) / a['m'] * dt
        a['vy'] += np.add.reduce(Fy, axis=1) / a['m'] * dt
        a['vz'] += np.add.reduce(Fz, axis=1) / a['m'] * dt

    def spiral(count, turn, shift):
        i = np.arange(count).astype(np.float64)
        rad = x_max * (0.05 + i / count)
        return (rad * np.cos(turn * i + shift), rad * np.sin(turn * i + shift),
                0.01 * x_max * np.sin(0.7 * i + shift))

    def body(x, y, z, m):
        s = {'x': x, 'y': y, 'z': z, 'm': m}
        magv = circlev(x, y, z)
        absangle = np.arctan(np.absolute(y / x))
        thetav = np.pi / 2 - absangle
        s['vx'] = -1 * np.sign(y) * np.cos(thetav) * magv
        s['vy'] = np.sign(x) * np.sin(thetav) * magv
        s['vz'] = np.zeros(len(x))
        return s

    x, y, z = spiral(n, 2.399, 0.0)
    ss = body(x, y, z, solarmass * (1.0 + 9.0 * (0.5 + 0.5 * np.sin(np.arange(n) * 1.3))) + 1e20)
    ss['m'][0] = 1e6 * solarmass
    for key in ('x', 'y', 'z', 'vx', 'vy'):
        ss[key][0] = 0.0
    x, y, z = spiral(nb, 1.618, 0.3)
    ast = body(x, y, z, solarmass * (1.0 + 9.0 * (0.5 + 0.5 * np.cos(np.arange(nb) * 0.9))) + 1e14)

    with np.errstate(divide='ignore', invalid='ignore'):
        for _ in range(iters):
            calc_force(ss, ss)
            calc_force(ast, ss)
            for s in (ss, ast):
                s['x'] += s['vx'] * dt
                s['y'] += s['vy'] * dt
                s['z'] += s['vz'] * dt
    return [ss['x'].sum() / x_max, ss['y'].sum() / x_max, np.abs(ss['z']).sum() / x_max,
            ast['x'].sum() / x_max, ast['y'].sum() / x_max,
            np.sqrt(ss['vx'] ** 2 + ss['vy'] ** 2 + ss['vz'] ** 2).sum(),
            np.sqrt(ast['vx'] ** 2 + ast['vy'] ** 2 + ast['vz'] ** 2).sum()]
