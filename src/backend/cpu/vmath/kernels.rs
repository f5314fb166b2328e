//! The algorithms, each written once over `Vf` and instantiated per ISA.
//! f64: exp, log, tanh, sin, cos, tan, erf; f32: exp, log, tanh, sin, cos
//! natively (8 or 16 lanes), tan and erf through the f64 kernels (see `vmath.rs`).
//!
//! Reductions and polynomials: exp and log follow fdlibm (Cody-Waite split
//! of ln 2, `log(1+f) = 2 atanh(f/(2+f))` with fdlibm's Lg1..Lg7), the f32
//! ones Cephes (`expf`, `logf`, `tanhf`); sin/cos/tan reduce by pi/2 in four
//! FMA steps (fdlibm's 33-bit pieces of pi/2, exact for |n| < 2^20) and use
//! fdlibm's kernel polynomials (f32: three FMA steps by f32 pieces of pi/2,
//! exact first step, and polynomials fitted for this file, below);
//! tanh(|x| < 0.625) is Cephes' rational
//! function; erf is `x P(x^2)` below 1 and `1 - erfc` from four polynomial
//! pieces above, fitted for this file with mpmath:
//! `mpmath.chebyfit(lambda t: mpmath.erfc(t + mid), [a - mid, b - mid], 19)`
//! at 50 digits on [1,2), [2,3), [3,4), [4,6) (erfc(6) < 2^-55).

// The constants are written as fdlibm, Cephes and the fit printed them, so
// that they can be checked against their sources digit for digit.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

use super::coef::{COS_F32, ERF_SMALL, ERFC_PIECES, SIN_F32};
use super::simd::Vf;

/// Horner's rule over coefficients given highest degree first.
#[inline(always)]
fn horner<V: Vf>(x: V, c: &[f64]) -> V {
    let mut acc = V::splat(c[0]);
    for &k in &c[1..] {
        acc = acc.fma(x, V::splat(k));
    }
    acc
}

/// `2^n` for integral `n` in [-1100, 1100] (f64) or [-160, 160] (f32),
/// as two factors so that subnormal and overflowing results round once.
#[inline(always)]
fn scale<V: Vf>(p: V, n: V) -> V {
    let n1 = (n * V::splat(0.5)).floor();
    p * V::pow2i(n1) * V::pow2i(n - n1)
}

// ---------------------------------------------------------------- f64

const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-01;
const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
const LOG2E: f64 = std::f64::consts::LOG2_E;

#[inline(always)]
pub(super) fn exp_d<V: Vf<S = f64>>(x: V) -> V {
    // Taylor to degree 13: |r| <= 0.347, the remainder is below 2^-58
    const C: [f64; 14] = [
        1.0 / 6227020800.0,
        1.0 / 479001600.0,
        1.0 / 39916800.0,
        1.0 / 3628800.0,
        1.0 / 362880.0,
        1.0 / 40320.0,
        1.0 / 5040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
        1.0,
        1.0,
    ];
    // Where every 2^n is a normal double (and no lane is NaN), one factor
    // scales exactly as `scale`'s two do, without its clamps and selects.
    if !V::any(x.outside(-708.0, 709.0)) {
        let n = (x * V::splat(LOG2E)).round();
        let r = (-n).fma(V::splat(LN2_HI), x);
        let r = (-n).fma(V::splat(LN2_LO), r);
        return horner(r, &C) * V::pow2i(n);
    }
    // beyond these, exp is 0 or inf; clamping keeps 2^n in the two factors' range
    let xc = x.max(V::splat(-746.0)).min(V::splat(710.0));
    let n = (xc * V::splat(LOG2E)).round();
    let r = (-n).fma(V::splat(LN2_HI), xc);
    let r = (-n).fma(V::splat(LN2_LO), r);
    let p = horner(r, &C);
    V::select(x.is_nan(), x, scale(p, n))
}

#[inline(always)]
pub(super) fn log_d<V: Vf<S = f64>>(x: V) -> V {
    const LG: [f64; 7] = [
        1.479_819_860_511_658_591e-01,
        1.531_383_769_920_937_332e-01,
        1.818_357_216_161_805_012e-01,
        2.222_219_843_214_978_396e-01,
        2.857_142_874_366_239_149e-01,
        3.999_999_999_940_941_908e-01,
        6.666_666_666_666_735_130e-01,
    ];
    // every lane positive, normal and finite: nothing to rescale, no specials
    if !V::any(x.outside(f64::MIN_POSITIVE, f64::MAX)) {
        return log_d_normal(x, V::splat(0.0), &LG);
    }
    // subnormals: scale into the normal range first
    let tiny = x.lt(V::splat(f64::MIN_POSITIVE));
    let xs = V::select(tiny, x * V::splat(18014398509481984.0), x); // 2^54
    let shift = V::select(tiny, V::splat(54.0), V::splat(0.0));
    log_specials(x, log_d_normal(xs, shift, &LG))
}

/// `log(x) - shift * ln 2` for positive normal finite lanes of `x` (fdlibm's
/// kernel). A named function, not a closure: a closure here would be compiled
/// without the entry point's target features (20x slower, measured).
#[inline(always)]
fn log_d_normal<V: Vf<S = f64>>(x: V, shift: V, lg: &[f64; 7]) -> V {
    let (f, k) = log_reduce(x, shift);
    let s = f / (V::splat(2.0) + f);
    let z = s * s;
    let r = z * horner(z, lg);
    let hfsq = V::splat(0.5) * f * f;
    let lo = s.fma(hfsq + r, k * V::splat(LN2_LO));
    k.fma(V::splat(LN2_HI), -((hfsq - lo) - f))
}

/// `x = 2^k (1 + f)` with `f` in [sqrt(1/2) - 1, sqrt(2) - 1), for positive
/// normal finite lanes; `shift` is taken from `k`.
#[inline(always)]
fn log_reduce<V: Vf>(x: V, shift: V) -> (V, V) {
    let (m, e) = x.frexp1();
    let big = m.gt(V::splat(std::f64::consts::SQRT_2));
    let m = V::select(big, m * V::splat(0.5), m);
    let k = (e - shift) + V::select(big, V::splat(1.0), V::splat(0.0));
    (m - V::splat(1.0), k)
}

/// log(0) = -inf, log(<0) = NaN, log(inf) = inf, NaN stays NaN.
#[inline(always)]
fn log_specials<V: Vf>(x: V, y: V) -> V {
    let zero = V::splat(0.0);
    let y = V::select(x.lt(zero), V::splat(f64::NAN), y);
    let y = V::select(x.eq(zero), V::splat(f64::NEG_INFINITY), y);
    let y = V::select(x.eq(V::splat(f64::INFINITY)), x, y);
    V::select(x.is_nan(), x, y)
}

#[inline(always)]
pub(super) fn tanh_d<V: Vf<S = f64>>(x: V) -> V {
    const P: [f64; 3] = [
        -9.643_991_794_250_522_386_28e-1,
        -9.928_772_310_019_185_865_64e1,
        -1.614_687_684_417_084_479_52e3,
    ];
    const Q: [f64; 4] = [
        1.0,
        1.128_116_784_916_329_314_02e2,
        2.235_488_390_601_004_485_83e3,
        4.844_063_053_251_254_860_48e3,
    ];
    let ax = x.abs();
    let z = x * x;
    let small = x + x * z * (horner(z, &P) / horner(z, &Q));
    let t = exp_d(V::splat(2.0) * ax.min(V::splat(22.0)));
    let big = (V::splat(1.0) - V::splat(2.0) / (t + V::splat(1.0))).copysign(x);
    let y = V::select(ax.lt(V::splat(0.625)), small, big);
    // NaN stays NaN, and tanh(-0) = -0 (the polynomial's sum gives +0)
    V::select(V::mask_or(x.is_nan(), x.eq(V::splat(0.0))), x, y)
}

// pi/2 in 33-bit pieces (fdlibm's pio2_1, pio2_2, pio2_3) and the rest.
const PIO2_1: f64 = 1.570_796_326_734_125_614_17e+00;
const PIO2_2: f64 = 6.077_100_506_303_965_976_60e-11;
const PIO2_3: f64 = 2.022_266_248_711_166_455_80e-21;
const PIO2_3T: f64 = 8.478_427_660_368_899_569_97e-32;
/// Beyond this |x| the sin/cos/tan lanes are recomputed by the scalar libm
/// (where n*PIO2_k would stop being exact).
pub(super) const TRIG_LIMIT: f64 = 524288.0;

/// One lane type's sin and cos: pi/2 in pieces for an FMA reduction, and
/// the kernel polynomials on |r| <= pi/4 (highest degree first): sin r =
/// r + r^3 S(r^2), cos r = 1 - r^2/2 + r^4 C(r^2).
struct Trig {
    pio2: &'static [f64],
    sin: &'static [f64],
    cos: &'static [f64],
}

/// fdlibm's pieces and `__kernel_sin` / `__kernel_cos` polynomials.
const TRIG_F64: Trig = Trig {
    pio2: &[PIO2_1, PIO2_2, PIO2_3, PIO2_3T],
    sin: &[
        1.589_690_995_211_550_102_21e-10,
        -2.505_076_025_340_686_341_95e-08,
        2.755_731_370_707_006_767_89e-06,
        -1.984_126_982_985_794_931_34e-04,
        8.333_333_333_322_489_461_24e-03,
        -1.666_666_666_666_663_243_48e-01,
    ],
    cos: &[
        -1.135_964_755_778_819_482_65e-11,
        2.087_572_321_298_174_827_90e-09,
        -2.755_731_435_139_066_330_35e-07,
        2.480_158_728_947_672_941_78e-05,
        -1.388_888_888_887_410_957_49e-03,
        4.166_666_666_666_660_190_37e-02,
    ],
};

/// `(r, q)` with x = n pi/2 + r, |r| <= pi/4 (a hair more where n rounds
/// the other way), q = n mod 4 (as a float).
#[inline(always)]
fn reduce_pio2<V: Vf>(x: V, pio2: &[f64]) -> (V, V) {
    let n = (x * V::splat(std::f64::consts::FRAC_2_PI)).round();
    let nn = -n;
    let mut r = x;
    for &piece in pio2 {
        r = nn.fma(V::splat(piece), r);
    }
    let q = n - V::splat(4.0) * (n * V::splat(0.25)).floor();
    (r, q)
}

#[inline(always)]
fn sin_kernel<V: Vf>(r: V, s: &[f64]) -> V {
    let z = r * r;
    (r * z).fma(horner(z, s), r)
}

#[inline(always)]
fn cos_kernel<V: Vf>(r: V, c: &[f64]) -> V {
    let z = r * r;
    let hz = V::splat(0.5) * z;
    let w = V::splat(1.0) - hz;
    // the rounding error of 1 - hz, recovered, keeps cos near 1 exact
    w + (((V::splat(1.0) - w) - hz) + (z * z) * horner(z, c))
}

#[inline(always)]
fn odd_and_high<V: Vf>(q: V) -> (V::M, V::M) {
    let odd = (q - V::splat(2.0) * (q * V::splat(0.5)).floor()).eq(V::splat(1.0));
    (odd, q.ge(V::splat(2.0)))
}

/// sin of lanes whose |x| is within the type's `TRIG_LIMIT`.
#[inline(always)]
fn sin_with<V: Vf>(x: V, t: &Trig) -> V {
    let (r, q) = reduce_pio2(x, t.pio2);
    let (odd, high) = odd_and_high(q);
    let y = V::select(odd, cos_kernel(r, t.cos), sin_kernel(r, t.sin));
    let y = V::select(high, -y, y);
    // sin(-0) = -0 (the reduction gives +0)
    V::select(x.eq(V::splat(0.0)), x, y)
}

/// cos of lanes whose |x| is within the type's `TRIG_LIMIT`.
#[inline(always)]
fn cos_with<V: Vf>(x: V, t: &Trig) -> V {
    let (r, q) = reduce_pio2(x, t.pio2);
    let (odd, _) = odd_and_high(q);
    let y = V::select(odd, sin_kernel(r, t.sin), cos_kernel(r, t.cos));
    // negative in quadrants 1 and 2
    let neg = V::mask_and(q.gt(V::splat(0.5)), q.lt(V::splat(2.5)));
    V::select(neg, -y, y)
}

#[inline(always)]
pub(super) fn sin_d<V: Vf<S = f64>>(x: V) -> V {
    sin_with(x, &TRIG_F64)
}

#[inline(always)]
pub(super) fn cos_d<V: Vf<S = f64>>(x: V) -> V {
    cos_with(x, &TRIG_F64)
}

#[inline(always)]
pub(super) fn tan_d<V: Vf<S = f64>>(x: V) -> V {
    let (r, q) = reduce_pio2(x, TRIG_F64.pio2);
    let (odd, _) = odd_and_high(q);
    let s = sin_kernel(r, TRIG_F64.sin);
    let c = cos_kernel(r, TRIG_F64.cos);
    let y = V::select(odd, -c / s, s / c);
    V::select(x.eq(V::splat(0.0)), x, y)
}

/// `k[piece]` per lane (a function, not a closure: a closure here would be
/// compiled without the caller's target features and not inlined).
#[inline(always)]
fn pick<V: Vf<S = f64>>(m2: V::M, m3: V::M, m4: V::M, k: [f64; 4]) -> V {
    let v = V::select(m2, V::splat(k[1]), V::splat(k[0]));
    let v = V::select(m3, V::splat(k[2]), v);
    V::select(m4, V::splat(k[3]), v)
}

#[inline(always)]
pub(super) fn erf_d<V: Vf<S = f64>>(x: V) -> V {
    let ax = x.abs();
    let small = x * horner(x * x, &ERF_SMALL);
    let is_big = ax.ge(V::splat(1.0));
    if !V::any(is_big) {
        return small;
    }
    let a = ax.min(V::splat(6.0));
    let m2 = a.ge(V::splat(2.0));
    let m3 = a.ge(V::splat(3.0));
    let m4 = a.ge(V::splat(4.0));
    let t = a - pick::<V>(m2, m3, m4, [1.5, 2.5, 3.5, 5.0]);
    let mut erfc = pick::<V>(
        m2,
        m3,
        m4,
        [
            ERFC_PIECES[0][0],
            ERFC_PIECES[1][0],
            ERFC_PIECES[2][0],
            ERFC_PIECES[3][0],
        ],
    );
    // the i-th coefficient of all four pieces at once
    #[allow(clippy::needless_range_loop)]
    for i in 1..ERFC_PIECES[0].len() {
        let c = pick::<V>(
            m2,
            m3,
            m4,
            [
                ERFC_PIECES[0][i],
                ERFC_PIECES[1][i],
                ERFC_PIECES[2][i],
                ERFC_PIECES[3][i],
            ],
        );
        erfc = erfc.fma(t, c);
    }
    let big = (V::splat(1.0) - erfc).copysign(x);
    let y = V::select(is_big, big, small);
    V::select(x.is_nan(), x, y)
}

// ---------------------------------------------------------------- f32

#[inline(always)]
pub(super) fn exp_s<V: Vf<S = f32>>(x: V) -> V {
    const P: [f64; 6] = [
        1.987_569_150_0e-4,
        1.398_199_950_7e-3,
        8.333_451_907_3e-3,
        4.166_579_589_4e-2,
        1.666_666_545_9e-1,
        5.000_000_120_1e-1,
    ];
    // Where every 2^n is a normal float (and no lane is NaN), one factor
    // scales exactly as `scale`'s two do, without its clamps and selects.
    if !V::any(x.outside(-87.0, 88.0)) {
        let n = (x * V::splat(LOG2E)).round();
        let r = (-n).fma(V::splat(0.693_359_375), x);
        let r = (-n).fma(V::splat(-2.121_944_400_546_905_827_68e-4), r);
        let p = (r * r).fma(horner(r, &P), r) + V::splat(1.0);
        return p * V::pow2i(n);
    }
    let xc = x.max(V::splat(-104.0)).min(V::splat(89.0));
    let n = (xc * V::splat(LOG2E)).round();
    // Cephes' split of ln 2: 0.693359375 is exact in 9 bits
    let r = (-n).fma(V::splat(0.693_359_375), xc);
    let r = (-n).fma(V::splat(-2.121_944_400_546_905_827_68e-4), r);
    let p = (r * r).fma(horner(r, &P), r) + V::splat(1.0);
    V::select(x.is_nan(), x, scale(p, n))
}

#[inline(always)]
pub(super) fn log_s<V: Vf<S = f32>>(x: V) -> V {
    const P: [f64; 9] = [
        7.037_683_629_2e-2,
        -1.151_461_031_0e-1,
        1.167_699_874_0e-1,
        -1.242_014_084_6e-1,
        1.424_932_278_7e-1,
        -1.666_805_766_5e-1,
        2.000_071_476_5e-1,
        -2.499_999_399_3e-1,
        3.333_333_117_4e-1,
    ];
    // every lane positive, normal and finite: nothing to rescale, no specials
    if !V::any(x.outside(f32::MIN_POSITIVE as f64, f32::MAX as f64)) {
        return log_s_normal(x, V::splat(0.0), &P);
    }
    let tiny = x.lt(V::splat(f32::MIN_POSITIVE as f64));
    let xs = V::select(tiny, x * V::splat(33554432.0), x); // 2^25
    let shift = V::select(tiny, V::splat(25.0), V::splat(0.0));
    log_specials(x, log_s_normal(xs, shift, &P))
}

/// `log(x) - shift * ln 2` for positive normal finite lanes of `x` (Cephes' `logf`).
#[inline(always)]
fn log_s_normal<V: Vf<S = f32>>(x: V, shift: V, p: &[f64; 9]) -> V {
    let (f, k) = log_reduce(x, shift);
    let z = f * f;
    let y = (f * z) * horner(f, p);
    let y = k.fma(V::splat(-2.121_944_400e-4), y);
    let y = V::splat(-0.5).fma(z, y);
    k.fma(V::splat(0.693_359_375), f + y)
}

#[inline(always)]
pub(super) fn tanh_s<V: Vf<S = f32>>(x: V) -> V {
    const P: [f64; 5] = [
        -5.704_988_727_45e-3,
        2.063_908_879_54e-2,
        -5.373_971_555_31e-2,
        1.333_144_220_36e-1,
        -3.333_328_194_22e-1,
    ];
    let ax = x.abs();
    let z = x * x;
    // below 0.625, Cephes' odd polynomial
    let small = (ax * z).fma(horner(z, &P), ax);
    // from 0.625 on, 1 - 2u / (1 + u) with u = e^(-2|x|) at most 0.29: the
    // quotient is at most 0.45 of the result, so its error (`recip`'s: on
    // AVX-512 an estimate refined, no division) weighs less than half an
    // ulp; from |x| = 10 on the result rounds to 1
    let u = exp_s(V::splat(-2.0) * ax.min(V::splat(10.0)));
    let big = (-(u + u)).fma((V::splat(1.0) + u).recip(), V::splat(1.0));
    // a NaN fails the comparison and keeps the polynomial's NaN; the sign
    // goes on last, so tanh(-0) = -0
    V::select(ax.ge(V::splat(0.625)), big, small).copysign(x)
}

// pi/2 as three f32 (each the f32 nearest the rest). With FMA the first step
// is exact for every f32 x (from |x| = 1 on, x and n PIO2F_1 are multiples
// of 2^-23 less than 2 apart; below, n is 0 or +-1 and Sterbenz's lemma
// holds), the other two round once each; what the three leave out
// (1.1e-23) times n stays far below an f32 ulp of r up to TRIG_LIMIT_F32.
const PIO2F_1: f64 = 1.570_796_370_506_286_6;
const PIO2F_2: f64 = -4.371_138_828_673_793e-8;
const PIO2F_3: f64 = -1.715_124_510_005_881_9e-15;
/// Beyond this |x| the f32 sin and cos lanes are recomputed by the scalar
/// libm (the sweeps in tests.rs cover the reduction up to it).
pub(super) const TRIG_LIMIT_F32: f64 = 65536.0;

/// The f32 pieces above and polynomials fitted for this file (`coef.rs`).
const TRIG_F32: Trig = Trig {
    pio2: &[PIO2F_1, PIO2F_2, PIO2F_3],
    sin: &SIN_F32,
    cos: &COS_F32,
};

#[inline(always)]
pub(super) fn sin_s<V: Vf<S = f32>>(x: V) -> V {
    sin_with(x, &TRIG_F32)
}

#[inline(always)]
pub(super) fn cos_s<V: Vf<S = f32>>(x: V) -> V {
    cos_with(x, &TRIG_F32)
}
