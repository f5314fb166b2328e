# Conway's Game of Life on a 32x32 board with a dead border.
#
# The board is stored with one extra row and column of dead cells on each
# side, so a cell's live neighbours are the sum of the eight shifted views of
# the padded board. It starts with a glider in the top-left corner, heading
# down and right into a random soup in the bottom-right quarter. Prints the
# generation and the number of live cells at the start, every 10
# generations, and after the last one.

fn neighbours(b) = (
    b[:-2, :-2] + b[:-2, 1:-1] + b[:-2, 2:]
    + b[1:-1, :-2] + b[1:-1, 2:]
    + b[2:, :-2] + b[2:, 1:-1] + b[2:, 2:]
)

let n = 32
let generations = 75
let board = zeros([n + 2, n + 2], dtype=i32)

seed(5)
board[17:33, 17:33] = (rand([16, 16]) < 0.35) as i32

# the glider
board[2, 3] = 1
board[3, 4] = 1
board[4, 2:5] = 1

print("generation", 0, "live cells:", sum(board))
for gen in 1..(generations + 1) {
    let count = neighbours(board)
    # born with exactly 3 neighbours, survives with 2 or 3
    board[1:-1, 1:-1] = where(count == 3, 1, where(count == 2, board[1:-1, 1:-1], 0))
    if gen % 10 == 0 {
        print("generation", gen, "live cells:", sum(board))
    }
}
print("generation", generations, "live cells:", sum(board))
