# Wireworld (Benchpress `wireworld`): a cellular automaton on a padded int grid.
# 0 empty, 1 electron head, 2 electron tail, 3 conductor. A conductor becomes a
# head when one or two of its eight neighbours are heads: the count is the sum
# of the 8 shifted views of the head mask; the rules are nested `where`s.
let n = 1000  # scale
let iters = 20  # iters
let EMPTY = 0
let HEAD = 1
let TAIL = 2
let CONDUCTOR = 3
let r = arange(n + 2)[:, newaxis]
let c = arange(n + 2)[newaxis, :]
let wire = (r % 6 == 0) or (c % 8 == 0) or ((r + c) % 11 == 0)
let world = where(wire, CONDUCTOR, EMPTY) as i32
world = where(wire and ((r * 7 + c * 3) % 41 == 0), HEAD, world) as i32
world[0, :] = EMPTY
world[-1, :] = EMPTY
world[:, 0] = EMPTY
world[:, -1] = EMPTY
for k in 0..iters {
    let heads = (world == HEAD) as i32
    let count = heads[:-2, :-2] + heads[:-2, 1:-1] + heads[:-2, 2:] +
        heads[1:-1, :-2] + heads[1:-1, 2:] +
        heads[2:, :-2] + heads[2:, 1:-1] + heads[2:, 2:]
    let inner = world[1:-1, 1:-1]
    let becomes_head = (inner == CONDUCTOR) and ((count == 1) or (count == 2))
    world[1:-1, 1:-1] = where(inner == HEAD, TAIL,
        where(inner == TAIL, CONDUCTOR,
        where(becomes_head, HEAD, inner)))
}
print(sum(world == HEAD))
print(sum(world == TAIL))
print(sum(world))
print(sum(world[n // 2, :]))
