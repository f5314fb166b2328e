//! Reference kernels for every `Op` on host data. Their results define Arr's
//! semantics (NumPy's, unless the op's contract says otherwise); every other
//! backend is tested against them. Inputs are read through their views by
//! strided walks over coalesced layouts; large outputs are filled in parallel
//! with rayon.

// Diagnostic is the project's one error type; whether to box it is a crate-wide decision.
#![allow(clippy::result_large_err)]

use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::Op;
use crate::graph::view::View;
use rayon::prelude::*;
use std::borrow::Cow;
use std::convert::Infallible;

/// Runs `$body` with the type alias `$T` bound to the Rust element type of `$dtype`.
macro_rules! with_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            DType::Bool => {
                type $T = bool;
                $body
            }
            DType::U8 => {
                type $T = u8;
                $body
            }
            DType::I8 => {
                type $T = i8;
                $body
            }
            DType::I16 => {
                type $T = i16;
                $body
            }
            DType::U16 => {
                type $T = u16;
                $body
            }
            DType::I32 => {
                type $T = i32;
                $body
            }
            DType::U32 => {
                type $T = u32;
                $body
            }
            DType::I64 => {
                type $T = i64;
                $body
            }
            DType::F16 => {
                type $T = half::f16;
                $body
            }
            DType::BF16 => {
                type $T = half::bf16;
                $body
            }
            DType::F32 => {
                type $T = f32;
                $body
            }
            DType::F64 => {
                type $T = f64;
                $body
            }
        }
    };
}

mod elementwise;
pub(crate) use elementwise::{division_by_zero, modulo_by_zero, negative_power};
mod reduce;
pub mod sort;
mod structural;
#[cfg(test)]
mod tests;
pub(crate) mod vsort;

/// Outputs at least this large are computed in parallel.
pub(crate) const PAR_THRESHOLD: usize = 32768;
/// Elements per unit of (parallel) work.
pub(crate) const CHUNK: usize = 4096;

pub(crate) fn internal(message: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::spanless("E0499", format!("internal: {message}"))
}

/// A scalar of any dtype, widened losslessly; the hub every cast goes through.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Val {
    B(bool),
    I(i64),
    F(f64),
}

/// A Rust element type of one of Arr's dtypes.
pub(crate) trait Elem: Copy + Default + PartialOrd + Send + Sync + std::fmt::Debug + 'static {
    const DTYPE: DType;
    fn to_val(self) -> Val;
    /// NumPy's cast: floats truncate toward zero (saturating, NaN -> 0 here),
    /// integers wrap, anything -> bool is `!= 0`, bool -> number is 0/1.
    fn from_val(v: Val) -> Self;
    fn wrap(v: Vec<Self>) -> HostData;
    fn slice(d: &HostData) -> Option<&[Self]>;
}

macro_rules! impl_elem {
    ($t:ty, $variant:ident, $to:expr, $from_b:expr, $from_i:expr, $from_f:expr) => {
        impl Elem for $t {
            const DTYPE: DType = DType::$variant;
            #[inline(always)]
            fn to_val(self) -> Val {
                $to(self)
            }
            #[inline(always)]
            fn from_val(v: Val) -> Self {
                match v {
                    Val::B(b) => $from_b(b),
                    Val::I(i) => $from_i(i),
                    Val::F(f) => $from_f(f),
                }
            }
            fn wrap(v: Vec<Self>) -> HostData {
                HostData::$variant(v)
            }
            fn slice(d: &HostData) -> Option<&[Self]> {
                match d {
                    HostData::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

impl_elem!(bool, Bool, Val::B, |b| b, |i| i != 0, |f| f != 0.0);
impl_elem!(i32, I32, |x| Val::I(x as i64), |b| b as i32, |i| i as i32, |f| f as i32);
impl_elem!(i64, I64, Val::I, |b| b as i64, |i| i, |f| f as i64);
// The narrow integers only load, store and cast: `eval` computes their values in i64.
impl_elem!(u8, U8, |x| Val::I(x as i64), |b| b as u8, |i| i as u8, |f| f as u8);
impl_elem!(i8, I8, |x| Val::I(x as i64), |b| b as i8, |i| i as i8, |f| f as i8);
impl_elem!(i16, I16, |x| Val::I(x as i64), |b| b as i16, |i| i as i16, |f| f as i16);
impl_elem!(u16, U16, |x| Val::I(x as i64), |b| b as u16, |i| i as u16, |f| f as u16);
impl_elem!(u32, U32, |x| Val::I(x as i64), |b| b as u32, |i| i as u32, |f| f as u32);
impl_elem!(f32, F32, |x| Val::F(x as f64), |b| b as u8 as f32, |i| i as f32, |f| f
    as f32);
impl_elem!(f64, F64, Val::F, |b| b as u8 as f64, |i| i as f64, |f| f);
// The half floats only load, store and cast: `eval` computes their values in f32.
impl_elem!(
    half::f16,
    F16,
    |x: half::f16| Val::F(x.to_f64()),
    |b| half::f16::from_f32(b as u8 as f32),
    |i| crate::graph::data::f16_from_f64(i as f64),
    crate::graph::data::f16_from_f64
);
impl_elem!(
    half::bf16,
    BF16,
    |x: half::bf16| Val::F(x.to_f64()),
    |b| half::bf16::from_f32(b as u8 as f32),
    |i| crate::graph::data::bf16_from_f64(i as f64),
    crate::graph::data::bf16_from_f64
);

/// Arithmetic shared by the integer and float dtypes (integers wrap).
pub(crate) trait Num: Elem {
    /// What sums and products accumulate in (f32 in f64 for accuracy).
    type Acc: Num;
    const ZERO: Self;
    const ONE: Self;
    fn add(self, b: Self) -> Self;
    fn sub(self, b: Self) -> Self;
    fn mul(self, b: Self) -> Self;
    fn neg(self) -> Self;
    fn abs(self) -> Self;
    fn sign(self) -> Self;
    /// NaN-propagating minimum/maximum (`np.minimum`, `np.maximum`).
    fn minimum(self, b: Self) -> Self;
    fn maximum(self, b: Self) -> Self;
    /// Python's modulo (sign of the divisor); `None` for integer modulo by zero.
    fn rem(self, b: Self) -> Option<Self>;
    /// Python's floor division (`np.floor_divide`); `None` for integer division by zero.
    fn floor_div(self, b: Self) -> Option<Self>;
    /// `None` for a negative integer exponent.
    fn pow(self, b: Self) -> Option<Self>;
    fn is_nan(self) -> bool;
    fn to_acc(self) -> Self::Acc;
    fn from_acc(a: Self::Acc) -> Self;
}

macro_rules! impl_int {
    ($t:ty, $acc:ty) => {
        impl Num for $t {
            type Acc = $acc;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            fn add(self, b: Self) -> Self {
                self.wrapping_add(b)
            }
            fn sub(self, b: Self) -> Self {
                self.wrapping_sub(b)
            }
            fn mul(self, b: Self) -> Self {
                self.wrapping_mul(b)
            }
            fn neg(self) -> Self {
                self.wrapping_neg()
            }
            fn abs(self) -> Self {
                self.wrapping_abs()
            }
            fn sign(self) -> Self {
                self.signum()
            }
            fn minimum(self, b: Self) -> Self {
                Ord::min(self, b)
            }
            fn maximum(self, b: Self) -> Self {
                Ord::max(self, b)
            }
            fn rem(self, b: Self) -> Option<Self> {
                if b == 0 {
                    return None;
                }
                // wrapping_rem: MIN % -1 is 0, not an overflow
                let r = self.wrapping_rem(b);
                Some(if r != 0 && ((r < 0) != (b < 0)) { r + b } else { r })
            }
            fn floor_div(self, b: Self) -> Option<Self> {
                if b == 0 {
                    return None;
                }
                // wrapping_div: MIN // -1 wraps to MIN, as NumPy's does
                let q = self.wrapping_div(b);
                Some(if self.wrapping_rem(b) != 0 && ((self < 0) != (b < 0)) {
                    q - 1
                } else {
                    q
                })
            }
            fn pow(self, b: Self) -> Option<Self> {
                if b < 0 {
                    return None;
                }
                let (mut base, mut e, mut acc): (Self, Self, Self) = (self, b, 1);
                while e > 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    e >>= 1;
                    if e > 0 {
                        base = base.wrapping_mul(base);
                    }
                }
                Some(acc)
            }
            fn is_nan(self) -> bool {
                false
            }
            fn to_acc(self) -> $acc {
                self as $acc
            }
            fn from_acc(a: $acc) -> Self {
                a as Self
            }
        }
    };
}

impl_int!(i32, i64);
impl_int!(i64, i64);

/// The float-only functions.
pub(crate) trait Float: Num {
    fn div(self, b: Self) -> Self;
    fn erf(self) -> Self;
    fn atan2(self, b: Self) -> Self;
    fn hypot(self, b: Self) -> Self;
    /// `rem` where `self / b` truncates to an integer the mantissa holds and
    /// `b` is finite, else NaN: branch-free, so a block loop vectorises it
    /// and takes `rem` only for its NaN lanes.
    fn rem_or_nan(self, b: Self) -> Self;
}

/// C's `fmod(a, b)`, exactly, without the bit-by-bit division of the soft
/// `fmod` (about 15 ns an element) where the quotient fits the mantissa.
///
/// `q = trunc(fl(a / b))` is the true truncated quotient `n`, or `n + 1` in
/// magnitude when `a / b` rounds up onto an integer. Either way `a - q * b` is
/// a multiple of the smaller of the two ulps no larger than `|b|`, hence
/// representable, so one fused multiply-add gives it exactly; in the second
/// case adding `b` towards `a`'s sign lands exactly on the representable
/// `fmod`. NaN, infinite and zero operands, and quotients beyond the
/// mantissa, take the exact libm path.
macro_rules! fmod {
    ($t:ty, $a:expr, $b:expr) => {{
        let (a, b): ($t, $t) = ($a, $b);
        let q = <$t>::trunc(a / b);
        if fmod_fits!($t, q, b) {
            fmod_of_quotient!($t, a, b, q)
        } else {
            a % b
        }
    }};
}

/// Whether `fmod_of_quotient` is exact for the quotient `q` (NaN: no).
macro_rules! fmod_fits {
    ($t:ty, $q:expr, $b:expr) => {
        $q.abs() < (1u64 << (<$t>::MANTISSA_DIGITS - 1)) as $t && $b.is_finite()
    };
}

/// `fmod(a, b)` from `q = trunc(fl(a / b))`, where `fmod_fits`.
macro_rules! fmod_of_quotient {
    ($t:ty, $a:expr, $b:expr, $q:expr) => {{
        let (a, b, q): ($t, $t, $t) = ($a, $b, $q);
        let r = <$t>::mul_add(-q, b, a);
        if r == 0.0 {
            <$t>::copysign(0.0, a)
        } else if (r < 0.0) != (a < 0.0) {
            r + <$t>::copysign(b, a)
        } else {
            r
        }
    }};
}

/// NumPy's npy_divmod remainder from C's `fmod` result `m`: moved to the
/// divisor's sign.
macro_rules! py_rem_of_fmod {
    ($t:ty, $m:expr, $b:expr) => {{
        let (m, b): ($t, $t) = ($m, $b);
        if m != 0.0 {
            if (b < 0.0) != (m < 0.0) { m + b } else { m }
        } else {
            <$t>::copysign(0.0, b)
        }
    }};
}

macro_rules! impl_float {
    ($t:ty, $erf:path) => {
        impl Num for $t {
            type Acc = f64;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            fn add(self, b: Self) -> Self {
                self + b
            }
            fn sub(self, b: Self) -> Self {
                self - b
            }
            fn mul(self, b: Self) -> Self {
                self * b
            }
            fn neg(self) -> Self {
                -self
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn sign(self) -> Self {
                // like np.sign: -0.0 -> 0.0, NaN -> NaN
                if self > 0.0 {
                    1.0
                } else if self < 0.0 {
                    -1.0
                } else if self == 0.0 {
                    0.0
                } else {
                    self
                }
            }
            // np.minimum's rule (and CUDA's arr_min): self when it is NaN or
            // strictly smaller, else b, so b's NaN too, and b on a tie, where the
            // sign of a zero tells: minimum(0.0, -0.0) is -0.0, minimum(-0.0, 0.0) is 0.0
            fn minimum(self, b: Self) -> Self {
                if self.is_nan() || self < b { self } else { b }
            }
            fn maximum(self, b: Self) -> Self {
                if self.is_nan() || self > b { self } else { b }
            }
            fn rem(self, b: Self) -> Option<Self> {
                // NumPy's npy_divmod: fmod, then move the result to the divisor's sign
                let m = fmod!($t, self, b);
                if b == 0.0 {
                    return Some(m);
                }
                Some(py_rem_of_fmod!($t, m, b))
            }
            fn floor_div(self, b: Self) -> Option<Self> {
                // NumPy's npy_floor_divide (npy_divmod's quotient), step by step
                let (a, b) = (self, b);
                if b == 0.0 {
                    return Some(a / b);
                }
                let m = fmod!($t, a, b);
                let mut div = (a - m) / b;
                if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
                    div -= 1.0;
                }
                Some(if div != 0.0 {
                    let f = <$t>::floor(div);
                    if div - f > 0.5 { f + 1.0 } else { f }
                } else {
                    <$t>::copysign(0.0, a / b)
                })
            }
            #[inline(always)]
            fn pow(self, b: Self) -> Option<Self> {
                if std::mem::size_of::<$t>() == 4 && b == 3.0 {
                    return Some(super::vmath::cube_f32(self as f32) as $t);
                }
                Some(<$t>::powf(self, b))
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            fn to_acc(self) -> f64 {
                self as f64
            }
            fn from_acc(a: f64) -> Self {
                a as Self
            }
        }

        impl Float for $t {
            fn div(self, b: Self) -> Self {
                self / b
            }
            fn erf(self) -> Self {
                $erf(self)
            }
            fn atan2(self, b: Self) -> Self {
                <$t>::atan2(self, b)
            }
            fn hypot(self, b: Self) -> Self {
                <$t>::hypot(self, b)
            }
            #[inline(always)]
            fn rem_or_nan(self, b: Self) -> Self {
                let q = <$t>::trunc(self / b);
                let m = py_rem_of_fmod!($t, fmod_of_quotient!($t, self, b, q), b);
                if fmod_fits!($t, q, b) { m } else { <$t>::NAN }
            }
        }
    };
}

impl_float!(f32, libm::erff);
impl_float!(f64, libm::erf);

/// A view with its axes coalesced (size-1 axes dropped, axes that step
/// through memory as one merged), so walks run long inner loops.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    shape: Vec<usize>,
    strides: Vec<isize>,
    base: isize,
}

impl Layout {
    pub(crate) fn new(shape: &[usize], strides: &[isize], base: isize) -> Layout {
        let (mut dims, mut steps): (Vec<usize>, Vec<isize>) = (Vec::new(), Vec::new());
        for (&d, &s) in shape.iter().zip(strides) {
            if d == 1 {
                continue;
            }
            if let (Some(last_d), Some(last_s)) = (dims.last_mut(), steps.last_mut())
                && *last_s == s * d as isize
            {
                *last_d *= d;
                *last_s = s;
                continue;
            }
            dims.push(d);
            steps.push(s);
        }
        if dims.is_empty() {
            dims.push(1);
            steps.push(1);
        }
        Layout {
            shape: dims,
            strides: steps,
            base,
        }
    }

    pub(crate) fn of(view: &View) -> Layout {
        Layout::new(&view.shape, &view.strides, view.offset as isize)
    }

    pub(crate) fn size(&self) -> usize {
        self.shape.iter().product()
    }

    fn contiguous(&self) -> bool {
        self.shape.len() == 1 && self.strides[0] == 1
    }

    /// Calls `f` with the offset of elements `start..start + len` (row-major order).
    pub(crate) fn walk(&self, start: usize, len: usize, f: impl FnMut(isize)) {
        self.walk_at(self.base, start, len, f)
    }

    /// Like `walk`, with `base` in place of the layout's own base offset.
    pub(crate) fn walk_at(&self, base: isize, start: usize, len: usize, mut f: impl FnMut(isize)) {
        if len == 0 {
            return;
        }
        let rank = self.shape.len();
        let mut index = vec![0usize; rank];
        let mut rest = start;
        let mut off = base;
        for ax in (0..rank).rev() {
            index[ax] = rest % self.shape[ax];
            rest /= self.shape[ax];
            off += index[ax] as isize * self.strides[ax];
        }
        let last = rank - 1;
        let (dim, step) = (self.shape[last], self.strides[last]);
        let mut remaining = len;
        loop {
            let run = (dim - index[last]).min(remaining);
            for k in 0..run {
                f(off + k as isize * step);
            }
            remaining -= run;
            if remaining == 0 {
                return;
            }
            // the inner run ended at the end of its axis: carry into the outer axes
            off -= index[last] as isize * step;
            index[last] = 0;
            let mut ax = last;
            while ax > 0 {
                ax -= 1;
                index[ax] += 1;
                off += self.strides[ax];
                if index[ax] < self.shape[ax] {
                    break;
                }
                off -= self.strides[ax] * self.shape[ax] as isize;
                index[ax] = 0;
            }
        }
    }

    /// Elements `start..start + len` of `data` seen through the layout, borrowed when contiguous.
    pub(crate) fn load<'a, T: Copy>(&self, data: &'a [T], start: usize, len: usize) -> Cow<'a, [T]> {
        if len == 0 {
            return Cow::Borrowed(&[]);
        }
        if self.contiguous() {
            let s = self.base as usize + start;
            return Cow::Borrowed(&data[s..s + len]);
        }
        let mut out = Vec::with_capacity(len);
        self.walk(start, len, |off| out.push(data[off as usize]));
        Cow::Owned(out)
    }
}

/// A fresh vector of `n` elements filled `chunk` elements at a time by
/// `f(start, chunk)`, in parallel when `parallel`; the first error wins.
pub(crate) fn try_fill<O: Elem, E: Send>(
    n: usize,
    chunk: usize,
    parallel: bool,
    f: impl Fn(usize, &mut [O]) -> Result<(), E> + Sync + Send,
) -> Result<Vec<O>, E> {
    let mut out = vec![O::default(); n];
    if n == 0 {
        return Ok(out);
    }
    let chunk = chunk.max(1);
    // the caller's measure of the work says whether it pays on an idle
    // machine; on a busy one the element count is the measure
    if parallel && crate::backend::cpu::contention::busy_allows(n, PAR_THRESHOLD) {
        try_fill_parallel(&mut out, chunk, &f)?;
    } else {
        for (c, part) in out.chunks_mut(chunk).enumerate() {
            f(c * chunk, part)?;
        }
    }
    Ok(out)
}

/// A chunk function of `try_fill`: (first element, the chunk to fill).
type FillChunk<'a, O, E> = dyn Fn(usize, &mut [O]) -> Result<(), E> + Sync + 'a;

/// `try_fill`'s parallel loop, taking the chunk function by reference to a
/// trait object: rayon's machinery is then instantiated once per element and
/// error type instead of once per caller's closure (326 of the crate's 832
/// rayon pipelines before, by `cargo llvm-lines`).
fn try_fill_parallel<O: Elem, E: Send>(out: &mut [O], chunk: usize, f: &FillChunk<'_, O, E>) -> Result<(), E> {
    out.par_chunks_mut(chunk)
        .enumerate()
        .try_for_each(|(c, part)| f(c * chunk, part))
}

pub(crate) fn fill<O: Elem>(
    n: usize,
    chunk: usize,
    parallel: bool,
    f: impl Fn(usize, &mut [O]) + Sync + Send,
) -> Vec<O> {
    match try_fill::<O, Infallible>(n, chunk, parallel, |s, part| {
        f(s, part);
        Ok(())
    }) {
        Ok(v) => v,
        Err(never) => match never {},
    }
}

/// `f` of each element `va` sees, contiguous.
pub(crate) fn map1<A: Elem, O: Elem>(a: &[A], va: &View, f: impl Fn(A) -> O + Sync + Send) -> Vec<O> {
    let la = Layout::of(va);
    let n = la.size();
    fill(n, CHUNK, n >= PAR_THRESHOLD, |s, out| {
        let xs = la.load(a, s, out.len());
        for (o, &x) in out.iter_mut().zip(xs.iter()) {
            *o = f(x);
        }
    })
}

/// `f` elementwise over two views of the same shape.
pub(crate) fn map2<A: Elem, B: Elem, O: Elem>(
    a: &[A],
    va: &View,
    b: &[B],
    vb: &View,
    f: impl Fn(A, B) -> O + Sync + Send,
) -> Vec<O> {
    let (la, lb) = (Layout::of(va), Layout::of(vb));
    let n = la.size();
    fill(n, CHUNK, n >= PAR_THRESHOLD, |s, out| {
        let (xs, ys) = (la.load(a, s, out.len()), lb.load(b, s, out.len()));
        for ((o, &x), &y) in out.iter_mut().zip(xs.iter()).zip(ys.iter()) {
            *o = f(x, y);
        }
    })
}

/// `map2` for functions that can fail.
pub(crate) fn try_map2<A: Elem, B: Elem, O: Elem>(
    a: &[A],
    va: &View,
    b: &[B],
    vb: &View,
    f: impl Fn(A, B) -> Result<O, Diagnostic> + Sync + Send,
) -> Result<Vec<O>, Diagnostic> {
    let (la, lb) = (Layout::of(va), Layout::of(vb));
    let n = la.size();
    try_fill(n, CHUNK, n >= PAR_THRESHOLD, |s, out| {
        let (xs, ys) = (la.load(a, s, out.len()), lb.load(b, s, out.len()));
        for ((o, &x), &y) in out.iter_mut().zip(xs.iter()).zip(ys.iter()) {
            *o = f(x, y)?;
        }
        Ok(())
    })
}

/// `f` elementwise over three views of the same shape.
pub(crate) fn map3<A: Elem, B: Elem, C: Elem, O: Elem>(
    (a, va): (&[A], &View),
    (b, vb): (&[B], &View),
    (c, vc): (&[C], &View),
    f: impl Fn(A, B, C) -> O + Sync + Send,
) -> Vec<O> {
    let (la, lb, lc) = (Layout::of(va), Layout::of(vb), Layout::of(vc));
    let n = la.size();
    fill(n, CHUNK, n >= PAR_THRESHOLD, |s, out| {
        let len = out.len();
        let (xs, ys, zs) = (la.load(a, s, len), lb.load(b, s, len), lc.load(c, s, len));
        for (((o, &x), &y), &z) in out.iter_mut().zip(xs.iter()).zip(ys.iter()).zip(zs.iter()) {
            *o = f(x, y, z);
        }
    })
}

/// The typed slice of `data`, or an internal error naming the expected dtype.
pub(crate) fn typed<T: Elem>(data: &HostData) -> Result<&[T], Diagnostic> {
    T::slice(data).ok_or_else(|| internal(format!("expected {} data, got {}", T::DTYPE, data.dtype())))
}

/// Rejects views that reach outside their buffer, so no kernel can index out of bounds.
fn check_view(len: usize, view: &View) -> Result<(), Diagnostic> {
    if view.shape.len() != view.strides.len() {
        return Err(internal("a view's shape and strides differ in rank"));
    }
    check_reach(len, &view.shape, &view.strides, view.offset)
}

/// Rejects elements at `offset` with these sizes and strides that would reach
/// outside a buffer of `len`: the bound every CPU kernel's indexing relies on.
pub(crate) fn check_reach(len: usize, shape: &[usize], strides: &[isize], offset: usize) -> Result<(), Diagnostic> {
    if shape.contains(&0) {
        return Ok(());
    }
    let (mut lo, mut hi) = (offset as i128, offset as i128);
    for (&d, &s) in shape.iter().zip(strides) {
        let reach = (d as i128 - 1) * s as i128;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    if lo < 0 || hi >= len as i128 {
        return Err(internal(format!(
            "a view of shape {shape:?} reaches outside its buffer of {len}"
        )));
    }
    Ok(())
}

fn expect_shape(view: &View, shape: &[usize]) -> Result<(), Diagnostic> {
    if view.shape[..] != *shape {
        return Err(internal(format!(
            "input view has shape {:?} where {:?} was expected",
            view.shape, shape
        )));
    }
    Ok(())
}

/// Element `i` of `data` cast to `dtype`, exactly as `Op::Cast` computes it;
/// `None` when `i` is out of range.
pub fn cast_one(dtype: DType, data: &HostData, i: usize) -> Option<HostData> {
    elementwise::cast_one(dtype, data, i)
}

/// Computes `op` into a fresh contiguous vector of `dtype` and `shape`.
/// `inputs` are each input's data and the view through which the op reads it.
pub fn eval(op: &Op, dtype: DType, shape: &[usize], inputs: &[(&HostData, &View)]) -> Result<HostData, Diagnostic> {
    for (data, view) in inputs {
        check_view(data.len(), view)?;
    }
    let arity = match op {
        Op::Buffer | Op::Arange { .. } | Op::Random { .. } => 0,
        Op::Copy | Op::Cast | Op::Unary(_) | Op::Reduce { .. } | Op::Scan { .. } => 1,
        Op::Binary(_) | Op::MatMul | Op::Take { .. } => 2,
        Op::Where | Op::Segment { .. } => 3,
        Op::Concat { .. } => inputs.len().max(1),
    };
    if inputs.len() != arity {
        return Err(internal(format!("{op:?} got {} inputs", inputs.len())));
    }
    if op.is_elementwise() {
        for (_, view) in inputs {
            expect_shape(view, shape)?;
        }
    }
    let n: usize = shape.iter().product();
    if n == 0 {
        // An empty result may still have huge axes (shape (2^40, 0)); loops over them are wasted.
        return Ok(HostData::zeros(dtype, 0));
    }
    if !matches!(op, Op::Cast | Op::Copy)
        && (dtype.is_storage_only() || inputs.iter().any(|(d, _)| d.dtype().is_storage_only()))
    {
        return eval_storage(op, dtype, shape, inputs);
    }
    let out = match op {
        Op::Buffer => return Err(internal("a Buffer node has nothing to compute")),
        Op::Copy => gather(inputs[0].0, inputs[0].1),
        Op::Cast => elementwise::cast(dtype, inputs[0].0, inputs[0].1),
        Op::Unary(u) => elementwise::unary(*u, inputs[0].0, inputs[0].1)?,
        Op::Binary(b) => elementwise::binary(*b, inputs[0], inputs[1])?,
        Op::Where => elementwise::select(inputs[0], inputs[1], inputs[2])?,
        Op::Reduce { op, axes } => reduce::reduce(*op, axes, inputs[0].0, inputs[0].1, dtype)?,
        Op::Scan { op, axis } => reduce::scan(*op, *axis, inputs[0].0, inputs[0].1)?,
        Op::MatMul => structural::matmul(inputs[0], inputs[1])?,
        Op::Concat { axis } => structural::concat(*axis, dtype, shape, inputs)?,
        Op::Arange { start, step } => structural::arange(dtype, n, *start, *step),
        Op::Random { key, dist } => structural::random(dtype, n, *key, *dist)?,
        Op::Take { axis } => structural::take(*axis, inputs[0], inputs[1])?,
        Op::Segment { op, .. } => reduce::segment(*op, inputs[0], inputs[1])?,
    };
    if out.dtype() != dtype || out.len() != n {
        return Err(internal(format!(
            "{op:?} computed {} {} elements where {n} {dtype} were expected",
            out.len(),
            out.dtype()
        )));
    }
    Ok(out)
}

/// An op on a storage-only dtype: its buffers widened (views unchanged),
/// the wide kernel, its result stored once as the narrow dtype.
///
/// For the half floats every kernel thus sees f32 values only, and each op
/// rounds once, as NumPy and PyTorch do: for `+ - * /` and `sqrt` f32 holds
/// the exact result well enough (24 >= 2 * 11 + 2 bits) that this equals
/// f16 arithmetic rounded directly; sums and means accumulate as f32's do
/// (in f64 here). For the narrow integers the i64 result wrapped to the
/// width is the narrow arithmetic's (see `check::dtype`).
fn eval_storage(op: &Op, dtype: DType, shape: &[usize], inputs: &[(&HostData, &View)]) -> Result<HostData, Diagnostic> {
    let wide: Vec<Option<HostData>> = inputs.iter().map(|(d, _)| d.widen()).collect();
    let args: Vec<(&HostData, &View)> = inputs
        .iter()
        .zip(&wide)
        .map(|(&(d, v), w)| (w.as_ref().unwrap_or(d), v))
        .collect();
    let out = eval(op, dtype.compute(), shape, &args)?.narrow_to(dtype);
    Ok(match (op, out) {
        // an f32 just below 1 rounds up to 1 in a half float; `rand` stays in [0, 1)
        (
            Op::Random {
                dist: crate::graph::op::Distribution::Uniform,
                ..
            },
            out,
        ) => below_one(out),
        (_, out) => out,
    })
}

/// Half-float uniforms that rounded up to 1, moved to the largest value below 1.
fn below_one(data: HostData) -> HostData {
    match data {
        HostData::F16(mut v) => {
            let top = half::f16::from_bits(half::f16::ONE.to_bits() - 1);
            v.iter_mut().filter(|x| **x >= half::f16::ONE).for_each(|x| *x = top);
            HostData::F16(v)
        }
        HostData::BF16(mut v) => {
            let top = half::bf16::from_bits(half::bf16::ONE.to_bits() - 1);
            v.iter_mut().filter(|x| **x >= half::bf16::ONE).for_each(|x| *x = top);
            HostData::BF16(v)
        }
        other => other,
    }
}

/// The elements `view` sees, contiguous in row-major order.
pub fn gather(data: &HostData, view: &View) -> HostData {
    crate::with_data!(data, v => Elem::wrap(map1(v, view, |x| x)))
}

/// Writes `values` (contiguous, `view.size()` long, same dtype) through `view`.
/// Values of another dtype are cast first, as NumPy's assignment does.
pub fn scatter(data: &mut HostData, view: &View, values: &HostData) {
    let cast;
    let values = if values.dtype() == data.dtype() {
        values
    } else {
        cast = elementwise::cast(data.dtype(), values, &View::contiguous(&[values.len()]));
        &cast
    };
    crate::with_data!(data, d => scatter_into(d, view, Elem::slice(values).unwrap_or(&[])));
}

fn scatter_into<T: Copy>(data: &mut [T], view: &View, values: &[T]) {
    let layout = Layout::of(view);
    let n = layout.size().min(values.len());
    if n == 0 {
        return;
    }
    if layout.contiguous() {
        let s = layout.base as usize;
        data[s..s + n].copy_from_slice(&values[..n]);
        return;
    }
    let mut it = values.iter();
    layout.walk(0, n, |off| {
        if let Some(&x) = it.next() {
            data[off as usize] = x;
        }
    });
}
