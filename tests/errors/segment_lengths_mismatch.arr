# expect: E0211
let values = arange(10) as f32
let lengths = [3, 4, 2]
let s = segsum(values, lengths)
