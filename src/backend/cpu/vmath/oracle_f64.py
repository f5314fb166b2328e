import mpmath as mp, random, struct
mp.mp.dps = 40
random.seed(11)
U = random.uniform
pts = {
 "exp": [U(-745, 709) for _ in range(300)] + [U(-1, 1) for _ in range(100)] + [U(-745.1, -708) for _ in range(50)],
 "log": [float(mp.exp(U(-744, 709))) for _ in range(300)] + [U(0.5, 2) for _ in range(100)] + [U(1e-320, 1e-308) for _ in range(30)],
 "sin": [U(-10, 10) for _ in range(200)] + [U(-5e5, 5e5) for _ in range(100)] + [float(n*mp.pi/2) for n in range(1, 400, 3)],
 "tanh": [U(-1, 1) for _ in range(200)] + [U(-25, 25) for _ in range(200)],
 "erf": [U(-1, 1) for _ in range(150)] + [U(-7, 7) for _ in range(300)],
}
pts["cos"] = pts["sin"]; pts["tan"] = pts["sin"]
f = {"exp": mp.exp, "log": mp.log, "sin": mp.sin, "cos": mp.cos, "tan": mp.tan, "tanh": mp.tanh, "erf": mp.erf}
print("# f64 oracle: function, bits of x, bits of f(x) rounded to nearest from 40-digit mpmath (made by oracle_f64.py)")
for name, xs in pts.items():
    for x in xs:
        y = f[name](mp.mpf(x))
        print(name, struct.unpack("<Q", struct.pack("<d", float(x)))[0], struct.unpack("<Q", struct.pack("<d", float(y)))[0])
