//! Vectorised math over slices for the CPU backend's fused kernels: the
//! transcendental functions that would otherwise be one scalar libm call per
//! element. Each function works in place on a block of values (a kernel's
//! per-thread register), so a fused kernel applies it between its other
//! instructions without an extra buffer.
//!
//! One binary runs everywhere: the ISA is detected once (`Isa::best`,
//! cached in an atomic) and each call goes to the AVX-512F loops, the
//! AVX2+FMA loops, or the scalar libm fallback (other CPUs and arches).
//! The algorithms (`vmath/kernels.rs`) are written once over a vector trait
//! (`vmath/simd.rs`) with `std::arch` intrinsics, so the AVX-512 loops are
//! the AVX2 ones at twice the width. No crate: `pulp` and `wide` give the
//! width abstraction but no math functions, `sleef` bindings need a C
//! library at build time, and the few intrinsics needed fit in one file.
//!
//! f32 exp, log, tanh, sin and cos run natively in f32 lanes; f32 tan, erf
//! (and `pow_f32_on`'s vector pow) go through the f64 kernels (converted in blocks of 256), which
//! makes them correctly rounded but for rare double roundings. Lanes the
//! vector algorithms do not cover are recomputed by the scalar libm: sin,
//! cos and tan beyond |x| = 2^19 (f32 sin and cos beyond 2^16), pow of a
//! non-positive or non-finite base or a non-finite exponent. `pow_f32`,
//! `pow_f64` and the remainders are scalar (see `pow_f32`).
//!
//! Each kernel runs on four vectors in lockstep (`simd::Lock`): their
//! dependency chains interleave instruction by instruction, which the
//! out-of-order core did not manage across four calls in a row.
//!
//! Accuracy: `MathFn::max_ulp_f32` / `max_ulp_f64` (the tests in
//! `vmath/tests.rs` sweep every path this machine runs against an oracle of
//! higher precision and assert them).

#[cfg(target_arch = "x86_64")]
mod coef;
#[cfg(target_arch = "x86_64")]
mod kernels;
#[cfg(target_arch = "x86_64")]
pub(in crate::backend::cpu) mod simd;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicU8, Ordering};

/// A unary function with a vectorised implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    Exp,
    Log,
    Sin,
    Cos,
    Tan,
    Tanh,
    Erf,
}

impl MathFn {
    /// Every function, for tests and benchmarks.
    pub const ALL: [MathFn; 7] = [
        MathFn::Exp,
        MathFn::Log,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Tanh,
        MathFn::Erf,
    ];

    /// The largest error, in units in the last place of the result's dtype,
    /// that `apply_f32` / `apply_f64` may make against the exact value
    /// (within the function's documented domain): the larger of the two
    /// dtypes' bounds.
    pub fn max_ulp(self) -> u32 {
        self.max_ulp_f32().max(self.max_ulp_f64())
    }

    /// `apply_f32`'s bound in f32 ulps, on every path (the scalar fallback
    /// is glibc's and musl's erff, within 1.04 ulp on the sweeps). Measured
    /// maxima on the AVX2 path (tests.rs: 4.3M swept f32 of both signs plus
    /// specials and 100k in [-20, 20], against the f64 libm): exp 0.98,
    /// log 0.76, tanh 1.25, sin 1.43, cos 1.42, tan/erf 0.50 (through f64).
    pub fn max_ulp_f32(self) -> u32 {
        match self {
            MathFn::Exp | MathFn::Log | MathFn::Sin | MathFn::Cos | MathFn::Tan | MathFn::Erf => 2,
            MathFn::Tanh => 3,
        }
    }

    /// `apply_f64`'s bound in f64 ulps. Measured maxima on the AVX2 path
    /// against 40-digit mpmath values (tests.rs, `oracle_f64.txt`): exp,
    /// log, sin, tanh, erf 1; cos, tan 2 (near multiples of pi/2). Against
    /// glibc on 1.05M swept doubles: tan 3, tanh 2, the others 1 (glibc
    /// itself errs by up to 1).
    pub fn max_ulp_f64(self) -> u32 {
        match self {
            MathFn::Exp | MathFn::Log => 2,
            MathFn::Sin | MathFn::Cos => 2,
            MathFn::Tan | MathFn::Tanh | MathFn::Erf => 3,
        }
    }
}

/// `pow_f32`'s bound in f32 ulps (computed through f64 exp and log;
/// measured 0.50 on 200k pairs and the specials).
pub const POW_F32_MAX_ULP: u32 = 1;

/// The instruction sets the loops exist for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    Scalar,
    Avx2,
    Avx512,
}

static BEST: AtomicU8 = AtomicU8::new(0);

impl Isa {
    /// The widest ISA this CPU runs, detected on the first call.
    pub fn best() -> Isa {
        match BEST.load(Ordering::Relaxed) {
            1 => Isa::Scalar,
            2 => Isa::Avx2,
            3 => Isa::Avx512,
            _ => {
                let isa = [Isa::Avx512, Isa::Avx2]
                    .into_iter()
                    .find(|i| i.available())
                    .unwrap_or(Isa::Scalar);
                BEST.store(isa as u8 + 1, Ordering::Relaxed);
                isa
            }
        }
    }

    /// Whether this CPU can run the loops for `self`.
    pub fn available(self) -> bool {
        match self {
            Isa::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }
}

/// `x[i] = f(x[i])` for every element, in f32.
pub fn apply_f32(f: MathFn, x: &mut [f32]) {
    apply_f32_on(Isa::best(), f, x)
}

/// `x[i] = f(x[i])` for every element, in f64.
pub fn apply_f64(f: MathFn, x: &mut [f64]) {
    apply_f64_on(Isa::best(), f, x)
}

/// `a[i] = a[i] ** b[i]` (IEEE `pow`), in f32. `a` and `b` have one length.
///
/// The scalar libm for now: the vector path (`pow_f32_on`, exp(b log a) in
/// f64 lanes) is correct to 0.5 ulp but measured slower than glibc's powf
/// (9.2 against 6.2 ms per 1M on this AMD EPYC), its f32 <-> f64 blocks and
/// special-lane pass costing more than they save.
pub fn pow_f32(a: &mut [f32], b: &[f32]) {
    pow_f32_on(Isa::Scalar, a, b)
}

/// f32 `x ** 3`, as every executor computes it: through f64, where x^2 is
/// exact, so x^3 rounds twice (to f64, then f32) and differs from the
/// correctly rounded cube only where its f64 lands on an f32 tie. glibc's
/// powf (0.82 ulp) is no closer, and in a fused kernel this is one vector
/// loop instead of a libm call per element (GELU's `x ** 3`).
#[inline(always)]
pub fn cube_f32(x: f32) -> f32 {
    let x = x as f64;
    (x * x * x) as f32
}

/// `a[i] = a[i] ** b[i]` (IEEE `pow`), in f64: the scalar libm (a vector
/// pow in f64 needs a double-double log, not written yet).
pub fn pow_f64(a: &mut [f64], b: &[f64]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = x.powf(y);
    }
}

/// `a[i] = a[i] % b[i]` with Python's meaning: the result has the sign of
/// the divisor (`-1 % 3 == 2`, `1 % -3 == -2`), computed as C's exact
/// `fmod` plus one correction, as CPython does. `b == 0` gives NaN.
pub fn rem_f32(a: &mut [f32], b: &[f32]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = py_rem(*x as f64, y as f64) as f32;
    }
}

/// `rem_f32` in f64.
pub fn rem_f64(a: &mut [f64], b: &[f64]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = py_rem(*x, y);
    }
}

// f32 goes through f64 above: fmod is exact in either, and the correction
// `m + b` rounds once to f32 after being exact in f64, so the result is
// CPython's on the f32 values.
fn py_rem(a: f64, b: f64) -> f64 {
    let m = a % b;
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) { m + b } else { m }
    } else {
        0.0f64.copysign(b)
    }
}

/// `apply_f32` on a chosen ISA (the scalar loop if this CPU lacks it).
pub fn apply_f32_on(isa: Isa, f: MathFn, x: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if isa.available() {
        match isa {
            // SAFETY: `available` checked the features the entry point enables.
            Isa::Avx512 => return unsafe { avx512::apply_f32(f, x) },
            // SAFETY: as above.
            Isa::Avx2 => return unsafe { avx2::apply_f32(f, x) },
            Isa::Scalar => {}
        }
    }
    let _ = isa;
    scalar_f32(f, x)
}

/// `apply_f64` on a chosen ISA (the scalar loop if this CPU lacks it).
pub fn apply_f64_on(isa: Isa, f: MathFn, x: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if isa.available() {
        match isa {
            // SAFETY: `available` checked the features the entry point enables.
            Isa::Avx512 => return unsafe { avx512::apply_f64(f, x) },
            // SAFETY: as above.
            Isa::Avx2 => return unsafe { avx2::apply_f64(f, x) },
            Isa::Scalar => {}
        }
    }
    let _ = isa;
    scalar_f64(f, x)
}

/// `pow_f32` on a chosen ISA (the scalar loop if this CPU lacks it).
pub fn pow_f32_on(isa: Isa, a: &mut [f32], b: &[f32]) {
    let n = a.len().min(b.len());
    let (a, b) = (&mut a[..n], &b[..n]);
    #[cfg(target_arch = "x86_64")]
    if isa.available() {
        match isa {
            // SAFETY: `available` checked the features the entry point enables.
            Isa::Avx512 => return unsafe { avx512::pow_f32(a, b) },
            // SAFETY: as above.
            Isa::Avx2 => return unsafe { avx2::pow_f32(a, b) },
            Isa::Scalar => {}
        }
    }
    let _ = isa;
    for (x, &y) in a.iter_mut().zip(b) {
        *x = if y == 3.0 { cube_f32(*x) } else { x.powf(y) };
    }
}

fn scalar_f32(f: MathFn, x: &mut [f32]) {
    let g: fn(f32) -> f32 = match f {
        MathFn::Exp => f32::exp,
        MathFn::Log => f32::ln,
        MathFn::Sin => f32::sin,
        MathFn::Cos => f32::cos,
        MathFn::Tan => f32::tan,
        MathFn::Tanh => f32::tanh,
        MathFn::Erf => libm::erff,
    };
    for v in x {
        *v = g(*v);
    }
}

fn scalar_f64(f: MathFn, x: &mut [f64]) {
    let g = scalar_fn_f64(f);
    for v in x {
        *v = g(*v);
    }
}

fn scalar_fn_f64(f: MathFn) -> fn(f64) -> f64 {
    match f {
        MathFn::Exp => f64::exp,
        MathFn::Log => f64::ln,
        MathFn::Sin => f64::sin,
        MathFn::Cos => f64::cos,
        MathFn::Tan => f64::tan,
        MathFn::Tanh => f64::tanh,
        MathFn::Erf => libm::erf,
    }
}

/// The slice loops shared by every ISA: whole vectors, then the tail
/// through a padded buffer so it takes the same path (and gives the same
/// results) as the body.
#[cfg(target_arch = "x86_64")]
mod drive {
    use super::simd::{Lock, Vf};

    /// `x[i] = f(x[i])`, one vector at a time (the tails of `map_lock`).
    ///
    /// # Safety
    /// The CPU must run `V`'s ISA.
    #[inline(always)]
    pub(super) unsafe fn map<V: Vf>(x: &mut [V::S], f: impl Fn(V) -> V) {
        let mut chunks = x.chunks_exact_mut(V::N);
        for c in &mut chunks {
            // SAFETY: `c` holds exactly N lanes; the caller vouches for the ISA.
            unsafe { f(V::load(c.as_ptr())).store(c.as_mut_ptr()) }
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            let mut buf = [V::S::default(); 16];
            buf[..rest.len()].copy_from_slice(rest);
            // SAFETY: `buf` holds 16 >= N lanes.
            unsafe { f(V::load(buf.as_ptr())).store(buf.as_mut_ptr()) }
            rest.copy_from_slice(&buf[..rest.len()]);
        }
    }

    /// `x[i] = f(x[i])` with the kernel run on `K` vectors in lockstep
    /// (`Lock`): `fk` is the kernel on a `Lock<V, K>`, `f` the same kernel on
    /// one `V` for the tail.
    ///
    /// # Safety
    /// As for `map`.
    #[inline(always)]
    pub(super) unsafe fn map_lock<V: Vf, const K: usize>(
        x: &mut [V::S],
        fk: impl Fn(Lock<V, K>) -> Lock<V, K>,
        f: impl Fn(V) -> V,
    ) where
        Lock<V, K>: Vf<S = V::S>,
    {
        let mut groups = x.chunks_exact_mut(K * V::N);
        for c in &mut groups {
            let p = c.as_mut_ptr();
            // SAFETY: `c` holds exactly K N lanes; the caller vouches for the ISA.
            unsafe { fk(Lock::load(p)).store(p) }
        }
        // SAFETY: the caller's guarantee.
        unsafe { map::<V>(groups.into_remainder(), f) }
    }

    /// `map_lock`, then the lanes whose |x| exceeds `limit` recomputed by `g`
    /// (arguments the vector reduction does not cover).
    ///
    /// # Safety
    /// As for `map`.
    #[inline(always)]
    pub(super) unsafe fn map_fix<V: Vf, const K: usize>(
        x: &mut [V::S],
        fk: impl Fn(Lock<V, K>) -> Lock<V, K>,
        f: impl Fn(V) -> V,
        limit: f64,
        g: fn(V::S) -> V::S,
    ) where
        Lock<V, K>: Vf<S = V::S>,
        V::S: Into<f64>,
    {
        for c in x.chunks_mut(256) {
            // one pass that vectorises decides whether any lane needs the fix
            let widest = c.iter().fold(0.0f64, |m, &o| m.max(o.into().abs()));
            if widest <= limit {
                // SAFETY: the caller's guarantee.
                unsafe { map_lock::<V, K>(c, &fk, &f) };
                continue;
            }
            let mut orig = [V::S::default(); 256];
            orig[..c.len()].copy_from_slice(c);
            // SAFETY: the caller's guarantee.
            unsafe { map_lock::<V, K>(c, &fk, &f) };
            for (y, &o) in c.iter_mut().zip(&orig) {
                let o64: f64 = o.into();
                if o64.abs() > limit && o64.is_finite() {
                    *y = g(o);
                }
            }
        }
    }

    /// `x[i] = f(x[i])` for f32 through an f64 slice function, in blocks.
    #[inline(always)]
    pub(super) fn via_f64(x: &mut [f32], f: impl Fn(&mut [f64])) {
        let mut buf = [0.0f64; 256];
        for c in x.chunks_mut(256) {
            for (b, &v) in buf.iter_mut().zip(c.iter()) {
                *b = v as f64;
            }
            f(&mut buf[..c.len()]);
            for (v, &b) in c.iter_mut().zip(buf.iter()) {
                *v = b as f32;
            }
        }
    }

    /// `a[i] = a[i] ** b[i]` in f32 as `pow(a, b)` = exp(b log a) in f64 (a
    /// closure from the entry point, so it carries the target features); the lanes that
    /// formula does not cover (a <= 0, non-finite a or b) go to `powf`.
    ///
    /// # Safety
    /// As for `map`.
    #[inline(always)]
    pub(super) unsafe fn pow_f32<V: Vf<S = f64>>(a: &mut [f32], b: &[f32], pow: impl Fn(V, V) -> V) {
        let mut ab = [1.0f64; 256];
        let mut bb = [1.0f64; 256];
        for (ca, cb) in a.chunks_mut(256).zip(b.chunks(256)) {
            for i in 0..ca.len() {
                ab[i] = ca[i] as f64;
                bb[i] = cb[i] as f64;
            }
            // 256 is a multiple of every N; the padding is 1 ** 1
            let len = ca.len().div_ceil(V::N) * V::N;
            for i in ca.len()..len {
                ab[i] = 1.0;
                bb[i] = 1.0;
            }
            let mut i = 0;
            while i < len {
                // SAFETY: i + N <= len <= 256 lanes of each buffer; the caller vouches for the ISA.
                unsafe {
                    let y = pow(V::load(ab.as_ptr().add(i)), V::load(bb.as_ptr().add(i)));
                    y.store(ab.as_mut_ptr().add(i));
                }
                i += V::N;
            }
            for ((x, &y), &r) in ca.iter_mut().zip(cb.iter()).zip(ab.iter()) {
                *x = if *x > 0.0 && x.is_finite() && y.is_finite() {
                    r as f32
                } else {
                    x.powf(y)
                };
            }
        }
    }
}

/// One ISA's entry points: the only functions compiled with its target
/// features, into which the generic kernels inline.
#[cfg(target_arch = "x86_64")]
macro_rules! isa_entry {
    ($name:ident, $feat:literal, $f32:ident, $f64:ident) => {
        mod $name {
            use super::MathFn;
            use super::drive::{map_fix, map_lock, via_f64};
            use super::kernels::*;
            use super::simd::{Lock, $f32, $f64};

            // The kernels are passed as closures, not fn items: a closure
            // inherits this function's target features, so the kernel and
            // its intrinsics inline into it (a fn item is called through a
            // shim compiled without them, 10-30x slower).
            // Each runs on four vectors in lockstep (`Lock`), its tail on one:
            // 1.3x to 2x the throughput of one vector at a time (tanh, erf, log).
            macro_rules! lock {
                ($x:expr, $v:ty, $k:ident) => {
                    map_lock::<$v, 4>($x, |v: Lock<$v, 4>| $k(v), |v| $k(v))
                };
            }
            macro_rules! fix {
                ($x:expr, $v:ty, $k:ident, $limit:expr, $g:expr) => {
                    map_fix::<$v, 4>($x, |v: Lock<$v, 4>| $k(v), |v| $k(v), $limit, $g)
                };
            }

            /// # Safety
            /// The CPU must have the features enabled here.
            #[target_feature(enable = $feat)]
            pub(super) unsafe fn apply_f64(f: MathFn, x: &mut [f64]) {
                // SAFETY: this function runs only with the features (its own contract).
                unsafe {
                    match f {
                        MathFn::Exp => lock!(x, $f64, exp_d),
                        MathFn::Log => lock!(x, $f64, log_d),
                        MathFn::Tanh => lock!(x, $f64, tanh_d),
                        MathFn::Erf => lock!(x, $f64, erf_d),
                        MathFn::Sin => fix!(x, $f64, sin_d, TRIG_LIMIT, f64::sin),
                        MathFn::Cos => fix!(x, $f64, cos_d, TRIG_LIMIT, f64::cos),
                        MathFn::Tan => fix!(x, $f64, tan_d, TRIG_LIMIT, f64::tan),
                    }
                }
            }

            /// # Safety
            /// The CPU must have the features enabled here.
            #[target_feature(enable = $feat)]
            pub(super) unsafe fn apply_f32(f: MathFn, x: &mut [f32]) {
                // SAFETY: as for `apply_f64`.
                unsafe {
                    match f {
                        MathFn::Exp => lock!(x, $f32, exp_s),
                        MathFn::Log => lock!(x, $f32, log_s),
                        MathFn::Tanh => lock!(x, $f32, tanh_s),
                        MathFn::Sin => fix!(x, $f32, sin_s, TRIG_LIMIT_F32, f32::sin),
                        MathFn::Cos => fix!(x, $f32, cos_s, TRIG_LIMIT_F32, f32::cos),
                        // tan in f32 lanes errs by up to 2.8 ulp near odd multiples of pi/2
                        MathFn::Tan | MathFn::Erf => via_f64(x, |b| apply_f64(f, b)),
                    }
                }
            }

            /// # Safety
            /// The CPU must have the features enabled here; `a` and `b` have one length.
            #[target_feature(enable = $feat)]
            pub(super) unsafe fn pow_f32(a: &mut [f32], b: &[f32]) {
                // SAFETY: as for `apply_f64`.
                unsafe { super::drive::pow_f32::<$f64>(a, b, |x, y| exp_d(y * log_d(x))) }
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
isa_entry!(avx2, "avx2,fma", F32x8, F64x4);
#[cfg(target_arch = "x86_64")]
isa_entry!(avx512, "avx512f", F32x16, F64x8);
