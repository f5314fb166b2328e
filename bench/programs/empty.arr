# The baseline of a whole-program time: start-up (backend, standard library) and exit.
let n = 1
