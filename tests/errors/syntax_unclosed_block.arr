# expect: E0002
for i in 0..3 {
    print(i)
