# expect: E0303
# A list of strings is a tuple: it has no size as an array (Python: len(names)).
let names = ["heat", "wave"]
print(size(names))
