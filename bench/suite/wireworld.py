import numpy as np


def run(n, iters):
    EMPTY, HEAD, TAIL, CONDUCTOR = 0, 1, 2, 3
    r = np.arange(n + 2)[:, None]
    c = np.arange(n + 2)[None, :]
    wire = (r % 6 == 0) | (c % 8 == 0) | ((r + c) % 11 == 0)
    world = np.where(wire, CONDUCTOR, EMPTY).astype(np.int32)
    world = np.where(wire & ((r * 7 + c * 3) % 41 == 0), HEAD, world).astype(np.int32)
    world[0, :] = EMPTY
    world[-1, :] = EMPTY
    world[:, 0] = EMPTY
    world[:, -1] = EMPTY
    for _ in range(iters):
        heads = (world == HEAD).astype(np.int32)
        count = heads[:-2, :-2] + heads[:-2, 1:-1] + heads[:-2, 2:] + \
            heads[1:-1, :-2] + heads[1:-1, 2:] + \
            heads[2:, :-2] + heads[2:, 1:-1] + heads[2:, 2:]
        inner = world[1:-1, 1:-1]
        becomes_head = (inner == CONDUCTOR) & ((count == 1) | (count == 2))
        world[1:-1, 1:-1] = np.where(inner == HEAD, TAIL,
                                     np.where(inner == TAIL, CONDUCTOR,
                                              np.where(becomes_head, HEAD, inner)))
    return [np.sum(world == HEAD), np.sum(world == TAIL), world.sum(), world[n // 2, :].sum()]
