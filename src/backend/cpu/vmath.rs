//! Vectorised math over slices for the CPU backend's fused kernels: the
//! transcendental functions that would otherwise be one scalar libm call per
//! element. Each function works in place on a block of values (a kernel's
//! per-thread register), so a fused kernel applies it between its other
//! instructions without an extra buffer.
//!
//! This is the interface; the bodies here are the scalar fallback that every
//! machine runs. Faster versions (AVX2+FMA, AVX-512, chosen at run time) must
//! keep these signatures and the accuracy stated in `MathFn::max_ulp`.

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
    /// The largest error, in units in the last place of the result's dtype,
    /// that `apply_f32` / `apply_f64` may make against the exact value
    /// (within the function's documented domain).
    pub fn max_ulp(self) -> u32 {
        4
    }
}

/// `x[i] = f(x[i])` for every element, in f32.
pub fn apply_f32(f: MathFn, x: &mut [f32]) {
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

/// `x[i] = f(x[i])` for every element, in f64.
pub fn apply_f64(f: MathFn, x: &mut [f64]) {
    let g: fn(f64) -> f64 = match f {
        MathFn::Exp => f64::exp,
        MathFn::Log => f64::ln,
        MathFn::Sin => f64::sin,
        MathFn::Cos => f64::cos,
        MathFn::Tan => f64::tan,
        MathFn::Tanh => f64::tanh,
        MathFn::Erf => libm::erf,
    };
    for v in x {
        *v = g(*v);
    }
}

/// `a[i] = a[i] ** b[i]` (IEEE `pow`), in f32. `a` and `b` have one length.
pub fn pow_f32(a: &mut [f32], b: &[f32]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = x.powf(y);
    }
}

/// `a[i] = a[i] ** b[i]` (IEEE `pow`), in f64.
pub fn pow_f64(a: &mut [f64], b: &[f64]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = x.powf(y);
    }
}
