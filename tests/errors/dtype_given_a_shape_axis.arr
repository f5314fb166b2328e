# expect: E0302
print("before")
let noise = rand(3, 4)
print(noise)
