import numpy as np


def run(n, iters):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    cells = ((i * 1103 + j * 917 + i * j * 31) % 97 < 35).astype(np.int64)

    state = np.zeros((n + 2, n + 2), dtype=np.int64)
    state[1:-1, 1:-1] = cells
    for _ in range(iters):
        state[0, :] = state[-2, :]
        state[-1, :] = state[1, :]
        state[:, 0] = state[:, -2]
        state[:, -1] = state[:, 1]
        live = state[:-2, :-2] + state[:-2, 1:-1] + state[:-2, 2:] + \
            state[1:-1, :-2] + state[1:-1, 2:] + \
            state[2:, :-2] + state[2:, 1:-1] + state[2:, 2:]
        alive = state[1:-1, 1:-1] == 1
        state[1:-1, 1:-1] = (live == 3) | (alive & (live == 2))
    out = [state[1:-1, 1:-1].sum(), (state[1:-1, 1:-1] * i).sum()]

    g = cells.copy()
    for _ in range(iters):
        live = np.zeros((n, n), dtype=np.int64)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if dy != 0 or dx != 0:
                    live += np.roll(g, (dy, dx), axis=(0, 1))
        g = np.logical_or(live == 3, np.logical_and(g, live == 2)).astype(np.int64)
    return out + [g.sum(), (g * i).sum(), np.abs(g - state[1:-1, 1:-1]).sum()]
