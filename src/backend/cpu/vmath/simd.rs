//! The vector types the kernels are written against: one trait, `Vf`, over
//! AVX2 (`__m256`, `__m256d`) and AVX-512F (`__m512`, `__m512d`). A kernel
//! is generic over `Vf`, so each algorithm is written once and instantiated
//! per width; every method is `#[inline(always)]` so that it dissolves into
//! the `#[target_feature]` entry point that calls it (that entry point is
//! what makes the intrinsics legal to execute).

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A SIMD vector of f32 or f64 lanes. Masks are the ISA's own type (a float
/// vector on AVX2, a bit mask on AVX-512).
pub(in crate::backend::cpu) trait Vf:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self>
{
    type S: Copy + Default;
    type M: Copy;
    const N: usize;
    /// # Safety
    /// `p` must be valid for reading `N` lanes; the ISA must be present.
    unsafe fn load(p: *const Self::S) -> Self;
    /// # Safety
    /// `p` must be valid for writing `N` lanes; the ISA must be present.
    unsafe fn store(self, p: *mut Self::S);
    /// A constant, rounded to the lane type.
    fn splat(v: f64) -> Self;
    /// `self * b + c`, rounded once.
    fn fma(self, b: Self, c: Self) -> Self;
    fn min(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    /// Round to the nearest integer, ties to even.
    fn round(self) -> Self;
    fn floor(self) -> Self;
    fn abs(self) -> Self;
    /// `self` with the sign bit of `s` (`s` may be any value).
    fn copysign(self, s: Self) -> Self;
    fn lt(self, o: Self) -> Self::M;
    fn ge(self, o: Self) -> Self::M;
    fn gt(self, o: Self) -> Self::M;
    fn eq(self, o: Self) -> Self::M;
    fn is_nan(self) -> Self::M;
    /// `m ? a : b` per lane.
    fn select(m: Self::M, a: Self, b: Self) -> Self;
    fn any(m: Self::M) -> bool;
    /// Lanes outside [lo, hi], NaN lanes included.
    fn outside(self, lo: f64, hi: f64) -> Self::M;
    fn mask_and(a: Self::M, b: Self::M) -> Self::M;
    fn mask_or(a: Self::M, b: Self::M) -> Self::M;
    /// `1 / self` for `self` in [1, 2], within 1 ulp: the ISA's reciprocal
    /// estimate refined by Newton steps where that is cheaper than a
    /// division (a 512-bit `vdivps` takes the divider twice as long as a
    /// 256-bit one), the division itself otherwise.
    fn recip(self) -> Self;
    /// `2^n` for integral `n` whose biased exponent is normal.
    fn pow2i(n: Self) -> Self;
    /// For positive normal `self`: `(m, e)` with `self = m * 2^e`, `m` in
    /// [1, 2), `e` integral.
    fn frexp1(self) -> (Self, Self);
}

macro_rules! ops {
    ($t:ident, $add:ident, $sub:ident, $mul:ident, $div:ident, $xor:ident, $neg0:expr) => {
        impl Add for $t {
            type Output = Self;
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                // SAFETY: the type exists only inside entry points that checked the ISA.
                $t(unsafe { $add(self.0, o.0) })
            }
        }
        impl Sub for $t {
            type Output = Self;
            #[inline(always)]
            fn sub(self, o: Self) -> Self {
                // SAFETY: as for `add`.
                $t(unsafe { $sub(self.0, o.0) })
            }
        }
        impl Mul for $t {
            type Output = Self;
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                // SAFETY: as for `add`.
                $t(unsafe { $mul(self.0, o.0) })
            }
        }
        impl Div for $t {
            type Output = Self;
            #[inline(always)]
            fn div(self, o: Self) -> Self {
                // SAFETY: as for `add`.
                $t(unsafe { $div(self.0, o.0) })
            }
        }
        impl Neg for $t {
            type Output = Self;
            #[inline(always)]
            fn neg(self) -> Self {
                // SAFETY: as for `add`.
                $t(unsafe { $xor(self.0, <$t as Vf>::splat($neg0).0) })
            }
        }
    };
}

/// 8 f32 lanes, AVX2 + FMA.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(in crate::backend::cpu) struct F32x8(__m256);
/// 4 f64 lanes, AVX2 + FMA.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(in crate::backend::cpu) struct F64x4(__m256d);
/// 16 f32 lanes, AVX-512F.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct F32x16(__m512);
/// 8 f64 lanes, AVX-512F.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct F64x8(__m512d);

#[cfg(target_arch = "x86_64")]
ops!(
    F32x8,
    _mm256_add_ps,
    _mm256_sub_ps,
    _mm256_mul_ps,
    _mm256_div_ps,
    _mm256_xor_ps,
    -0.0
);
#[cfg(target_arch = "x86_64")]
ops!(
    F64x4,
    _mm256_add_pd,
    _mm256_sub_pd,
    _mm256_mul_pd,
    _mm256_div_pd,
    _mm256_xor_pd,
    -0.0
);
#[cfg(target_arch = "x86_64")]
ops!(
    F32x16,
    _mm512_add_ps,
    _mm512_sub_ps,
    _mm512_mul_ps,
    _mm512_div_ps,
    xor512_ps,
    -0.0
);
#[cfg(target_arch = "x86_64")]
ops!(
    F64x8,
    _mm512_add_pd,
    _mm512_sub_pd,
    _mm512_mul_pd,
    _mm512_div_pd,
    xor512_pd,
    -0.0
);

// AVX-512F has no float xor/and/or (those are AVX512DQ): go through the integer ones.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn xor512_ps(a: __m512, b: __m512) -> __m512 {
    // SAFETY: the caller runs with AVX-512F.
    unsafe { _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), _mm512_castps_si512(b))) }
}
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn xor512_pd(a: __m512d, b: __m512d) -> __m512d {
    // SAFETY: the caller runs with AVX-512F.
    unsafe { _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(a), _mm512_castpd_si512(b))) }
}

const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
const DOWN: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;

// Every method body below is one or a few intrinsics of the type's ISA.
// SAFETY (for all `unsafe` blocks in these impls): values of these types are
// only made inside `#[target_feature]` entry points that checked, at run
// time, that the ISA is present; the loads and stores are unaligned ones
// whose pointers the caller vouches for.
#[cfg(target_arch = "x86_64")]
impl Vf for F32x8 {
    type S = f32;
    type M = __m256;
    const N: usize = 8;
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        // SAFETY: see the impl comment.
        F32x8(unsafe { _mm256_loadu_ps(p) })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        // SAFETY: see the impl comment.
        unsafe { _mm256_storeu_ps(p, self.0) }
    }
    #[inline(always)]
    fn splat(v: f64) -> Self {
        // SAFETY: see the impl comment.
        F32x8(unsafe { _mm256_set1_ps(v as f32) })
    }
    #[inline(always)]
    fn fma(self, b: Self, c: Self) -> Self {
        // SAFETY: see the impl comment.
        F32x8(unsafe { _mm256_fmadd_ps(self.0, b.0, c.0) })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SAFETY: see the impl comment.
        F32x8(unsafe { _mm256_min_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        // SAFETY: see the impl comment.
        F32x8(unsafe { _mm256_max_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn round(self) -> Self {
        // SAFETY: see the impl comment.
        F32x8(unsafe { _mm256_round_ps::<NEAREST>(self.0) })
    }
    #[inline(always)]
    fn floor(self) -> Self {
        // SAFETY: see the impl comment.
        F32x8(unsafe { _mm256_round_ps::<DOWN>(self.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: see the impl comment.
        F32x8(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
    }
    #[inline(always)]
    fn copysign(self, s: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe {
            let sign = _mm256_set1_ps(-0.0);
            F32x8(_mm256_or_ps(_mm256_andnot_ps(sign, self.0), _mm256_and_ps(sign, s.0)))
        }
    }
    #[inline(always)]
    fn lt(self, o: Self) -> __m256 {
        // SAFETY: see the impl comment.
        unsafe { _mm256_cmp_ps::<_CMP_LT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn ge(self, o: Self) -> __m256 {
        // SAFETY: see the impl comment.
        unsafe { _mm256_cmp_ps::<_CMP_GE_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn gt(self, o: Self) -> __m256 {
        // SAFETY: see the impl comment.
        unsafe { _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn eq(self, o: Self) -> __m256 {
        // SAFETY: see the impl comment.
        unsafe { _mm256_cmp_ps::<_CMP_EQ_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn is_nan(self) -> __m256 {
        // SAFETY: see the impl comment.
        unsafe { _mm256_cmp_ps::<_CMP_UNORD_Q>(self.0, self.0) }
    }
    #[inline(always)]
    fn select(m: __m256, a: Self, b: Self) -> Self {
        // SAFETY: see the impl comment.
        F32x8(unsafe { _mm256_blendv_ps(b.0, a.0, m) })
    }
    #[inline(always)]
    fn outside(self, lo: f64, hi: f64) -> Self::M {
        // SAFETY: see the impl comment.
        unsafe {
            _mm256_or_ps(
                _mm256_cmp_ps::<_CMP_NGE_UQ>(self.0, _mm256_set1_ps(lo as f32)),
                _mm256_cmp_ps::<_CMP_NLE_UQ>(self.0, _mm256_set1_ps(hi as f32)),
            )
        }
    }
    #[inline(always)]
    fn any(m: __m256) -> bool {
        // SAFETY: see the impl comment.
        unsafe { _mm256_movemask_ps(m) != 0 }
    }
    #[inline(always)]
    fn mask_or(a: __m256, b: __m256) -> __m256 {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm256_or_ps(a, b) }
    }
    #[inline(always)]
    fn mask_and(a: __m256, b: __m256) -> __m256 {
        // SAFETY: see the impl comment.
        unsafe { _mm256_and_ps(a, b) }
    }
    #[inline(always)]
    fn recip(self) -> Self {
        Self::splat(1.0) / self
    }
    #[inline(always)]
    fn pow2i(n: Self) -> Self {
        // SAFETY: see the impl comment.
        unsafe {
            let i = _mm256_add_epi32(_mm256_cvtps_epi32(n.0), _mm256_set1_epi32(127));
            F32x8(_mm256_castsi256_ps(_mm256_slli_epi32::<23>(i)))
        }
    }
    #[inline(always)]
    fn frexp1(self) -> (Self, Self) {
        // SAFETY: see the impl comment.
        unsafe {
            let bits = _mm256_castps_si256(self.0);
            let e = _mm256_cvtepi32_ps(_mm256_srli_epi32::<23>(bits));
            let m = _mm256_or_ps(
                _mm256_and_ps(self.0, _mm256_castsi256_ps(_mm256_set1_epi32(0x007f_ffff))),
                _mm256_set1_ps(1.0),
            );
            (F32x8(m), F32x8(e) - Self::splat(127.0))
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl Vf for F64x4 {
    type S = f64;
    type M = __m256d;
    const N: usize = 4;
    #[inline(always)]
    unsafe fn load(p: *const f64) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x4(unsafe { _mm256_loadu_pd(p) })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f64) {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm256_storeu_pd(p, self.0) }
    }
    #[inline(always)]
    fn splat(v: f64) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x4(unsafe { _mm256_set1_pd(v) })
    }
    #[inline(always)]
    fn fma(self, b: Self, c: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x4(unsafe { _mm256_fmadd_pd(self.0, b.0, c.0) })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x4(unsafe { _mm256_min_pd(self.0, o.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x4(unsafe { _mm256_max_pd(self.0, o.0) })
    }
    #[inline(always)]
    fn round(self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x4(unsafe { _mm256_round_pd::<NEAREST>(self.0) })
    }
    #[inline(always)]
    fn floor(self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x4(unsafe { _mm256_round_pd::<DOWN>(self.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x4(unsafe { _mm256_andnot_pd(_mm256_set1_pd(-0.0), self.0) })
    }
    #[inline(always)]
    fn copysign(self, s: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe {
            let sign = _mm256_set1_pd(-0.0);
            F64x4(_mm256_or_pd(_mm256_andnot_pd(sign, self.0), _mm256_and_pd(sign, s.0)))
        }
    }
    #[inline(always)]
    fn lt(self, o: Self) -> __m256d {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm256_cmp_pd::<_CMP_LT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn ge(self, o: Self) -> __m256d {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm256_cmp_pd::<_CMP_GE_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn gt(self, o: Self) -> __m256d {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm256_cmp_pd::<_CMP_GT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn eq(self, o: Self) -> __m256d {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm256_cmp_pd::<_CMP_EQ_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn is_nan(self) -> __m256d {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm256_cmp_pd::<_CMP_UNORD_Q>(self.0, self.0) }
    }
    #[inline(always)]
    fn select(m: __m256d, a: Self, b: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x4(unsafe { _mm256_blendv_pd(b.0, a.0, m) })
    }
    #[inline(always)]
    fn outside(self, lo: f64, hi: f64) -> Self::M {
        // SAFETY: see the impl comment.
        unsafe {
            _mm256_or_pd(
                _mm256_cmp_pd::<_CMP_NGE_UQ>(self.0, _mm256_set1_pd(lo)),
                _mm256_cmp_pd::<_CMP_NLE_UQ>(self.0, _mm256_set1_pd(hi)),
            )
        }
    }
    #[inline(always)]
    fn any(m: __m256d) -> bool {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm256_movemask_pd(m) != 0 }
    }
    #[inline(always)]
    fn mask_or(a: __m256d, b: __m256d) -> __m256d {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm256_or_pd(a, b) }
    }
    #[inline(always)]
    fn mask_and(a: __m256d, b: __m256d) -> __m256d {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm256_and_pd(a, b) }
    }
    #[inline(always)]
    fn recip(self) -> Self {
        Self::splat(1.0) / self
    }
    #[inline(always)]
    fn pow2i(n: Self) -> Self {
        // AVX2 has no f64 -> i64 conversion: adding 2^52 + 1023 leaves
        // n + 1023 in the low mantissa bits, which a shift moves into the
        // exponent field.
        // SAFETY: see the impl comment of `F32x8`.
        unsafe {
            let t = _mm256_add_pd(n.0, _mm256_set1_pd(4503599627370496.0 + 1023.0));
            F64x4(_mm256_castsi256_pd(_mm256_slli_epi64::<52>(_mm256_castpd_si256(t))))
        }
    }
    #[inline(always)]
    fn frexp1(self) -> (Self, Self) {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe {
            // the biased exponent as the low mantissa bits of 2^52, then subtracted
            let bits = _mm256_srli_epi64::<52>(_mm256_castpd_si256(self.0));
            let magic = _mm256_set1_epi64x(0x4330_0000_0000_0000);
            let e = _mm256_sub_pd(
                _mm256_castsi256_pd(_mm256_or_si256(bits, magic)),
                _mm256_set1_pd(4503599627370496.0),
            );
            let m = _mm256_or_pd(
                _mm256_and_pd(self.0, _mm256_castsi256_pd(_mm256_set1_epi64x(0x000f_ffff_ffff_ffff))),
                _mm256_set1_pd(1.0),
            );
            (F64x4(m), F64x4(e) - Self::splat(1023.0))
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl Vf for F32x16 {
    type S = f32;
    type M = __mmask16;
    const N: usize = 16;
    #[inline(always)]
    unsafe fn load(p: *const f32) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F32x16(unsafe { _mm512_loadu_ps(p) })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f32) {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm512_storeu_ps(p, self.0) }
    }
    #[inline(always)]
    fn splat(v: f64) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F32x16(unsafe { _mm512_set1_ps(v as f32) })
    }
    #[inline(always)]
    fn fma(self, b: Self, c: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F32x16(unsafe { _mm512_fmadd_ps(self.0, b.0, c.0) })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F32x16(unsafe { _mm512_min_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F32x16(unsafe { _mm512_max_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn round(self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F32x16(unsafe { _mm512_roundscale_ps::<NEAREST>(self.0) })
    }
    #[inline(always)]
    fn floor(self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F32x16(unsafe { _mm512_roundscale_ps::<DOWN>(self.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F32x16(unsafe { _mm512_abs_ps(self.0) })
    }
    #[inline(always)]
    fn copysign(self, s: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe {
            let sign = _mm512_set1_epi32(i32::MIN);
            let a = _mm512_andnot_si512(sign, _mm512_castps_si512(self.0));
            let b = _mm512_and_si512(sign, _mm512_castps_si512(s.0));
            F32x16(_mm512_castsi512_ps(_mm512_or_si512(a, b)))
        }
    }
    #[inline(always)]
    fn lt(self, o: Self) -> __mmask16 {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm512_cmp_ps_mask::<_CMP_LT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn ge(self, o: Self) -> __mmask16 {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm512_cmp_ps_mask::<_CMP_GE_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn gt(self, o: Self) -> __mmask16 {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm512_cmp_ps_mask::<_CMP_GT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn eq(self, o: Self) -> __mmask16 {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn is_nan(self) -> __mmask16 {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(self.0, self.0) }
    }
    #[inline(always)]
    fn select(m: __mmask16, a: Self, b: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F32x16(unsafe { _mm512_mask_blend_ps(m, b.0, a.0) })
    }
    #[inline(always)]
    fn outside(self, lo: f64, hi: f64) -> Self::M {
        // SAFETY: see the impl comment.
        unsafe {
            _mm512_cmp_ps_mask::<_CMP_NGE_UQ>(self.0, _mm512_set1_ps(lo as f32))
                | _mm512_cmp_ps_mask::<_CMP_NLE_UQ>(self.0, _mm512_set1_ps(hi as f32))
        }
    }
    #[inline(always)]
    fn any(m: __mmask16) -> bool {
        m != 0
    }
    #[inline(always)]
    fn mask_or(a: __mmask16, b: __mmask16) -> __mmask16 {
        a | b
    }
    #[inline(always)]
    fn mask_and(a: __mmask16, b: __mmask16) -> __mmask16 {
        a & b
    }
    #[inline(always)]
    fn recip(self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        let r = F32x16(unsafe { _mm512_rcp14_ps(self.0) });
        // one Newton step: 2^-14 relative error becomes 2^-28 plus its roundings
        let e = (-self).fma(r, Self::splat(1.0));
        r.fma(e, r)
    }
    #[inline(always)]
    fn pow2i(n: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe {
            let i = _mm512_add_epi32(_mm512_cvtps_epi32(n.0), _mm512_set1_epi32(127));
            F32x16(_mm512_castsi512_ps(_mm512_slli_epi32::<23>(i)))
        }
    }
    #[inline(always)]
    fn frexp1(self) -> (Self, Self) {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe {
            let bits = _mm512_castps_si512(self.0);
            let e = _mm512_cvtepi32_ps(_mm512_srli_epi32::<23>(bits));
            let m = _mm512_or_si512(
                _mm512_and_si512(bits, _mm512_set1_epi32(0x007f_ffff)),
                _mm512_set1_epi32(0x3f80_0000),
            );
            (F32x16(_mm512_castsi512_ps(m)), F32x16(e) - Self::splat(127.0))
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl Vf for F64x8 {
    type S = f64;
    type M = __mmask8;
    const N: usize = 8;
    #[inline(always)]
    unsafe fn load(p: *const f64) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x8(unsafe { _mm512_loadu_pd(p) })
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f64) {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm512_storeu_pd(p, self.0) }
    }
    #[inline(always)]
    fn splat(v: f64) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x8(unsafe { _mm512_set1_pd(v) })
    }
    #[inline(always)]
    fn fma(self, b: Self, c: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x8(unsafe { _mm512_fmadd_pd(self.0, b.0, c.0) })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x8(unsafe { _mm512_min_pd(self.0, o.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x8(unsafe { _mm512_max_pd(self.0, o.0) })
    }
    #[inline(always)]
    fn round(self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x8(unsafe { _mm512_roundscale_pd::<NEAREST>(self.0) })
    }
    #[inline(always)]
    fn floor(self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x8(unsafe { _mm512_roundscale_pd::<DOWN>(self.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x8(unsafe { _mm512_abs_pd(self.0) })
    }
    #[inline(always)]
    fn copysign(self, s: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe {
            let sign = _mm512_set1_epi64(i64::MIN);
            let a = _mm512_andnot_si512(sign, _mm512_castpd_si512(self.0));
            let b = _mm512_and_si512(sign, _mm512_castpd_si512(s.0));
            F64x8(_mm512_castsi512_pd(_mm512_or_si512(a, b)))
        }
    }
    #[inline(always)]
    fn lt(self, o: Self) -> __mmask8 {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm512_cmp_pd_mask::<_CMP_LT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn ge(self, o: Self) -> __mmask8 {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm512_cmp_pd_mask::<_CMP_GE_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn gt(self, o: Self) -> __mmask8 {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm512_cmp_pd_mask::<_CMP_GT_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn eq(self, o: Self) -> __mmask8 {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(self.0, o.0) }
    }
    #[inline(always)]
    fn is_nan(self) -> __mmask8 {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe { _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(self.0, self.0) }
    }
    #[inline(always)]
    fn select(m: __mmask8, a: Self, b: Self) -> Self {
        // SAFETY: see the impl comment of `F32x8`.
        F64x8(unsafe { _mm512_mask_blend_pd(m, b.0, a.0) })
    }
    #[inline(always)]
    fn outside(self, lo: f64, hi: f64) -> Self::M {
        // SAFETY: see the impl comment.
        unsafe {
            _mm512_cmp_pd_mask::<_CMP_NGE_UQ>(self.0, _mm512_set1_pd(lo))
                | _mm512_cmp_pd_mask::<_CMP_NLE_UQ>(self.0, _mm512_set1_pd(hi))
        }
    }
    #[inline(always)]
    fn any(m: __mmask8) -> bool {
        m != 0
    }
    #[inline(always)]
    fn mask_or(a: __mmask8, b: __mmask8) -> __mmask8 {
        a | b
    }
    #[inline(always)]
    fn mask_and(a: __mmask8, b: __mmask8) -> __mmask8 {
        a & b
    }
    #[inline(always)]
    fn recip(self) -> Self {
        Self::splat(1.0) / self
    }
    #[inline(always)]
    fn pow2i(n: Self) -> Self {
        // AVX-512F has no f64 -> i64 conversion either (that is DQ): as for AVX2.
        // SAFETY: see the impl comment of `F32x8`.
        unsafe {
            let t = _mm512_add_pd(n.0, _mm512_set1_pd(4503599627370496.0 + 1023.0));
            F64x8(_mm512_castsi512_pd(_mm512_slli_epi64::<52>(_mm512_castpd_si512(t))))
        }
    }
    #[inline(always)]
    fn frexp1(self) -> (Self, Self) {
        // SAFETY: see the impl comment of `F32x8`.
        unsafe {
            let bits = _mm512_castpd_si512(self.0);
            let magic = _mm512_set1_epi64(0x4330_0000_0000_0000);
            let e = _mm512_sub_pd(
                _mm512_castsi512_pd(_mm512_or_si512(_mm512_srli_epi64::<52>(bits), magic)),
                _mm512_set1_pd(4503599627370496.0),
            );
            let m = _mm512_or_si512(
                _mm512_and_si512(bits, _mm512_set1_epi64(0x000f_ffff_ffff_ffff)),
                _mm512_set1_epi64(0x3ff0_0000_0000_0000),
            );
            (F64x8(_mm512_castsi512_pd(m)), F64x8(e) - Self::splat(1023.0))
        }
    }
}

/// `K` vectors computed in lockstep, operation by operation. A kernel run
/// on `Lock<V, K>` issues each step for `K` independent groups of lanes
/// before the next, so a long dependency chain (tanh's exponential, then
/// its division) keeps the FP pipes busy; run on `V` `K` times in a row, the
/// chains follow one another and the scheduler sees too few independent
/// operations to fill the pipes. Implemented for `K` = 4 (measured ahead of
/// 2 on every function, AVX2) with the lanes spelled out: a loop over `K`
/// (`array::from_fn`) left the arrays in memory, 5x slower.
#[derive(Clone, Copy)]
pub(in crate::backend::cpu) struct Lock<V, const K: usize>([V; K]);

macro_rules! lock_op {
    ($k:literal, $tr:ident, $f:ident, [$($i:literal),*]) => {
        impl<V: Vf> $tr for Lock<V, $k> {
            type Output = Self;
            #[inline(always)]
            fn $f(self, o: Self) -> Self {
                Lock([$(self.0[$i].$f(o.0[$i])),*])
            }
        }
    };
}

macro_rules! lock {
    ($k:literal, [$($i:literal),*]) => {
        lock_op!($k, Add, add, [$($i),*]);
        lock_op!($k, Sub, sub, [$($i),*]);
        lock_op!($k, Mul, mul, [$($i),*]);
        lock_op!($k, Div, div, [$($i),*]);

        impl<V: Vf> Neg for Lock<V, $k> {
            type Output = Self;
            #[inline(always)]
            fn neg(self) -> Self {
                Lock([$(-self.0[$i]),*])
            }
        }

        impl<V: Vf> Vf for Lock<V, $k> {
            type S = V::S;
            type M = [V::M; $k];
            const N: usize = $k * V::N;
            #[inline(always)]
            unsafe fn load(p: *const V::S) -> Self {
                // SAFETY: the caller vouches for K N lanes at `p` and the ISA.
                unsafe { Lock([$(V::load(p.add($i * V::N))),*]) }
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut V::S) {
                // SAFETY: as for `load`.
                unsafe { $(self.0[$i].store(p.add($i * V::N));)* }
            }
            #[inline(always)]
            fn splat(v: f64) -> Self {
                Lock([V::splat(v); $k])
            }
            #[inline(always)]
            fn fma(self, b: Self, c: Self) -> Self {
                Lock([$(self.0[$i].fma(b.0[$i], c.0[$i])),*])
            }
            #[inline(always)]
            fn min(self, o: Self) -> Self {
                Lock([$(self.0[$i].min(o.0[$i])),*])
            }
            #[inline(always)]
            fn max(self, o: Self) -> Self {
                Lock([$(self.0[$i].max(o.0[$i])),*])
            }
            #[inline(always)]
            fn round(self) -> Self {
                Lock([$(self.0[$i].round()),*])
            }
            #[inline(always)]
            fn floor(self) -> Self {
                Lock([$(self.0[$i].floor()),*])
            }
            #[inline(always)]
            fn abs(self) -> Self {
                Lock([$(self.0[$i].abs()),*])
            }
            #[inline(always)]
            fn copysign(self, s: Self) -> Self {
                Lock([$(self.0[$i].copysign(s.0[$i])),*])
            }
            #[inline(always)]
            fn lt(self, o: Self) -> Self::M {
                [$(self.0[$i].lt(o.0[$i])),*]
            }
            #[inline(always)]
            fn ge(self, o: Self) -> Self::M {
                [$(self.0[$i].ge(o.0[$i])),*]
            }
            #[inline(always)]
            fn gt(self, o: Self) -> Self::M {
                [$(self.0[$i].gt(o.0[$i])),*]
            }
            #[inline(always)]
            fn eq(self, o: Self) -> Self::M {
                [$(self.0[$i].eq(o.0[$i])),*]
            }
            #[inline(always)]
            fn is_nan(self) -> Self::M {
                [$(self.0[$i].is_nan()),*]
            }
            #[inline(always)]
            fn select(m: Self::M, a: Self, b: Self) -> Self {
                Lock([$(V::select(m[$i], a.0[$i], b.0[$i])),*])
            }
            #[inline(always)]
            fn any(m: Self::M) -> bool {
                false $(|| V::any(m[$i]))*
            }
            #[inline(always)]
            fn outside(self, lo: f64, hi: f64) -> Self::M {
                [$(self.0[$i].outside(lo, hi)),*]
            }
            #[inline(always)]
            fn mask_and(a: Self::M, b: Self::M) -> Self::M {
                [$(V::mask_and(a[$i], b[$i])),*]
            }
            #[inline(always)]
            fn mask_or(a: Self::M, b: Self::M) -> Self::M {
                [$(V::mask_or(a[$i], b[$i])),*]
            }
            #[inline(always)]
            fn recip(self) -> Self {
                Lock([$(self.0[$i].recip()),*])
            }
            #[inline(always)]
            fn pow2i(n: Self) -> Self {
                Lock([$(V::pow2i(n.0[$i])),*])
            }
            #[inline(always)]
            fn frexp1(self) -> (Self, Self) {
                let parts = [$(self.0[$i].frexp1()),*];
                (Lock([$(parts[$i].0),*]), Lock([$(parts[$i].1),*]))
            }
        }
    };
}

lock!(4, [0, 1, 2, 3]);
