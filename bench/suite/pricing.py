import numpy as np


def run(n, iters):
    nstrikes = 64
    s0 = 100.0
    r = 0.03
    alpha = 0.07
    sigma = 0.20
    expiry = 1.0
    dt = expiry / n
    u = np.exp(alpha * dt + sigma * np.sqrt(dt))
    d = np.exp(alpha * dt - sigma * np.sqrt(dt))
    rr = np.exp(r * dt)
    q = (rr - d) / (u - d)
    disc = 1.0 / rr
    strike = 80.0 + 40.0 * np.arange(nstrikes) / (nstrikes - 1)
    asc = np.arange(n + 1)
    desc = np.arange(n, -1, -1)
    st = s0 * u ** asc * d ** desc
    v = np.maximum(strike[:, None] - st[None, :], 0.0)
    european = v.copy()
    for i in range(n - 1, -1, -1):
        j = np.arange(i + 1)
        s = s0 * u ** j * d ** (i - j)
        v = disc * (q * v[:, 1:] + (1.0 - q) * v[:, :-1])
        v = np.maximum(v, strike[:, None] - s[None, :])
        european = disc * (q * european[:, 1:] + (1.0 - q) * european[:, :-1])
    return [v[0, 0], v[nstrikes - 1, 0], v.sum(), (v - european).sum(), v.shape[1]]
