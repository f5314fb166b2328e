# Conway's game of life (Benchpress `gameoflife`-style), two ways on one torus:
# 1) a padded int grid whose border is refreshed from the opposite edges each
#    step, the 8 neighbour views summed, the rule with logical ops;
# 2) an unpadded grid, the neighbour count summed from `roll`s (wraparound).
# Both start from the same cells, so their checksums must match.
let n = 800  # scale
let iters = 10  # iters
let i = arange(n)[:, newaxis]
let j = arange(n)[newaxis, :]
let cells = ((i * 1103 + j * 917 + i * j * 31) % 97 < 35) as i64

# 1) padded
let state = zeros([n + 2, n + 2], dtype=i64)
state[1:-1, 1:-1] = cells
for k in 0..iters {
    state[0, :] = state[-2, :]
    state[-1, :] = state[1, :]
    state[:, 0] = state[:, -2]
    state[:, -1] = state[:, 1]
    let live = state[:-2, :-2] + state[:-2, 1:-1] + state[:-2, 2:] +
        state[1:-1, :-2] + state[1:-1, 2:] +
        state[2:, :-2] + state[2:, 1:-1] + state[2:, 2:]
    let alive = state[1:-1, 1:-1] == 1
    state[1:-1, 1:-1] = (live == 3) or (alive and (live == 2))
}
print(sum(state[1:-1, 1:-1]))
print(sum(state[1:-1, 1:-1] * i))

# 2) wraparound with roll
let g = copy(cells)
for k in 0..iters {
    let live = zeros([n, n], dtype=i64)
    for dy in (-1, 0, 1) {
        for dx in (-1, 0, 1) {
            if dy != 0 or dx != 0 {
                live += roll(g, (dy, dx), axis=(0, 1))
            }
        }
    }
    g = logical_or(live == 3, logical_and(g, live == 2)) as i64
}
print(sum(g))
print(sum(g * i))
print(sum(abs(g - state[1:-1, 1:-1])))
