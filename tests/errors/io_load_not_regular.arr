# expect: E0410
# A device never ends; load reads regular files only.
let z = load("/dev/zero")
