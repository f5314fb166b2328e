# expect: E0221
print("before")
let c = cross(ones([4]), ones([4]))
