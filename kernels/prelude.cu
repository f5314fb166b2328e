// Arr: helpers shared by every generated kernel. The codegen (src/backend/cuda/codegen.rs)
// prepends this to each module; semantics follow the CPU backend (src/backend/cpu).

typedef long long i64;
typedef unsigned long long u64;

template <class T, int V> struct __align__(sizeof(T) * V) Vec { T x[V]; };

template <class T> __device__ __forceinline__ T arr_shfl_xor(T v, int lane_mask, int width) {
    return __shfl_xor_sync(0xffffffffu, v, lane_mask, width);
}
template <> __device__ __forceinline__ bool arr_shfl_xor<bool>(bool v, int lane_mask, int width) {
    return __shfl_xor_sync(0xffffffffu, (int)v, lane_mask, width) != 0;
}

// NaN-propagating min/max (np.minimum / np.maximum).
template <class T> __device__ __forceinline__ T arr_min(T a, T b) { return (a != a || a < b) ? a : b; }
template <class T> __device__ __forceinline__ T arr_max(T a, T b) { return (a != a || a > b) ? a : b; }

// Python modulo: the result takes the sign of the divisor.
__device__ __forceinline__ double arr_mod(double a, double b) {
    double r = fmod(a, b);
    if (r != 0.0 && ((r < 0.0) != (b < 0.0))) r += b;
    return r;
}
__device__ __forceinline__ float arr_mod(float a, float b) {
    float r = fmodf(a, b);
    if (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) r += b;
    return r;
}
// Set by integer modulo by zero (1) or a negative integer power (2); the host
// reads it after kernels that use them and reports the CPU backend's error.
__device__ int arr_error;

template <class T> __device__ __forceinline__ T arr_imod(T a, T b) {
    if (b == 0) {
        arr_error = 1;
        return 0;
    }
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
template <class T> __device__ __forceinline__ T arr_ipow(T a, T b) {
    if (b < 0) {
        arr_error = 2;
        return 0;
    }
    T r = 1;
    while (b) { if (b & 1) r *= a; a *= a; b >>= 1; }
    return r;
}
template <class T> __device__ __forceinline__ T arr_sign(T a) { return (T)((a > 0) - (a < 0)); }
__device__ __forceinline__ float arr_sign(float a) { return a != a ? a : (float)((a > 0.0f) - (a < 0.0f)); }
__device__ __forceinline__ double arr_sign(double a) { return a != a ? a : (double)((a > 0.0) - (a < 0.0)); }

// Float to integer as Rust's `as`: saturating, NaN to 0.
template <class I> __device__ __forceinline__ I arr_ftoi(double x, double lo, double hi) {
    if (x != x) return 0;
    if (x <= lo) return (I)lo;
    if (x >= hi) return sizeof(I) == 8 ? (I)0x7fffffffffffffffLL : (I)0x7fffffff;
    return (I)x;
}
__device__ __forceinline__ int arr_to_i32(double x) { return arr_ftoi<int>(x, -2147483648.0, 2147483647.0); }
__device__ __forceinline__ i64 arr_to_i64(double x) {
    return arr_ftoi<i64>(x, -9223372036854775808.0, 9223372036854775807.0);
}

// Counter-based random numbers: bit-identical to src/graph/random.rs.
__device__ __forceinline__ u64 arr_mix64(u64 z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
__device__ __forceinline__ u64 arr_bits(u64 key, u64 i) { return arr_mix64(key + (i + 1) * 0x9E3779B97F4A7C15ULL); }
__device__ __forceinline__ float arr_uniform_f32(u64 key, u64 i) {
    return (float)(arr_bits(key, i) >> 40) * (1.0f / 16777216.0f);
}
__device__ __forceinline__ double arr_uniform_f64(u64 key, u64 i) {
    return (double)(arr_bits(key, i) >> 11) * (1.0 / 9007199254740992.0);
}
__device__ __forceinline__ double arr_normal_f64(u64 key, u64 i) {
    double u1 = 1.0 - arr_uniform_f64(key, 2 * i);
    double u2 = arr_uniform_f64(key, 2 * i + 1);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

template <class T> __device__ __forceinline__ T arr_shfl_up(T v, int delta) {
    return __shfl_up_sync(0xffffffffu, v, delta);
}
template <> __device__ __forceinline__ bool arr_shfl_up<bool>(bool v, int delta) {
    return __shfl_up_sync(0xffffffffu, (int)v, delta) != 0;
}
