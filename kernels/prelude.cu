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
// NumPy's floor_divide of floats (npy_floor_divide), step by step.
__device__ __forceinline__ double arr_floordiv(double a, double b) {
    if (b == 0.0) return a / b;
    double m = fmod(a, b);
    double div = (a - m) / b;
    if (m != 0.0 && ((b < 0.0) != (m < 0.0))) div -= 1.0;
    if (div != 0.0) {
        double f = floor(div);
        return div - f > 0.5 ? f + 1.0 : f;
    }
    return copysign(0.0, a / b);
}
__device__ __forceinline__ float arr_floordiv(float a, float b) {
    if (b == 0.0f) return a / b;
    float m = fmodf(a, b);
    float div = (a - m) / b;
    if (m != 0.0f && ((b < 0.0f) != (m < 0.0f))) div -= 1.0f;
    if (div != 0.0f) {
        float f = floorf(div);
        return div - f > 0.5f ? f + 1.0f : f;
    }
    return copysignf(0.0f, a / b);
}

// abs for every numeric dtype; the float predicates without library macros
// (inf - inf and NaN - NaN are NaN, finite - finite is 0).
template <class T> __device__ __forceinline__ T arr_abs(T a) { return a < 0 ? -a : a; }
__device__ __forceinline__ float arr_abs(float a) { return fabsf(a); }
__device__ __forceinline__ double arr_abs(double a) { return fabs(a); }
template <class T> __device__ __forceinline__ bool arr_isinf(T a) { return a == a && (a - a) != (a - a); }
template <class T> __device__ __forceinline__ bool arr_isfinite(T a) { return (a - a) == (a - a); }

// Set by integer modulo by zero (1), a negative integer power (2) or integer
// floor division by zero (3); the host reads it after kernels that use them
// and reports the CPU backend's error.
__device__ int arr_error;

// b == -1 is answered before C's % and /, which overflow on the type's
// minimum there (NumPy gives 0 and the wrapped minimum).
template <class T> __device__ __forceinline__ T arr_imod(T a, T b) {
    if (b == 0) {
        arr_error = 1;
        return 0;
    }
    if (b == -1) return 0;
    T r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
// Integer floor division, flagging b == 0 itself (threads racing to write 1
// and 3 would name the wrong error): the truncated quotient, one less where
// the remainder's sign differs from the divisor's. (a - a mod b) / b, the
// earlier form, overflowed for a within |b| of the type's minimum.
template <class T> __device__ __forceinline__ T arr_ifloordiv(T a, T b) {
    if (b == 0) {
        arr_error = 3;
        return 0;
    }
    if (b == -1) return (T)(0ull - (unsigned long long)a);
    T q = a / b;
    T r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
// Shifts as NumPy's npy_lshift / npy_rshift: a count outside [0, width),
// negative ones included, shifts every bit out, where C leaves it undefined;
// the left shift goes through the unsigned type, since C++17 leaves a
// negative value shifted left undefined too.
__device__ __forceinline__ int arr_shl(int a, int b) { return (unsigned)b < 32u ? (int)((unsigned)a << b) : 0; }
__device__ __forceinline__ i64 arr_shl(i64 a, i64 b) {
    return (unsigned long long)b < 64ull ? (i64)((unsigned long long)a << b) : 0;
}
__device__ __forceinline__ int arr_shr(int a, int b) { return a >> ((unsigned)b < 32u ? b : 31); }
__device__ __forceinline__ i64 arr_shr(i64 a, i64 b) { return a >> ((unsigned long long)b < 64ull ? b : 63); }
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
    // i64's largest value has no double; every narrower one has
    if (x >= hi) return sizeof(I) == 8 ? (I)0x7fffffffffffffffLL : (I)hi;
    return (I)x;
}
__device__ __forceinline__ int arr_to_i32(double x) { return arr_ftoi<int>(x, -2147483648.0, 2147483647.0); }
__device__ __forceinline__ i64 arr_to_i64(double x) {
    return arr_ftoi<i64>(x, -9223372036854775808.0, 9223372036854775807.0);
}

// f16 and bf16: 16-bit storage, arithmetic in float. A value converts to
// float where it is used and rounds to nearest-even when a result is stored
// into it, so each op of a fused body rounds once, as the CPU backend's
// (and NumPy's) half-float ops do. Conversions are PTX `cvt`s, so no header
// is needed; a double rounds once too (to odd in f32, then to nearest).
__device__ __forceinline__ float arr_h2f(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ unsigned short arr_f2h(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ float arr_b2f(unsigned short b) { return __uint_as_float((unsigned)b << 16); }
__device__ __forceinline__ unsigned short arr_f2b(float f) {
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
// f32 holds 13 more bits than either half float, so rounding a double to odd
// in f32 and then to nearest in 16 bits equals rounding it once.
__device__ __forceinline__ float arr_d2f_odd(double d) {
    float f = __double2float_rz(d);
    if ((double)f != d && d == d) f = __uint_as_float(__float_as_uint(f) | 1u);
    return f;
}
// One 16-bit float type per format K, which converts (K::round, K::widen)
// and names its one (K::one): the two differ only there.
template <class K> struct arr_half {
    unsigned short bits;
    arr_half() = default;
    __device__ arr_half(float f) : bits(K::round(f)) {}
    __device__ arr_half(double d) : bits(K::round(arr_d2f_odd(d))) {}
    __device__ arr_half(int i) : bits(K::round(arr_d2f_odd((double)i))) {}
    __device__ arr_half(long long i) : bits(K::round(arr_d2f_odd((double)i))) {}
    __device__ arr_half(bool b) : bits(b ? K::one : 0) {}
    __device__ operator float() const { return K::widen(bits); }
};
struct arr_f16_format {
    static const unsigned short one = 0x3c00;
    static __device__ __forceinline__ unsigned short round(float f) { return arr_f2h(f); }
    static __device__ __forceinline__ float widen(unsigned short h) { return arr_h2f(h); }
};
struct arr_bf16_format {
    static const unsigned short one = 0x3f80;
    static __device__ __forceinline__ unsigned short round(float f) { return arr_f2b(f); }
    static __device__ __forceinline__ float widen(unsigned short h) { return arr_b2f(h); }
};
typedef arr_half<arr_f16_format> arr_f16;
typedef arr_half<arr_bf16_format> arr_bf16;
// More specialised than the generic templates above, which would mix float
// and half in one conditional. abs goes through float: clearing the sign bit
// in place gave wrong lanes on an H100 (observed, not root-caused).
template <class K> __device__ __forceinline__ arr_half<K> arr_abs(arr_half<K> a) { return fabsf((float)a); }
template <class K> __device__ __forceinline__ arr_half<K> arr_sign(arr_half<K> a) { return arr_sign((float)a); }
// Uniform in [0, 1) as the CPU makes it: an f32 uniform rounded, and one
// that rounded up to 1 moved to the largest value below 1.
template <class H> __device__ __forceinline__ H arr_uniform_half(float u) {
    H h = u;
    if ((float)h >= 1.0f) h.bits -= 1;
    return h;
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
