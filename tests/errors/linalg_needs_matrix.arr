# expect: E0201
print(qr(ones([3])))
