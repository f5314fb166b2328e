# expect: E0100 E0100
# Both unknown names are reported, not only the first.
let width = 3
let area = width * heigth
let volume = area * depht
