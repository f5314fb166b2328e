import numpy as np, time, numba
n=40000
a=(np.arange(n,dtype=np.float32)/n+1).astype(np.float32)
b=(np.arange(n,dtype=np.float32)/n*2+1).astype(np.float32)
c=(np.arange(n,dtype=np.float32)/n*3+1).astype(np.float32)
def f(a,b,c): return ((a + b) / c - np.float32(0.5) * (a - b)) * ((b + c) / a - np.float32(0.25) * (c - a)) / ((a * b) / c + np.float32(2.0) * (b * c)) + ((c + a) / b - np.float32(0.5) * (b - c))
@numba.njit(parallel=True, fastmath=False)
def g(a,b,c,y):
    for i in numba.prange(a.shape[0]):
        y[i]=((a[i] + b[i]) / c[i] - np.float32(0.5) * (a[i] - b[i])) * ((b[i] + c[i]) / a[i] - np.float32(0.25) * (c[i] - a[i])) / ((a[i] * b[i]) / c[i] + np.float32(2.0) * (b[i] * c[i])) + ((c[i] + a[i]) / b[i] - np.float32(0.5) * (b[i] - c[i]))
y=np.zeros(n,np.float32); g(a,b,c,y)
for name,fn in [("numpy",lambda: f(a,b,c)),("numba",lambda: g(a,b,c,y))]:
    fn(); t=time.perf_counter(); 
    for _ in range(2000): fn()
    print(name,(time.perf_counter()-t)/2000*1e6,"us/iter")
