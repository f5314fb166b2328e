# expect: E0410
let a = load("no/such/file.npy")
