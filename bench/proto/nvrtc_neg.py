# Does NVRTC keep the i16 wrap of a negation computed in i64? (CuPy compiles with NVRTC.)
# On an H100 (driver 580, session 48) it did not: the first three rows gave 32768 for -(-32768).
import cupy as cp
src = r'''
typedef long long i64;
extern "C" __global__ void k(const short* x, i64* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const short s0 = x[i];
    const short a = (-((i64)(s0)));
    const short b = (short)(0ull - (unsigned long long)(i64)(s0));
    const short c = (((i64)(s0)) * ((i64)(-1)));
    const short d = (((i64)(s0)) * ((i64)(s0)));
    out[4 * i + 0] = (i64)a;
    out[4 * i + 1] = (i64)b;
    out[4 * i + 2] = (i64)c;
    out[4 * i + 3] = (i64)d;
}
'''
k = cp.RawKernel(src, "k")
x = cp.array([-32768, -1, 0, 1, 32767, 255, -256], dtype=cp.int16)
out = cp.zeros(4 * x.size, dtype=cp.int64)
k((1,), (64,), (x, out, cp.int32(x.size)))
print("x", x.get().tolist())
print("neg i64->short, unsigned neg, *-1, square:", out.get().reshape(-1, 4).T.tolist())

# the form the codegen now emits (`codegen::wrap_narrow`): the wrap done by bit operations in i64
src2 = src.replace("const short a = (-((i64)(s0)));",
                   "const short a = ((((-((i64)(s0))) & 0xFFFF) ^ 0x8000) - 0x8000);")
k2 = cp.RawKernel(src2, "k")
k2((1,), (64,), (x, out, cp.int32(x.size)))
print("wrapped by bit operations:", out.get().reshape(-1, 4).T.tolist()[0])
