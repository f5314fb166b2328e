"""NumPy twin of bench/proto/force_sum.arr: min and median of 7 runs of the 3000-iteration loop."""
import numpy as np, time
n=204
rng=np.random.default_rng(0)
x,y,z,m=[rng.random(n,dtype=np.float32) for _ in range(4)]
def f():
    dx = x[None,:]-x[:,None]; dy = y[None,:]-y[:,None]; dz = z[None,:]-z[:,None]
    r2 = dx*dx+dy*dy+dz*dz+np.float32(0.01)
    w = m[None,:]/(r2*np.sqrt(r2))
    return w.sum()
for _ in range(50): f()
ts=[]
for _ in range(7):
    t=time.perf_counter()
    for _ in range(3000): f()
    ts.append((time.perf_counter()-t)*1e3)
print("numpy 3000 iters ms: min %.1f median %.1f" % (min(ts), sorted(ts)[3]))
