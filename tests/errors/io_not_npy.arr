# expect: E0411
let a = load("Cargo.toml")
