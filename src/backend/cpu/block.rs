//! One block of a fused kernel: the planner's SSA body evaluated over a run
//! of up to `BLOCK` consecutive elements of the kernel's inner axis.
//!
//! Each operand's offset is computed once per block; a contiguous operand is
//! then a borrowed slice, a stride-0 operand a scalar, and any other stride a
//! gather into the step's register. Every instruction is one tight loop per
//! (op, dtype, operand kind) over the block, monomorphised from the generic
//! helpers below, so LLVM vectorises it; the last instruction of a map writes
//! straight into the output. Transcendentals go through `vmath` a block at a
//! time. The semantics of every op are the reference kernels' (`kernels`),
//! through the same `Num`/`Float` trait methods, so results agree bitwise
//! except where `vmath` documents an error bound.

// Diagnostic is the project's one error type; whether to box it is a crate-wide decision.
#![allow(clippy::result_large_err)]

use super::kernels::{Elem, Float, Num, Val};
use super::vmath::{self, MathFn};
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::{BinaryOp, BitOp, Distribution, ReduceOp, UnaryOp};
use crate::graph::random;
use crate::plan::{Inst, RowStage, Step};
use std::borrow::Cow;
use std::mem::MaybeUninit;

/// Elements per block: registers of a few steps stay in L1/L2.
pub const BLOCK: usize = 2048;

/// Where a block reads one operand from.
#[derive(Clone, Copy)]
pub enum Input<'a> {
    Data(Data<'a>),
    /// Element at offset `o` is `start + o * step` (integer-exact when `exact`).
    Arange {
        start: f64,
        step: f64,
        exact: bool,
    },
    Random {
        key: u64,
        dist: Distribution,
    },
}

/// A typed host buffer.
#[derive(Clone, Copy)]
pub enum Data<'a> {
    B(&'a [bool]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
    /// A storage-only dtype (f16, bf16, a narrow integer): widened as it is
    /// loaded, to the dtype its steps compute in (`register_dtype`).
    Storage(&'a HostData),
}

impl<'a> Data<'a> {
    pub fn of(d: &'a HostData) -> Data<'a> {
        match d {
            HostData::Bool(v) => Data::B(v),
            HostData::I32(v) => Data::I32(v),
            HostData::I64(v) => Data::I64(v),
            HostData::F32(v) => Data::F32(v),
            HostData::F64(v) => Data::F64(v),
            crate::storage_only_data!() => Data::Storage(d),
        }
    }
}

/// An operand bound to its source, with strides and offset in the kernel's iteration space.
#[derive(Clone)]
pub struct Bound<'a> {
    pub input: Input<'a>,
    pub dtype: DType,
    /// Borrowed from the plan's view (a rank-0 kernel gets one axis, `[0]`).
    pub strides: Cow<'a, [isize]>,
    pub offset: isize,
}

/// A view's strides as a kernel iterates them: a rank-0 kernel runs over one axis of one element.
pub fn iteration_strides(strides: &[isize]) -> Cow<'_, [isize]> {
    if strides.is_empty() {
        Cow::Owned(vec![0])
    } else {
        Cow::Borrowed(strides)
    }
}

/// A step's value over a block: a run of values, or one value for all.
#[derive(Clone, Copy)]
pub enum Src<'a, T> {
    Slice(&'a [T]),
    Scalar(T),
}

impl<'a, T: Copy> Src<'a, T> {
    /// The `i`th value of the block.
    pub(crate) fn at(&self, i: usize) -> T {
        match self {
            Src::Slice(x) => x[i],
            Src::Scalar(x) => *x,
        }
    }

    /// The `len` values from the `start`th (one value stays one value).
    pub(crate) fn segment(self, start: usize, len: usize) -> Src<'a, T> {
        match self {
            Src::Slice(x) => Src::Slice(&x[start..start + len]),
            Src::Scalar(x) => Src::Scalar(x),
        }
    }
}

#[derive(Clone, Copy)]
pub enum Value<'a> {
    B(Src<'a, bool>),
    I32(Src<'a, i32>),
    I64(Src<'a, i64>),
    F32(Src<'a, f32>),
    F64(Src<'a, f64>),
}

/// A per-thread register: one step's values over a block.
pub enum Reg {
    B(Vec<bool>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// The dtype of the registers a step of `dtype` computes in. The storage-only
/// dtypes compute wide (`compute_storage` narrows each step's values again):
/// the half floats in f32; u8, i8, i16 and u16 in i32, whose lanes hold twice
/// as many values a vector as i64's, and which gives the same narrowed
/// results, every step's operands being exact narrow values and every op's
/// low bits depending only on its operands' (wrapping `+ - *`, bitwise ops,
/// shifts), or its result lying well inside i32 (`//`, `%`, comparisons);
/// u32 in i64.
pub fn register_dtype(dtype: DType) -> DType {
    match dtype {
        DType::U8 | DType::I8 | DType::I16 | DType::U16 => DType::I32,
        DType::U32 => DType::I64,
        d => d.compute(),
    }
}

impl Reg {
    pub fn new(dtype: DType, len: usize) -> Reg {
        match register_dtype(dtype) {
            DType::Bool => Reg::B(vec![false; len]),
            DType::I32 => Reg::I32(vec![0; len]),
            DType::F32 => Reg::F32(vec![0.0; len]),
            DType::F64 => Reg::F64(vec![0.0; len]),
            _ => Reg::I64(vec![0; len]),
        }
    }

    /// Registers for every step of `steps`, taken from this thread's spares
    /// (a loop runs the same kernels every iteration: allocating and zeroing
    /// a block per step each time cost more than a small kernel's work).
    pub fn for_steps(steps: &[Step]) -> Regs {
        Reg::for_steps_len(steps, BLOCK)
    }

    /// Registers of at least `len` elements for every step of `steps` (a
    /// row-resident kernel holds a whole row in each).
    pub fn for_steps_len(steps: &[Step], len: usize) -> Regs {
        let len = len.max(BLOCK);
        let regs = SPARE_REGS.with(|spare| {
            let mut spare = spare.borrow_mut();
            steps
                .iter()
                .map(|s| {
                    match spare
                        .iter()
                        .position(|r| r.dtype() == register_dtype(s.dtype) && r.len() >= len)
                    {
                        Some(k) => spare.swap_remove(k),
                        None => Reg::new(s.dtype, len),
                    }
                })
                .collect()
        });
        Regs(regs)
    }

    fn len(&self) -> usize {
        match self {
            Reg::B(v) => v.len(),
            Reg::I32(v) => v.len(),
            Reg::I64(v) => v.len(),
            Reg::F32(v) => v.len(),
            Reg::F64(v) => v.len(),
        }
    }

    fn dtype(&self) -> DType {
        match self {
            Reg::B(_) => DType::Bool,
            Reg::I32(_) => DType::I32,
            Reg::I64(_) => DType::I64,
            Reg::F32(_) => DType::F32,
            Reg::F64(_) => DType::F64,
        }
    }
}

/// Spare registers kept for this thread's next kernel, at most this many.
const MAX_SPARE_REGS: usize = 192;

thread_local! {
    static SPARE_REGS: std::cell::RefCell<Vec<Reg>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A kernel's registers (one per step); they go back to the thread's spares when dropped.
pub struct Regs(Vec<Reg>);

impl std::ops::Deref for Regs {
    type Target = Vec<Reg>;
    fn deref(&self) -> &Vec<Reg> {
        &self.0
    }
}

impl std::ops::DerefMut for Regs {
    fn deref_mut(&mut self) -> &mut Vec<Reg> {
        &mut self.0
    }
}

impl Drop for Regs {
    fn drop(&mut self) {
        let regs = std::mem::take(&mut self.0);
        // try_with: a thread being torn down has no spares left to keep
        let _ = SPARE_REGS.try_with(|spare| {
            let mut spare = spare.borrow_mut();
            for r in regs {
                if spare.len() < MAX_SPARE_REGS {
                    spare.push(r);
                }
            }
        });
    }
}

/// A step's destination: a register or the kernel's output.
pub enum Dst<'a> {
    B(&'a mut [MaybeUninit<bool>]),
    I32(&'a mut [MaybeUninit<i32>]),
    I64(&'a mut [MaybeUninit<i64>]),
    F32(&'a mut [MaybeUninit<f32>]),
    F64(&'a mut [MaybeUninit<f64>]),
    /// An output of a storage-only dtype: only `store` writes it, narrowing
    /// the wide register it is given (registers are never of these dtypes).
    Storage(StorageDst<'a>),
}

/// A kernel output of a storage-only dtype.
pub enum StorageDst<'a> {
    U8(&'a mut [MaybeUninit<u8>]),
    I8(&'a mut [MaybeUninit<i8>]),
    I16(&'a mut [MaybeUninit<i16>]),
    U16(&'a mut [MaybeUninit<u16>]),
    U32(&'a mut [MaybeUninit<u32>]),
    F16(&'a mut [MaybeUninit<half::f16>]),
    BF16(&'a mut [MaybeUninit<half::bf16>]),
}

/// The uninitialised view of an initialised slice, to write into.
#[inline(always)]
fn as_uninit<T>(s: &mut [T]) -> &mut [MaybeUninit<T>] {
    // SAFETY: MaybeUninit<T> has T's layout, and everything written through the
    // result is an initialised T, so the slice stays initialised.
    unsafe { &mut *(s as *mut [T] as *mut [MaybeUninit<T>]) }
}

/// The initialised view of a destination every element of which was written.
#[inline(always)]
unsafe fn assume_init<T>(s: &mut [MaybeUninit<T>]) -> &mut [T] {
    // SAFETY: the caller wrote every element.
    unsafe { &mut *(s as *mut [MaybeUninit<T>] as *mut [T]) }
}

impl Reg {
    #[inline(always)]
    fn dst(&mut self, len: usize) -> Dst<'_> {
        match self {
            Reg::B(v) => Dst::B(as_uninit(&mut v[..len])),
            Reg::I32(v) => Dst::I32(as_uninit(&mut v[..len])),
            Reg::I64(v) => Dst::I64(as_uninit(&mut v[..len])),
            Reg::F32(v) => Dst::F32(as_uninit(&mut v[..len])),
            Reg::F64(v) => Dst::F64(as_uninit(&mut v[..len])),
        }
    }

    /// Elements `start..start + len` of the register, to be written.
    #[inline(always)]
    fn dst_range(&mut self, start: usize, len: usize) -> Dst<'_> {
        let r = start..start + len;
        match self {
            Reg::B(v) => Dst::B(as_uninit(&mut v[r])),
            Reg::I32(v) => Dst::I32(as_uninit(&mut v[r])),
            Reg::I64(v) => Dst::I64(as_uninit(&mut v[r])),
            Reg::F32(v) => Dst::F32(as_uninit(&mut v[r])),
            Reg::F64(v) => Dst::F64(as_uninit(&mut v[r])),
        }
    }

    /// The register's first element as one value for the whole block.
    #[inline(always)]
    fn scalar(&self) -> Value<'static> {
        match self {
            Reg::B(v) => Value::B(Src::Scalar(v[0])),
            Reg::I32(v) => Value::I32(Src::Scalar(v[0])),
            Reg::I64(v) => Value::I64(Src::Scalar(v[0])),
            Reg::F32(v) => Value::F32(Src::Scalar(v[0])),
            Reg::F64(v) => Value::F64(Src::Scalar(v[0])),
        }
    }

    #[inline(always)]
    fn value(&self, len: usize) -> Value<'_> {
        match self {
            Reg::B(v) => Value::B(Src::Slice(&v[..len])),
            Reg::I32(v) => Value::I32(Src::Slice(&v[..len])),
            Reg::I64(v) => Value::I64(Src::Slice(&v[..len])),
            Reg::F32(v) => Value::F32(Src::Slice(&v[..len])),
            Reg::F64(v) => Value::F64(Src::Slice(&v[..len])),
        }
    }
}

fn internal(message: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::spanless("E0499", format!("internal: {message}"))
}

// ---- loops: one per operand-kind combination, inlined into each op's caller ----

#[inline(always)]
fn map1<A: Copy, O: Copy>(a: Src<A>, out: &mut [MaybeUninit<O>], f: impl Fn(A) -> O) {
    match a {
        Src::Slice(x) => {
            for (o, &x) in out.iter_mut().zip(x) {
                o.write(f(x));
            }
        }
        Src::Scalar(x) => {
            let v = f(x);
            for o in out {
                o.write(v);
            }
        }
    }
}

#[inline(always)]
fn map2<A: Copy, B: Copy, O: Copy>(a: Src<A>, b: Src<B>, out: &mut [MaybeUninit<O>], f: impl Fn(A, B) -> O) {
    match (a, b) {
        (Src::Slice(x), Src::Slice(y)) => {
            let n = out.len();
            for ((o, &x), &y) in out.iter_mut().zip(&x[..n]).zip(&y[..n]) {
                o.write(f(x, y));
            }
        }
        (Src::Slice(x), Src::Scalar(y)) => {
            for (o, &x) in out.iter_mut().zip(x) {
                o.write(f(x, y));
            }
        }
        (Src::Scalar(x), Src::Slice(y)) => {
            for (o, &y) in out.iter_mut().zip(y) {
                o.write(f(x, y));
            }
        }
        (Src::Scalar(x), Src::Scalar(y)) => {
            let v = f(x, y);
            for o in out {
                o.write(v);
            }
        }
    }
}

/// `map2` for functions that can fail (integer modulo and power).
#[inline(always)]
fn try_map2<A: Copy, B: Copy, O: Copy>(
    a: Src<A>,
    b: Src<B>,
    out: &mut [MaybeUninit<O>],
    f: impl Fn(A, B) -> Option<O>,
    err: fn() -> Diagnostic,
) -> Result<(), Diagnostic> {
    let n = out.len();
    let at = |s: Src<A>, i: usize| match s {
        Src::Slice(x) => x[i],
        Src::Scalar(x) => x,
    };
    let bt = |s: Src<B>, i: usize| match s {
        Src::Slice(x) => x[i],
        Src::Scalar(x) => x,
    };
    for (i, o) in out.iter_mut().enumerate().take(n) {
        o.write(f(at(a, i), bt(b, i)).ok_or_else(err)?);
    }
    Ok(())
}

/// A branch-free choice between two values, as a mask over their bits.
/// Written `if c { x } else { y }` over two slices, the loop let LLVM load
/// from the chosen address instead of loading both, which the AVX-512
/// build vectorised as a gather: a `where` over 2^20 u8 pixels took 1.4 ms,
/// more than half of it in gathers. A mask keeps two plain vector loads and
/// a blend.
pub(crate) trait Blend: Copy {
    fn blend(c: bool, x: Self, y: Self) -> Self;
}

macro_rules! blend_int {
    ($($T:ty),*) => {$(
        impl Blend for $T {
            #[inline(always)]
            fn blend(c: bool, x: $T, y: $T) -> $T {
                let m = <$T>::from(c).wrapping_neg();
                (x & m) | (y & !m)
            }
        }
    )*};
}
blend_int!(i32, i64);

macro_rules! blend_float {
    ($($T:ty => $B:ty),*) => {$(
        impl Blend for $T {
            #[inline(always)]
            fn blend(c: bool, x: $T, y: $T) -> $T {
                let m = <$B>::from(c).wrapping_neg();
                <$T>::from_bits((x.to_bits() & m) | (y.to_bits() & !m))
            }
        }
    )*};
}
blend_float!(f32 => u32, f64 => u64);

impl Blend for bool {
    #[inline(always)]
    fn blend(c: bool, x: bool, y: bool) -> bool {
        (c & x) | (!c & y)
    }
}

#[inline(always)]
fn select<T: Blend>(c: Src<bool>, a: Src<T>, b: Src<T>, out: &mut [MaybeUninit<T>]) {
    let n = out.len();
    match (c, a, b) {
        (Src::Slice(c), Src::Slice(x), Src::Slice(y)) => {
            for (((o, &c), &x), &y) in out.iter_mut().zip(&c[..n]).zip(&x[..n]).zip(&y[..n]) {
                o.write(T::blend(c, x, y));
            }
        }
        (Src::Slice(c), Src::Slice(x), Src::Scalar(y)) => {
            for ((o, &c), &x) in out.iter_mut().zip(&c[..n]).zip(&x[..n]) {
                o.write(T::blend(c, x, y));
            }
        }
        (Src::Slice(c), Src::Scalar(x), Src::Slice(y)) => {
            for ((o, &c), &y) in out.iter_mut().zip(&c[..n]).zip(&y[..n]) {
                o.write(T::blend(c, x, y));
            }
        }
        (Src::Scalar(c), a, b) => copy(if c { a } else { b }, out),
        (Src::Slice(c), Src::Scalar(x), Src::Scalar(y)) => {
            for (o, &c) in out.iter_mut().zip(c) {
                o.write(T::blend(c, x, y));
            }
        }
    }
}

/// Copies `n` elements from `src` to `dst` in 32-byte moves rather than
/// through glibc's memcpy, which from 4 KiB on uses `rep movsb`: on this
/// project's AMD Zen 3 that runs at about half speed when the two addresses
/// are aligned differently (a slice assignment's rows stored one element off
/// a cache line; with glibc told not to use it, heat went from 32 to 25 ms
/// and shallow water from 76 to 61 ms). Two moves a loop iteration, 64 bytes
/// apart, so that LLVM does not turn the loop back into a memcpy call (it
/// does so for a loop whose stride is the size of its store).
///
/// # Safety
/// `src` must be readable and `dst` writable for `n` elements, and the two
/// ranges either the same or disjoint.
#[inline]
pub unsafe fn copy_elems<T: Copy>(src: *const T, dst: *mut T, n: usize) {
    if std::ptr::eq(src, dst) {
        return;
    }
    let bytes = n * std::mem::size_of::<T>();
    let (s, d) = (src.cast::<u8>(), dst.cast::<u8>());
    let mut i = 0;
    // SAFETY (all moves): within the n elements the caller vouches for.
    unsafe {
        while i + 64 <= bytes {
            // each move stored before the next is read: reading both first
            // made LLVM keep one in a stack slot, not a register
            let a = s.add(i).cast::<[u64; 4]>().read_unaligned();
            d.add(i).cast::<[u64; 4]>().write_unaligned(a);
            let b = s.add(i + 32).cast::<[u64; 4]>().read_unaligned();
            d.add(i + 32).cast::<[u64; 4]>().write_unaligned(b);
            i += 64;
        }
        // under 64 bytes: glibc's small-copy path, no `rep movsb`
        std::ptr::copy_nonoverlapping(s.add(i), d.add(i), bytes - i);
    }
}

#[inline(always)]
fn copy<T: Copy>(a: Src<T>, out: &mut [MaybeUninit<T>]) {
    match a {
        Src::Slice(x) => {
            let n = out.len();
            let x = &x[..n];
            // SAFETY: `x` and `out` hold n elements each and are distinct
            // borrows (disjoint); MaybeUninit<T> has T's layout.
            unsafe { copy_elems(x.as_ptr(), out.as_mut_ptr().cast::<T>(), n) };
        }
        Src::Scalar(x) => {
            for o in out {
                o.write(x);
            }
        }
    }
}

/// Gathers `len` elements at `off, off + s, ...` (s not 0 or 1).
#[inline(always)]
fn gather<T: Copy>(data: &[T], off: isize, s: isize, out: &mut [T]) {
    let mut p = off;
    for o in out {
        *o = data[p as usize];
        p += s;
    }
}

/// An operand's value over a block starting at buffer offset `off` with inner stride `s`.
#[inline(always)]
fn load<'a>(input: Input<'a>, dtype: DType, off: isize, s: isize, len: usize, reg: &'a mut Reg) -> Value<'a> {
    macro_rules! data {
        ($x:expr, $V:ident, $R:ident) => {{
            let x = $x;
            if s == 1 {
                let o = off as usize;
                Value::$V(Src::Slice(&x[o..o + len]))
            } else if s == 0 || len == 1 {
                Value::$V(Src::Scalar(x[off as usize]))
            } else {
                let Reg::$R(r) = reg else {
                    unreachable!("registers follow step dtypes")
                };
                gather(x, off, s, &mut r[..len]);
                Value::$V(Src::Slice(&r[..len]))
            }
        }};
    }
    match input {
        Input::Data(Data::B(x)) => data!(x, B, B),
        Input::Data(Data::I32(x)) => data!(x, I32, I32),
        Input::Data(Data::I64(x)) => data!(x, I64, I64),
        Input::Data(Data::F32(x)) => data!(x, F32, F32),
        Input::Data(Data::F64(x)) => data!(x, F64, F64),
        Input::Data(Data::Storage(d)) => load_storage(d, off, s, len, 0, 1, reg),
        Input::Arange { start, step, exact } if s != 0 => arange(dtype, start, step, exact, off, s, len, reg),
        Input::Arange { start, step, exact } => generate(dtype, off, s, len, reg, |o| {
            if exact {
                Val::I((start as i64).wrapping_add((o as i64).wrapping_mul(step as i64)))
            } else {
                Val::F(start + o as f64 * step)
            }
        }),
        Input::Random { key, dist } => match (dtype, dist) {
            (DType::F32 | DType::F64, Distribution::Uniform) if s != 0 => uniform(key, off, s, len, reg),
            (DType::F32, Distribution::Uniform) => generate(dtype, off, s, len, reg, |o| {
                Val::F(random::uniform_f32(key, o as u64) as f64)
            }),
            (DType::F64, Distribution::Uniform) => {
                generate(dtype, off, s, len, reg, |o| Val::F(random::uniform_f64(key, o as u64)))
            }
            (DType::F32, Distribution::Normal) => generate(dtype, off, s, len, reg, |o| {
                Val::F(random::normal_f64(key, o as u64) as f32 as f64)
            }),
            _ => generate(dtype, off, s, len, reg, |o| Val::F(random::normal_f64(key, o as u64))),
        },
    }
}

/// `nrows` rows of `len` elements of storage-only data, row r from offset
/// `off + r * rs` by steps of `s`, widened into `reg` (i64 for the narrow
/// integers, f32 for the half floats: exact either way). One element read
/// for all (`s` and `rs` 0, or a single element) is one scalar.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn load_storage<'a>(
    d: &'a HostData,
    off: isize,
    s: isize,
    len: usize,
    rs: isize,
    nrows: usize,
    reg: &'a mut Reg,
) -> Value<'a> {
    macro_rules! widen {
        ($x:expr, $V:ident) => {{
            let x = $x;
            if (s == 0 || len == 1) && (rs == 0 || nrows == 1) {
                return Value::$V(Src::Scalar(x[off as usize].widen()));
            }
            let Reg::$V(r) = reg else {
                unreachable!("registers follow step dtypes")
            };
            let r = &mut r[..len * nrows];
            widen_rows(x, off, s, rs, len, r);
            Value::$V(Src::Slice(r))
        }};
    }
    match d {
        HostData::U8(x) => widen!(x, I32),
        HostData::I8(x) => widen!(x, I32),
        HostData::I16(x) => widen!(x, I32),
        HostData::U16(x) => widen!(x, I32),
        HostData::U32(x) => widen!(x, I64),
        HostData::F16(x) => widen!(x, F32),
        HostData::BF16(x) => widen!(x, F32),
        _ => unreachable!("Data::Storage holds storage-only data"),
    }
}

/// An element of a storage-only dtype and the wide value its steps compute with.
trait Widen: Copy {
    type W: Copy;
    fn widen(self) -> Self::W;
}

macro_rules! impl_widen {
    ($t:ty, $w:ty, |$x:ident| $e:expr) => {
        impl Widen for $t {
            type W = $w;
            #[inline(always)]
            fn widen(self) -> $w {
                let $x = self;
                $e
            }
        }
    };
}
impl_widen!(u8, i32, |x| x as i32);
impl_widen!(i8, i32, |x| x as i32);
impl_widen!(i16, i32, |x| x as i32);
impl_widen!(u16, i32, |x| x as i32);
impl_widen!(u32, i64, |x| x as i64);
impl_widen!(half::f16, f32, |x| x.to_f32());
impl_widen!(half::bf16, f32, |x| x.to_f32());

#[inline(always)]
fn widen_rows_impl<S: Widen>(x: &[S], off: isize, s: isize, rs: isize, len: usize, out: &mut [S::W]) {
    for (row, seg) in out.chunks_exact_mut(len).enumerate() {
        let o = off + row as isize * rs;
        if s == 1 {
            for (v, &e) in seg.iter_mut().zip(&x[o as usize..o as usize + len]) {
                *v = e.widen();
            }
        } else {
            let mut p = o;
            for v in seg.iter_mut() {
                *v = x[p as usize].widen();
                p += s;
            }
        }
    }
}

widest_dispatch! {
    /// Rows of `len` elements of `x`, row r from `off + r * rs` by steps of
    /// `s`, widened into `out` one row after another (the widening
    /// vectorises only in the wider builds).
    #[inline(never)]
    fn widen_rows<S: Widen>(x: &[S], off: isize, s: isize, rs: isize, len: usize, out: &mut [S::W]) = widen_rows_impl;
}

/// `$fill!(element type, value variant, register variant)` for `dtype`'s
/// registers (`register_dtype`: half floats are held in f32 ones, narrow
/// integers in i32 ones, u32 in i64 ones).
macro_rules! by_register_dtype {
    ($dtype:expr, $fill:ident) => {
        match $dtype {
            DType::Bool => $fill!(bool, B, B),
            DType::I32 | DType::U8 | DType::I8 | DType::I16 | DType::U16 => $fill!(i32, I32, I32),
            DType::U32 | DType::I64 => $fill!(i64, I64, I64),
            DType::F16 | DType::BF16 | DType::F32 => $fill!(f32, F32, F32),
            DType::F64 => $fill!(f64, F64, F64),
        }
    };
}

/// Runs `f` compiled for the widest instruction set this CPU has among
/// AVX-512 (with DQ and VL: 64-bit multiplies and integer-to-float
/// conversions in vectors), AVX2 with FMA, and the baseline. `f` is inlined
/// into the feature-enabled function, its one caller, so its loops are
/// vectorised for those features; a generator's fill is the use, being too
/// large to be inlined into the block evaluator's own AVX2 instance.
#[inline(always)]
fn on_widest_isa<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
        fn avx512<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        #[target_feature(enable = "avx2,fma")]
        fn avx2<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        if has_avx512dq() {
            // SAFETY: the CPU has AVX-512 F, DQ and VL, AVX2 and FMA (checked at run time).
            return unsafe { avx512(f) };
        }
        if has_avx2() {
            // SAFETY: the CPU has AVX2 and FMA (checked at run time).
            return unsafe { avx2(f) };
        }
    }
    f()
}

/// Whether the CPU has AVX-512 F, DQ and VL besides AVX2 (which `ARR_NO_AVX2` turns off).
pub fn has_avx512dq() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static AVX512: OnceLock<bool> = OnceLock::new();
        *AVX512.get_or_init(|| {
            has_avx2()
                && is_x86_feature_detected!("avx512f")
                && is_x86_feature_detected!("avx512dq")
                && is_x86_feature_detected!("avx512vl")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Lanes of the index loops below: a fixed-length inner loop LLVM turns into
/// vector instructions, where a scalar induction over `usize` would need a
/// 64-bit integer to float conversion that AVX2 lacks.
const GEN_LANES: usize = 8;

/// `f(o as f64)` for the offsets `o = off + k * s` of a block, `k < out.len()`.
/// Each index is formed in f64 as `(off + c * s) + j * s` from integer-valued
/// terms; offsets of an array are far below 2^53, where every such sum is
/// exact, so the value equals the reference's `o as f64`.
#[inline(always)]
fn fill_by_index<T>(off: isize, s: isize, out: &mut [T], f: impl Fn(f64) -> T) {
    let (offf, sf) = (off as f64, s as f64);
    let lane: [f64; GEN_LANES] = std::array::from_fn(|j| j as f64);
    let mut chunks = out.chunks_exact_mut(GEN_LANES);
    let mut base = offf;
    for c in &mut chunks {
        for (o, &j) in c.iter_mut().zip(&lane) {
            *o = f(base + j * sf);
        }
        base += GEN_LANES as f64 * sf;
    }
    for (o, &j) in chunks.into_remainder().iter_mut().zip(&lane) {
        *o = f(base + j * sf);
    }
}

/// An `arange` over a block (`s != 0`): the reference's `start + o * step`
/// (wrapping integers when `exact`), cast to `dtype` as `generate` would.
/// The integer form is an induction `v0 + k * (s * step)`, equal to the
/// reference's in wrapping arithmetic.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn arange(
    dtype: DType,
    start: f64,
    step: f64,
    exact: bool,
    off: isize,
    s: isize,
    len: usize,
    reg: &mut Reg,
) -> Value<'_> {
    macro_rules! fill {
        ($T:ty, $V:ident, $R:ident) => {{
            let Reg::$R(r) = reg else {
                unreachable!("registers follow step dtypes")
            };
            let r = &mut r[..len];
            if exact {
                let (start, step) = (start as i64, step as i64);
                let v0 = start.wrapping_add((off as i64).wrapping_mul(step));
                let delta = (s as i64).wrapping_mul(step);
                on_widest_isa(|| {
                    for (k, o) in r.iter_mut().enumerate() {
                        *o = <$T>::from_val(Val::I(v0.wrapping_add((k as i64).wrapping_mul(delta))));
                    }
                });
            } else {
                on_widest_isa(|| fill_by_index(off, s, r, |o| <$T>::from_val(Val::F(start + o * step))));
            }
            Value::$V(Src::Slice(r))
        }};
    }
    by_register_dtype!(dtype, fill)
}

/// Uniform random floats over a block (`s != 0`, an f32 or f64 register), bit for bit
/// `random::uniform_f32`/`uniform_f64` of each offset: the counter's
/// multiply is an induction, and the integer-to-float conversions are ones
/// AVX2 has (a 24-bit value through i32; 53 bits as twice its upper 52,
/// formed by the exponent trick, plus its lowest bit; both exact).
#[inline(always)]
fn uniform(key: u64, off: isize, s: isize, len: usize, reg: &mut Reg) -> Value<'_> {
    let t0 = key.wrapping_add((off as u64).wrapping_add(1).wrapping_mul(random::GOLDEN));
    let delta = (s as u64).wrapping_mul(random::GOLDEN);
    let bits = move |k: usize| random::mix64(t0.wrapping_add((k as u64).wrapping_mul(delta)));
    match reg {
        Reg::F32(r) => {
            let r = &mut r[..len];
            on_widest_isa(|| {
                for (k, o) in r.iter_mut().enumerate() {
                    *o = ((bits(k) >> 40) as i32) as f32 * (1.0 / (1u64 << 24) as f32);
                }
            });
            Value::F32(Src::Slice(r))
        }
        Reg::F64(r) => {
            const TWO52: f64 = (1u64 << 52) as f64;
            let r = &mut r[..len];
            on_widest_isa(|| {
                for (k, o) in r.iter_mut().enumerate() {
                    let x = bits(k) >> 11;
                    let half = f64::from_bits((x >> 1) | TWO52.to_bits()) - TWO52;
                    let low = if x & 1 == 0 { 0.0 } else { 1.0 };
                    *o = (half * 2.0 + low) * (1.0 / (1u64 << 53) as f64);
                }
            });
            Value::F64(Src::Slice(r))
        }
        _ => unreachable!("registers follow step dtypes"),
    }
}

/// Values of a generator at offsets `off + k * s`, cast to `dtype` as the reference does.
#[inline(always)]
fn generate(dtype: DType, off: isize, s: isize, len: usize, reg: &mut Reg, at: impl Fn(isize) -> Val) -> Value<'_> {
    macro_rules! fill {
        ($T:ty, $V:ident, $R:ident) => {{
            if s == 0 {
                return Value::$V(Src::Scalar(<$T>::from_val(at(off))));
            }
            let Reg::$R(r) = reg else {
                unreachable!("registers follow step dtypes")
            };
            for (k, o) in r[..len].iter_mut().enumerate() {
                *o = <$T>::from_val(at(off + k as isize * s));
            }
            Value::$V(Src::Slice(&r[..len]))
        }};
    }
    by_register_dtype!(dtype, fill)
}

/// A unary step, from the primitive table in `check::prim`: one monomorphic
/// loop per (op, dtype), `vmath` for the functions it vectorises.
#[inline(always)]
fn unary(u: UnaryOp, v: Value, dst: Dst) -> Result<(), Diagnostic> {
    macro_rules! fused_unary {
        ($( $V:ident $name:literal $rule:ident [$($vm:ident)?] |$x:ident| $e:expr, $cuda:literal, $doc:literal, $ex:literal; )*) => {
            match v {
                Value::F32(a) => match u { $( UnaryOp::$V => fused_unary!(@float $rule [$($vm)?] f32 a |$x| $e), )* },
                Value::F64(a) => match u { $( UnaryOp::$V => fused_unary!(@float $rule [$($vm)?] f64 a |$x| $e), )* },
                Value::I32(a) => match u { $( UnaryOp::$V => fused_unary!(@int $rule i32 a |$x| $e), )* },
                Value::I64(a) => match u { $( UnaryOp::$V => fused_unary!(@int $rule i64 a |$x| $e), )* },
                Value::B(a) => match u { $( UnaryOp::$V => fused_unary!(@bool $rule a |$x| $e), )* },
            }
        };
        (@float Pred [$($vm:ident)?] $T:ident $a:ident |$x:ident| $e:expr) => {{
            map1($a, bool::dst_of(dst)?, |$x: $T| $e);
            Ok(())
        }};
        (@float Logic [$($vm:ident)?] $T:ident $a:ident |$x:ident| $e:expr) => {
            Err(internal(format!("{u:?} is not defined on {}", <$T as Elem>::DTYPE)))
        };
        (@float Bits [$($vm:ident)?] $T:ident $a:ident |$x:ident| $e:expr) => {
            Err(internal(format!("{u:?} is not defined on {}", <$T as Elem>::DTYPE)))
        };
        (@float $rule:ident [$vm:ident] $T:ident $a:ident |$x:ident| $e:expr) => {{
            let out = <$T>::dst_of(dst)?;
            copy($a, out);
            // SAFETY: `copy` wrote every element.
            <$T as FloatMath>::apply(MathFn::$vm, unsafe { assume_init(out) });
            Ok(())
        }};
        (@float $rule:ident [] $T:ident $a:ident |$x:ident| $e:expr) => {{
            map1($a, <$T>::dst_of(dst)?, |$x: $T| $e);
            Ok(())
        }};
        (@int Same $T:ident $a:ident |$x:ident| $e:expr) => {{
            map1($a, <$T>::dst_of(dst)?, |$x: $T| $e);
            Ok(())
        }};
        (@int Bits $T:ident $a:ident |$x:ident| $e:expr) => {{
            map1($a, <$T>::dst_of(dst)?, |$x: $T| $e);
            Ok(())
        }};
        (@int $rule:ident $T:ident $a:ident |$x:ident| $e:expr) => {
            Err(internal(format!("{u:?} is not defined on {}", <$T as Elem>::DTYPE)))
        };
        (@bool Logic $a:ident |$x:ident| $e:expr) => {{
            map1($a, bool::dst_of(dst)?, |$x: bool| $e);
            Ok(())
        }};
        (@bool Bits $a:ident |$x:ident| $e:expr) => {{
            map1($a, bool::dst_of(dst)?, |$x: bool| $e);
            Ok(())
        }};
        (@bool $rule:ident $a:ident |$x:ident| $e:expr) => {
            Err(internal(format!("{u:?} is not defined on bool")))
        };
    }
    crate::for_each_unary!(fused_unary)
}

/// The destination as `T`'s, or an internal error.
trait DstOf: Sized {
    fn dst_of(d: Dst<'_>) -> Result<&mut [MaybeUninit<Self>], Diagnostic>;
}

macro_rules! impl_dst_of {
    ($t:ty, $V:ident) => {
        impl DstOf for $t {
            #[inline(always)]
            fn dst_of(d: Dst<'_>) -> Result<&mut [MaybeUninit<$t>], Diagnostic> {
                match d {
                    Dst::$V(x) => Ok(x),
                    _ => Err(internal(concat!(
                        "a step expected a ",
                        stringify!($t),
                        " register"
                    ))),
                }
            }
        }
    };
}
impl_dst_of!(bool, B);
impl_dst_of!(i32, I32);
impl_dst_of!(i64, I64);
impl_dst_of!(f32, F32);
impl_dst_of!(f64, F64);

/// The vectorised math entry points of one float type.
trait FloatMath: Sized {
    fn apply(f: MathFn, x: &mut [Self]);
    fn pow(a: &mut [Self], b: &[Self]);
}

impl FloatMath for f32 {
    #[inline(always)]
    fn apply(f: MathFn, x: &mut [f32]) {
        vmath::apply_f32(f, x)
    }
    #[inline(always)]
    fn pow(a: &mut [f32], b: &[f32]) {
        vmath::pow_f32(a, b)
    }
}

impl FloatMath for f64 {
    #[inline(always)]
    fn apply(f: MathFn, x: &mut [f64]) {
        vmath::apply_f64(f, x)
    }
    #[inline(always)]
    fn pow(a: &mut [f64], b: &[f64]) {
        vmath::pow_f64(a, b)
    }
}

// Num needs DstOf for the macros above; every Elem type has one.
trait NumDst: Num + DstOf {}
impl<T: Num + DstOf> NumDst for T {}

#[inline(always)]
fn compare<T: Elem>(op: BinaryOp, a: Src<T>, b: Src<T>, dst: &mut Dst) -> Option<Result<(), Diagnostic>> {
    if !op.is_comparison() {
        return None;
    }
    let Dst::B(out) = dst else {
        return Some(Err(internal("a comparison into a non-bool register")));
    };
    macro_rules! c {
        ($f:expr) => {
            map2(a, b, out, $f)
        };
    }
    // one loop per comparison, so each is a straight-line vector loop
    match op {
        BinaryOp::Eq => c!(|x: T, y: T| x == y),
        BinaryOp::Ne => c!(|x: T, y: T| x != y),
        BinaryOp::Lt => c!(|x: T, y: T| x < y),
        BinaryOp::Le => c!(|x: T, y: T| x <= y),
        BinaryOp::Gt => c!(|x: T, y: T| x > y),
        BinaryOp::Ge => c!(|x: T, y: T| x >= y),
        BinaryOp::Add
        | BinaryOp::Sub
        | BinaryOp::Mul
        | BinaryOp::Div
        | BinaryOp::Rem
        | BinaryOp::FloorDiv
        | BinaryOp::Pow
        | BinaryOp::Min
        | BinaryOp::Max
        | BinaryOp::Atan2
        | BinaryOp::Hypot
        | BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Bit(_) => return Some(Err(internal("a comparison step of another op"))),
    }
    Some(Ok(()))
}

#[inline(always)]
fn num_binary<T: NumDst>(op: BinaryOp, a: Src<T>, b: Src<T>, mut dst: Dst) -> Result<(), Diagnostic> {
    if let Some(r) = compare(op, a, b, &mut dst) {
        return r;
    }
    let out = T::dst_of(dst)?;
    match op {
        BinaryOp::Add => map2(a, b, out, T::add),
        BinaryOp::Sub => map2(a, b, out, T::sub),
        BinaryOp::Mul => map2(a, b, out, T::mul),
        BinaryOp::Min => map2(a, b, out, T::minimum),
        BinaryOp::Max => map2(a, b, out, T::maximum),
        BinaryOp::Rem => try_map2(a, b, out, T::rem, super::kernels::modulo_by_zero)?,
        BinaryOp::FloorDiv => try_map2(a, b, out, T::floor_div, super::kernels::division_by_zero)?,
        BinaryOp::Pow => try_map2(a, b, out, T::pow, super::kernels::negative_power)?,
        // float-only ops, logic (the builder casts first), comparisons (done above)
        BinaryOp::Div
        | BinaryOp::Atan2
        | BinaryOp::Hypot
        | BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Eq
        | BinaryOp::Ne
        | BinaryOp::Lt
        | BinaryOp::Le
        | BinaryOp::Gt
        | BinaryOp::Ge
        | BinaryOp::Bit(_) => {
            return Err(internal(format!("{op:?} is not defined on {}", T::DTYPE)));
        }
    }
    Ok(())
}

#[inline(always)]
fn float_binary<T: Float + FloatMath + DstOf>(op: BinaryOp, a: Src<T>, b: Src<T>, dst: Dst) -> Result<(), Diagnostic> {
    match op {
        BinaryOp::Div => map2(a, b, T::dst_of(dst)?, T::div),
        BinaryOp::Atan2 => map2(a, b, T::dst_of(dst)?, T::atan2),
        BinaryOp::Hypot => map2(a, b, T::dst_of(dst)?, T::hypot),
        BinaryOp::FloorDiv => map2(a, b, T::dst_of(dst)?, |x: T, y| x.floor_div(y).unwrap_or(T::ZERO)),
        BinaryOp::Rem => {
            let out = T::dst_of(dst)?;
            map2(
                a,
                b,
                out,
                #[inline(always)]
                |x: T, y: T| x.rem_or_nan(y),
            );
            // the rare lanes beyond the fast path (and NaN results) again, exactly
            for (i, o) in out.iter_mut().enumerate() {
                // SAFETY: `map2` wrote every element.
                if unsafe { o.assume_init() }.is_nan() {
                    o.write(a.at(i).rem(b.at(i)).unwrap_or(T::ZERO));
                }
            }
        }
        BinaryOp::Pow => {
            let out = T::dst_of(dst)?;
            match b {
                // x ** 2 is x * x exactly (pow is correctly rounded there): the common square
                Src::Scalar(y) if y == T::ONE.add(T::ONE) => map1(a, out, |x: T| x.mul(x)),
                // f32 x ** 3 is computed in f64 lanes (`Num::pow`), without a libm call
                Src::Scalar(y) if T::DTYPE == DType::F32 && y == T::ONE.add(T::ONE).add(T::ONE) => {
                    map1(a, out, |x: T| x.pow(y).unwrap_or(x))
                }
                Src::Scalar(y) => {
                    copy(a, out);
                    let ys = vec![y; out.len()];
                    // SAFETY: `copy` wrote every element.
                    <T as FloatMath>::pow(unsafe { assume_init(out) }, &ys);
                }
                Src::Slice(ys) => {
                    copy(a, out);
                    // SAFETY: `copy` wrote every element.
                    <T as FloatMath>::pow(unsafe { assume_init(out) }, ys);
                }
            }
        }
        BinaryOp::Add
        | BinaryOp::Sub
        | BinaryOp::Mul
        | BinaryOp::Min
        | BinaryOp::Max
        | BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Eq
        | BinaryOp::Ne
        | BinaryOp::Lt
        | BinaryOp::Le
        | BinaryOp::Gt
        | BinaryOp::Ge
        | BinaryOp::Bit(_) => return num_binary(op, a, b, dst),
    }
    Ok(())
}

fn bool_binary(op: BinaryOp, a: Src<bool>, b: Src<bool>, mut dst: Dst) -> Result<(), Diagnostic> {
    if let Some(r) = compare(op, a, b, &mut dst) {
        return r;
    }
    let out = bool::dst_of(dst)?;
    match op {
        // NumPy's bool arithmetic: + is or, * is and; min/max are and/or
        BinaryOp::And | BinaryOp::Mul | BinaryOp::Min => map2(a, b, out, |x, y| x & y),
        BinaryOp::Or | BinaryOp::Add | BinaryOp::Max => map2(a, b, out, |x, y| x | y),
        BinaryOp::Sub
        | BinaryOp::Div
        | BinaryOp::Rem
        | BinaryOp::FloorDiv
        | BinaryOp::Pow
        | BinaryOp::Atan2
        | BinaryOp::Hypot
        | BinaryOp::Eq
        | BinaryOp::Ne
        | BinaryOp::Lt
        | BinaryOp::Le
        | BinaryOp::Gt
        | BinaryOp::Ge
        | BinaryOp::Bit(_) => return Err(internal(format!("{op:?} is not defined on bool"))),
    }
    Ok(())
}

/// A bitwise step, from the table in `check::prim`: one monomorphic loop per
/// (op, dtype); bools take the logical ops, never a shift (the builder casts first).
#[inline(always)]
fn bit_binary(op: BitOp, a: Value, b: Value, dst: Dst) -> Result<(), Diagnostic> {
    use crate::check::prim::IntBits;
    macro_rules! fused_bits {
        ($( $V:ident $name:literal $sym:literal $rule:ident |$x:ident, $y:ident| $e:expr, $cuda:literal, $doc:literal, $ex:literal; )*) => {
            match (a, b) {
                (Value::I32(p), Value::I32(q)) => match op { $( BitOp::$V => map2(p, q, i32::dst_of(dst)?, |$x: i32, $y: i32| $e), )* },
                (Value::I64(p), Value::I64(q)) => match op { $( BitOp::$V => map2(p, q, i64::dst_of(dst)?, |$x: i64, $y: i64| $e), )* },
                (Value::B(p), Value::B(q)) => match op { $( BitOp::$V => fused_bits!(@bool $rule p q |$x, $y| $e), )* },
                _ => return Err(internal(format!("{op:?} of two dtypes, or of floats"))),
            }
        };
        (@bool Bits $p:ident $q:ident |$x:ident, $y:ident| $e:expr) => { map2($p, $q, bool::dst_of(dst)?, |$x: bool, $y: bool| $e) };
        (@bool Shift $p:ident $q:ident |$x:ident, $y:ident| $e:expr) => { return Err(internal(format!("{op:?} is not defined on bool"))) };
    }
    crate::for_each_binary!(fused_bits);
    Ok(())
}

#[inline(always)]
fn cast_from<S: Elem>(a: Src<S>, dst: Dst) -> Result<(), Diagnostic> {
    match dst {
        Dst::B(o) => map1(a, o, |x| bool::from_val(x.to_val())),
        Dst::I32(o) => map1(a, o, |x| i32::from_val(x.to_val())),
        Dst::I64(o) => map1(a, o, |x| i64::from_val(x.to_val())),
        Dst::F32(o) => map1(a, o, |x| f32::from_val(x.to_val())),
        Dst::F64(o) => map1(a, o, |x| f64::from_val(x.to_val())),
        // a cast to a storage-only dtype is `compute_storage`'s
        Dst::Storage(_) => return Err(internal("a cast computed into a storage-only output")),
    }
    Ok(())
}

/// Copies a value into a destination of its dtype.
#[inline(always)]
fn store(v: Value, dst: Dst) -> Result<(), Diagnostic> {
    match (v, dst) {
        (Value::B(a), Dst::B(o)) => copy(a, o),
        (Value::I32(a), Dst::I32(o)) => copy(a, o),
        (Value::I64(a), Dst::I64(o)) => copy(a, o),
        (Value::F32(a), Dst::F32(o)) => copy(a, o),
        (Value::F64(a), Dst::F64(o)) => copy(a, o),
        (v, Dst::Storage(o)) => return store_storage(v, o),
        _ => return Err(internal("a value stored into a register of another dtype")),
    }
    Ok(())
}

/// Stores a wide value as a storage-only dtype, as `HostData::narrow_to`
/// does: a wide integer wrapped to the narrow integer's width, f32 rounded once (to
/// nearest, ties to even) to the half float.
#[inline(always)]
fn store_storage(v: Value, dst: StorageDst) -> Result<(), Diagnostic> {
    match (v, dst) {
        (Value::I32(a), StorageDst::U8(o)) => map1(a, o, |x| x as u8),
        (Value::I32(a), StorageDst::I8(o)) => map1(a, o, |x| x as i8),
        (Value::I32(a), StorageDst::I16(o)) => map1(a, o, |x| x as i16),
        (Value::I32(a), StorageDst::U16(o)) => map1(a, o, |x| x as u16),
        (Value::I64(a), StorageDst::U32(o)) => map1(a, o, |x| x as u32),
        (Value::F32(a), StorageDst::F16(o)) => map1(a, o, half::f16::from_f32),
        (Value::F32(a), StorageDst::BF16(o)) => map1(a, o, half::bf16::from_f32),
        _ => return Err(internal("a storage-only output given a value of another dtype")),
    }
    Ok(())
}

/// A step of a storage-only `dtype`, computed in its wide register as
/// `kernels::eval_storage` computes it: a cast converts each value straight
/// to `dtype` (a float saturates into a narrow integer, an f64 rounds once
/// into a half float); any other op computes wide, then the values are
/// narrowed and widened again in place, so that what later steps read is
/// what the reference would have stored.
#[inline(always)]
fn compute_storage<'r>(
    inst: &Inst,
    vals: &[Value],
    reg: &'r mut Reg,
    len: usize,
    dtype: DType,
) -> Result<Value<'r>, Diagnostic> {
    let scalar = scalar_args(inst, vals);
    let n = if scalar { 1 } else { len };
    if let Inst::Cast(a) = *inst {
        let v = vals[a];
        macro_rules! cast {
            ($R:ident, $T:ty, $back:expr) => {{
                let Reg::$R(r) = &mut *reg else {
                    return Err(internal("a storage-only step in a register of another dtype"));
                };
                let back = $back;
                cast_values(v, as_uninit(&mut r[..n]), |x| back(<$T>::from_val(x)));
            }};
        }
        match dtype {
            DType::U8 => cast!(I32, u8, |x: u8| x as i32),
            DType::I8 => cast!(I32, i8, |x: i8| x as i32),
            DType::I16 => cast!(I32, i16, |x: i16| x as i32),
            DType::U16 => cast!(I32, u16, |x: u16| x as i32),
            DType::U32 => cast!(I64, u32, |x: u32| x as i64),
            DType::F16 => cast!(F32, half::f16, |x: half::f16| x.to_f32()),
            DType::BF16 => cast!(F32, half::bf16, |x: half::bf16| x.to_f32()),
            _ => return Err(internal("a wide dtype computed as storage-only")),
        }
    } else {
        compute(inst, vals, reg.dst(n))?;
        match (&mut *reg, dtype) {
            (Reg::I32(r), DType::U8) => r[..n].iter_mut().for_each(|x| *x = *x as u8 as i32),
            (Reg::I32(r), DType::I8) => r[..n].iter_mut().for_each(|x| *x = *x as i8 as i32),
            (Reg::I32(r), DType::I16) => r[..n].iter_mut().for_each(|x| *x = *x as i16 as i32),
            (Reg::I32(r), DType::U16) => r[..n].iter_mut().for_each(|x| *x = *x as u16 as i32),
            (Reg::I64(r), DType::U32) => r[..n].iter_mut().for_each(|x| *x = *x as u32 as i64),
            (Reg::F32(r), DType::F16) => r[..n].iter_mut().for_each(|x| *x = half::f16::from_f32(*x).to_f32()),
            (Reg::F32(r), DType::BF16) => r[..n].iter_mut().for_each(|x| *x = half::bf16::from_f32(*x).to_f32()),
            _ => return Err(internal("a storage-only step in a register of another dtype")),
        }
    }
    let reg: &'r Reg = reg;
    Ok(if scalar { reg.scalar() } else { reg.value(len) })
}

/// `f` of each value of `v` (of any dtype, as the reference's `Val`).
#[inline(always)]
fn cast_values<W: Copy>(v: Value, out: &mut [MaybeUninit<W>], f: impl Fn(Val) -> W) {
    match v {
        Value::B(a) => map1(a, out, |x| f(x.to_val())),
        Value::I32(a) => map1(a, out, |x| f(x.to_val())),
        Value::I64(a) => map1(a, out, |x| f(x.to_val())),
        Value::F32(a) => map1(a, out, |x| f(x.to_val())),
        Value::F64(a) => map1(a, out, |x| f(x.to_val())),
    }
}

/// Whether `op` is `//` or `%` by a divisor `d` that `i32_by_scalar` and
/// `i64_by_scalar` take: not 0 (an error, `num_binary`'s), not -1 (where
/// the integer minimum wraps), and exact in f64 with room to spare.
#[inline(always)]
fn by_scalar(op: BinaryOp, d: i64) -> bool {
    matches!(op, BinaryOp::FloorDiv | BinaryOp::Rem) && d != 0 && d != -1 && d.unsigned_abs() < F64_EXACT
}

/// Below this magnitude an integer's floor quotient is exact through f64 (see `i64_by_scalar`).
const F64_EXACT: u64 = 1 << 52;

/// Whether every value of a block is below `F64_EXACT` in magnitude.
#[inline(always)]
fn within_f64(x: &[i64]) -> bool {
    x.iter().fold(0u64, |m, v| m | v.unsigned_abs()) < F64_EXACT
}

macro_rules! int_by_scalar {
    ($name:ident, $t:ty) => {
        /// Python's (and NumPy's) `x // d` or `x % d` for a block of integers
        /// and one divisor, as `floor(x / d)` in f64 and `x - q * d`: one
        /// vector division where the integer one is a scalar instruction of
        /// tens of cycles. Exact for |x| and |d| below 2^52 (`by_scalar`,
        /// `within_f64`): the true quotient q lies at least 1/|d| from any
        /// integer it is not, and f64's relative error of 2^-53 moves it by
        /// at most |x|/|d| * 2^-53 < 1/(2|d|), so the floor is the same; an
        /// integer quotient is exact.
        #[inline(always)]
        fn $name(op: BinaryOp, x: &[$t], d: $t, dst: Dst) -> Result<(), Diagnostic> {
            let out = <$t>::dst_of(dst)?;
            let df = d as f64;
            // SAFETY: the floor of a quotient of values below 2^52 in magnitude
            // is finite and lies between 0 and the dividend (|d| >= 2; d == 1
            // gives the dividend itself), so it is a value of the type; `as`
            // would saturate, one element at a time.
            let quotient = |v: $t| unsafe { (v as f64 / df).floor().to_int_unchecked::<$t>() };
            if op == BinaryOp::FloorDiv {
                for (o, &v) in out.iter_mut().zip(x) {
                    o.write(quotient(v));
                }
            } else {
                for (o, &v) in out.iter_mut().zip(x) {
                    o.write(v.wrapping_sub(quotient(v).wrapping_mul(d)));
                }
            }
            Ok(())
        }
    };
}
int_by_scalar!(i32_by_scalar, i32);
int_by_scalar!(i64_by_scalar, i64);

/// Computes one non-load instruction into `dst` (see `compute`).
#[inline(always)]
fn compute_impl(inst: &Inst, vals: &[Value], dst: Dst) -> Result<(), Diagnostic> {
    match *inst {
        Inst::Cast(a) => match vals[a] {
            Value::B(x) => cast_from(x, dst),
            Value::I32(x) => cast_from(x, dst),
            Value::I64(x) => cast_from(x, dst),
            Value::F32(x) => cast_from(x, dst),
            Value::F64(x) => cast_from(x, dst),
        },
        Inst::Unary(u, a) => unary(u, vals[a], dst),
        Inst::Binary(BinaryOp::Bit(bit), a, b) => bit_binary(bit, vals[a], vals[b], dst),
        Inst::Binary(op, a, b) => match (vals[a], vals[b]) {
            (Value::F32(x), Value::F32(y)) => float_binary(op, x, y, dst),
            (Value::F64(x), Value::F64(y)) => float_binary(op, x, y, dst),
            (Value::I32(Src::Slice(x)), Value::I32(Src::Scalar(d))) if by_scalar(op, d as i64) => {
                i32_by_scalar(op, x, d, dst)
            }
            (Value::I64(Src::Slice(x)), Value::I64(Src::Scalar(d))) if by_scalar(op, d) && within_f64(x) => {
                i64_by_scalar(op, x, d, dst)
            }
            (Value::I32(x), Value::I32(y)) => num_binary(op, x, y, dst),
            (Value::I64(x), Value::I64(y)) => num_binary(op, x, y, dst),
            (Value::B(x), Value::B(y)) => bool_binary(op, x, y, dst),
            _ => Err(internal(format!("{op:?} of two dtypes"))),
        },
        Inst::Where(c, a, b) => {
            let Value::B(c) = vals[c] else {
                return Err(internal("where with a non-bool condition"));
            };
            match (vals[a], vals[b], dst) {
                (Value::B(x), Value::B(y), Dst::B(o)) => select(c, x, y, o),
                (Value::I32(x), Value::I32(y), Dst::I32(o)) => select(c, x, y, o),
                (Value::I64(x), Value::I64(y), Dst::I64(o)) => select(c, x, y, o),
                (Value::F32(x), Value::F32(y), Dst::F32(o)) => select(c, x, y, o),
                (Value::F64(x), Value::F64(y), Dst::F64(o)) => select(c, x, y, o),
                _ => return Err(internal("where of mixed dtypes")),
            }
            Ok(())
        }
        Inst::Load(_) | Inst::Acc | Inst::Row(_) => Err(internal("a load computed as an instruction")),
    }
}

/// Whether a block value is one value for all elements.
fn is_scalar(v: &Value) -> bool {
    matches!(
        v,
        Value::B(Src::Scalar(_))
            | Value::I32(Src::Scalar(_))
            | Value::I64(Src::Scalar(_))
            | Value::F32(Src::Scalar(_))
            | Value::F64(Src::Scalar(_))
    )
}

/// Two steps computed in one loop: `op2(op1(x, y), z)`, or `op2(z, op1(x, y))`
/// when not `left` (see `pair_partners`).
#[derive(Clone, Copy)]
struct Pair {
    op1: BinaryOp,
    op2: BinaryOp,
    left: bool,
}

/// Loops over three operands of every kind, `out[i] = f(x[i], y[i], z[i])`.
#[inline(always)]
fn map3<T: Copy>(x: Src<T>, y: Src<T>, z: Src<T>, out: &mut [MaybeUninit<T>], f: impl Fn(T, T, T) -> T) {
    use std::iter::repeat;
    let n = out.len();
    macro_rules! zip3 {
        ($a:expr, $b:expr, $c:expr) => {
            for (((o, a), b), c) in out.iter_mut().zip($a).zip($b).zip($c) {
                o.write(f(a, b, c));
            }
        };
    }
    match (x, y, z) {
        (Src::Slice(a), Src::Slice(b), Src::Slice(c)) => {
            zip3!(a[..n].iter().copied(), b[..n].iter().copied(), c[..n].iter().copied())
        }
        (Src::Slice(a), Src::Slice(b), Src::Scalar(c)) => {
            zip3!(a[..n].iter().copied(), b[..n].iter().copied(), repeat(c))
        }
        (Src::Slice(a), Src::Scalar(b), Src::Slice(c)) => {
            zip3!(a[..n].iter().copied(), repeat(b), c[..n].iter().copied())
        }
        (Src::Scalar(a), Src::Slice(b), Src::Slice(c)) => {
            zip3!(repeat(a), b[..n].iter().copied(), c[..n].iter().copied())
        }
        (Src::Slice(a), Src::Scalar(b), Src::Scalar(c)) => zip3!(a[..n].iter().copied(), repeat(b), repeat(c)),
        (Src::Scalar(a), Src::Slice(b), Src::Scalar(c)) => zip3!(repeat(a), b[..n].iter().copied(), repeat(c)),
        (Src::Scalar(a), Src::Scalar(b), Src::Slice(c)) => zip3!(repeat(a), repeat(b), c[..n].iter().copied()),
        (Src::Scalar(a), Src::Scalar(b), Src::Scalar(c)) => zip3!(repeat(a), repeat(b), repeat(c)),
    }
}

/// `pair` over one float dtype: each (op1, op2, side) its own loop, through
/// the reference kernels' `Num`/`Float` methods, so the pair's values are
/// bitwise those of its two steps one after the other.
#[inline(always)]
fn float_pair<T: Float + DstOf>(pair: Pair, x: Src<T>, y: Src<T>, z: Src<T>, dst: Dst) -> Result<(), Diagnostic> {
    use BinaryOp::{Add, Div, Mul, Sub};
    let out = T::dst_of(dst)?;
    macro_rules! inner {
        ($f1:expr) => {{
            let f1 = $f1;
            match (pair.op2, pair.left) {
                // + and * commute exactly
                (Add, _) => map3(x, y, z, out, |a, b, c| f1(a, b).add(c)),
                (Mul, _) => map3(x, y, z, out, |a, b, c| f1(a, b).mul(c)),
                (Sub, true) => map3(x, y, z, out, |a, b, c| f1(a, b).sub(c)),
                (Sub, false) => map3(x, y, z, out, |a, b, c| c.sub(f1(a, b))),
                (Div, true) => map3(x, y, z, out, |a, b, c| f1(a, b).div(c)),
                (Div, false) => map3(x, y, z, out, |a, b, c: T| c.div(f1(a, b))),
                _ => return Err(internal(format!("a pair ending in {:?}", pair.op2))),
            }
        }};
    }
    match pair.op1 {
        Add => inner!(|a: T, b: T| a.add(b)),
        Sub => inner!(|a: T, b: T| a.sub(b)),
        Mul => inner!(|a: T, b: T| a.mul(b)),
        Div => inner!(|a: T, b: T| a.div(b)),
        op => return Err(internal(format!("a pair starting with {op:?}"))),
    }
    Ok(())
}

/// Computes a pair of steps into `dst` (see `compute`).
#[inline(always)]
fn compute_pair_impl(pair: Pair, x: Value, y: Value, z: Value, dst: Dst) -> Result<(), Diagnostic> {
    match (x, y, z) {
        (Value::F32(x), Value::F32(y), Value::F32(z)) => float_pair(pair, x, y, z, dst),
        (Value::F64(x), Value::F64(y), Value::F64(z)) => float_pair(pair, x, y, z, dst),
        _ => Err(internal("a pair of steps of mixed dtypes")),
    }
}

/// A fused body ready to run block by block.
pub struct Program<'a> {
    pub steps: &'a [Step],
    pub inputs: Vec<Bound<'a>>,
    /// The input that `Inst::Acc` reads (an epilogue's reduced values).
    pub acc: Option<usize>,
    /// For each step, the step that computes it in its own loop, when that
    /// pays (`pair_partners`).
    pairs: StepVec<Option<usize>>,
    /// Whether a later step reads each step.
    read: StepVec<bool>,
}

/// Per-step facts of a program: on the stack for the bodies of most
/// kernels (a loop of small statements builds a program per kernel).
type StepVec<T> = smallvec::SmallVec<[T; 24]>;

impl<'a> Program<'a> {
    pub fn new(steps: &'a [Step], inputs: Vec<Bound<'a>>, acc: Option<usize>) -> Program<'a> {
        let mut read: StepVec<bool> = smallvec::smallvec![false; steps.len()];
        for step in steps {
            for a in step.inst.args() {
                read[a] = true;
            }
        }
        Program {
            steps,
            inputs,
            acc,
            pairs: pair_partners(steps),
            read,
        }
    }
}

/// The float arithmetic that a pair of steps runs in one loop.
fn pair_op(op: BinaryOp) -> bool {
    matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div)
}

/// Which steps a later step computes itself: step i, float `+ - * /` of two
/// values, read only by step j, also float `+ - * /` of i and another value,
/// is evaluated inside j's loop (`compute_pair`), so its values never go
/// through a register. A block of steps is bound by loads and stores, not
/// arithmetic (one op a loop moves three values per element), so a pair in
/// one loop saves a third of the traffic. A step that takes a partner is
/// not itself taken (pairs, not chains). Whether the pair runs so is decided
/// per block (`eval_body`): not when i's operands are both scalars (then i
/// is one value) or i is also written out (a tap).
fn pair_partners(steps: &[Step]) -> StepVec<Option<usize>> {
    let mut uses: StepVec<u32> = smallvec::smallvec![0; steps.len()];
    for step in steps {
        match step.inst {
            Inst::Cast(a) | Inst::Unary(_, a) => uses[a] += 1,
            Inst::Binary(_, a, b) => {
                uses[a] += 1;
                uses[b] += 1;
            }
            Inst::Where(c, a, b) => {
                uses[c] += 1;
                uses[a] += 1;
                uses[b] += 1;
            }
            Inst::Load(_) | Inst::Acc | Inst::Row(_) => {}
        }
    }
    let float_arith = |k: usize| match steps[k].inst {
        Inst::Binary(op, _, _) => pair_op(op) && matches!(steps[k].dtype, DType::F32 | DType::F64),
        _ => false,
    };
    let mut pairs: StepVec<Option<usize>> = smallvec::smallvec![None; steps.len()];
    let mut takes: StepVec<bool> = smallvec::smallvec![false; steps.len()];
    for j in 0..steps.len() {
        let Inst::Binary(_, a, b) = steps[j].inst else {
            continue;
        };
        if !float_arith(j) || a == b {
            continue;
        }
        for i in [a, b] {
            if float_arith(i) && uses[i] == 1 && steps[i].dtype == steps[j].dtype && !takes[i] && pairs[i].is_none() {
                pairs[i] = Some(j);
                takes[j] = true;
                break;
            }
        }
    }
    pairs
}

/// The operand a step reads as it is (a load, or the reduction's accumulator), if any.
fn loaded_operand(prog: &Program<'_>, inst: &Inst) -> Option<usize> {
    match *inst {
        Inst::Load(k) => Some(k),
        Inst::Acc => prog.acc,
        _ => None,
    }
}

/// Evaluates the program over one block. `offs[k]` is operand k's buffer
/// offset of the block's first element and `inner[k]` its step between the
/// block's elements. With `out`, the last step is written there and `None`
/// returned; otherwise the last step's value is returned (for a reduction).
#[inline(always)]
fn eval_block_impl<'p: 'r, 'r>(
    prog: &Program<'p>,
    offs: &[isize],
    inner: &[isize],
    len: usize,
    regs: &'r mut [Reg],
    out: Option<Dst>,
    taps: &mut [Tap],
) -> Result<Option<Value<'r>>, Diagnostic> {
    eval_body(
        prog,
        |k, b, reg| load(b.input, b.dtype, offs[k], inner[k], len, reg),
        len,
        regs,
        out,
        taps,
    )
}

/// Evaluates the program over `len` elements whose operand values `loader`
/// produces (operand index, its binding, a register to gather into).
#[inline(always)]
fn eval_body<'p: 'r, 'r>(
    prog: &Program<'p>,
    loader: impl Fn(usize, &Bound<'p>, &'r mut Reg) -> Value<'r>,
    len: usize,
    regs: &'r mut [Reg],
    out: Option<Dst>,
    taps: &mut [Tap],
) -> Result<Option<Value<'r>>, Diagnostic> {
    let steps = prog.steps;
    // A body that only reads one operand (a plain reduction or copy): its
    // value is the operand's, without the value stack below, whose set-up
    // and reload cost more than a short block's loop.
    if let [step] = steps
        && taps.is_empty()
        && let Some(k) = loaded_operand(prog, &step.inst)
    {
        let b = prog
            .inputs
            .get(k)
            .ok_or_else(|| internal("a load of a missing operand"))?;
        let reg = regs.first_mut().ok_or_else(|| internal("fewer registers than steps"))?;
        let v = loader(k, b, reg);
        return match out {
            Some(dst) => store(v, dst).map(|()| None),
            None => Ok(Some(v)),
        };
    }
    const SMALL: usize = 8;
    const STACK: usize = 32;
    let filler = Value::B(Src::Scalar(false));
    let mut small;
    let mut stack;
    let mut heap;
    let vals: &mut [Value<'r>] = if steps.len() <= SMALL {
        small = [filler; SMALL];
        &mut small[..]
    } else if steps.len() <= STACK {
        stack = [filler; STACK];
        &mut stack[..]
    } else {
        heap = vec![filler; steps.len()];
        &mut heap[..]
    };
    let mut rest: &'r mut [Reg] = regs;
    let mut out = out;
    // Whether step i runs inside its partner's loop in this block (see `pair_partners`).
    let deferred = |i: usize, vals: &[Value], taps: &[Tap]| -> bool {
        prog.pairs.get(i).is_some_and(|p| p.is_some())
            && match steps[i].inst {
                Inst::Binary(_, a, b) => !(is_scalar(&vals[a]) && is_scalar(&vals[b])),
                _ => false,
            }
            && !taps.iter().any(|t| t.step == i)
    };
    for (i, step) in steps.iter().enumerate() {
        let Some((reg, tail)) = std::mem::take(&mut rest).split_first_mut() else {
            return Err(internal("fewer registers than steps"));
        };
        rest = tail;
        let last = i + 1 == steps.len();
        // the last step goes straight into `out` unless a tap wants its block too
        // (a member of a multi-output map that is the output's own value)
        let direct = last && !taps.iter().any(|t| t.step == i);
        // a storage-only step computes into its wide register, which `store` then narrows
        let wide = step.dtype.is_storage_only();
        if !last && deferred(i, &vals[..i], taps) {
            // never read: its one reader computes it (`compute_pair`)
            vals[i] = filler;
            continue;
        }
        if let Inst::Binary(op2, a, b) = step.inst
            && let Some((inner, left)) = [(a, true), (b, false)]
                .into_iter()
                .find(|&(k, _)| prog.pairs[k] == Some(i) && deferred(k, &vals[..k], taps))
            && let Inst::Binary(op1, x, y) = steps[inner].inst
        {
            let other = if left { b } else { a };
            let pair = Pair { op1, op2, left };
            let (x, y, z) = (vals[x], vals[y], vals[other]);
            if direct && let Some(dst) = out.take() {
                compute_pair(pair, x, y, z, dst)?;
                return Ok(None);
            }
            compute_pair(pair, x, y, z, reg.dst(len))?;
            let reg: &'r Reg = reg;
            vals[i] = reg.value(len);
        } else if let Some(k) = loaded_operand(prog, &step.inst) {
            let b = prog
                .inputs
                .get(k)
                .ok_or_else(|| internal("a load of a missing operand"))?;
            let v = loader(k, b, reg);
            if direct && let Some(dst) = out.take() {
                store(v, dst)?;
                return Ok(None);
            }
            vals[i] = v;
        } else if wide {
            vals[i] = compute_storage(&step.inst, &vals[..i], reg, len, step.dtype)?;
        } else if direct && let Some(dst) = out.take() {
            compute(&step.inst, &vals[..i], dst)?;
            return Ok(None);
        } else if !prog.read[i]
            && (!last || out.is_none())
            && !scalar_args(&step.inst, &vals[..i])
            && let Some(k) = taps.iter().position(|t| t.step == i)
            && taps.iter().filter(|t| t.step == i).count() == 1
            && let Some(dst) = taps[k].dst.take()
        {
            // a step only written out (a stage's values, streamed) goes straight into its tap
            compute(&step.inst, &vals[..i], dst)?;
            vals[i] = filler;
            continue;
        } else {
            vals[i] = compute_step(&step.inst, &vals[..i], reg, len)?;
        }
        for tap in taps.iter_mut().filter(|t| t.step == i) {
            if let Some(dst) = tap.dst.take() {
                store(vals[i], dst)?;
            }
        }
    }
    let value = steps.len().checked_sub(1).map(|i| vals[i]);
    match (out, value) {
        // a tapped last step: its block went to the taps above, and goes to `out` now
        (Some(dst), Some(v)) => store(v, dst).map(|()| None),
        _ => Ok(value),
    }
}

/// A body step whose block of values is also written to a buffer of its
/// own, as the block is evaluated (a multi-output map's extra outputs).
pub struct Tap<'a> {
    pub step: usize,
    pub dst: Option<Dst<'a>>,
}

/// Whether every value the instruction reads is one value for the whole block.
#[inline(always)]
fn scalar_args(inst: &Inst, vals: &[Value]) -> bool {
    let one = |k: usize| is_scalar(&vals[k]);
    match *inst {
        Inst::Cast(a) | Inst::Unary(_, a) => one(a),
        Inst::Binary(_, a, b) => one(a) && one(b),
        Inst::Where(c, a, b) => one(c) && one(a) && one(b),
        Inst::Load(_) | Inst::Acc | Inst::Row(_) => false,
    }
}

/// Computes a non-load step into its register. A step of block-wide values
/// (a broadcast scalar's arithmetic, `f32(dt / dx)`) is computed once and
/// stays one value, so it costs nothing per element in later steps either.
#[inline(always)]
fn compute_step<'r>(inst: &Inst, vals: &[Value], reg: &'r mut Reg, len: usize) -> Result<Value<'r>, Diagnostic> {
    if scalar_args(inst, vals) {
        compute(inst, vals, reg.dst(1))?;
        return Ok(reg.scalar());
    }
    compute(inst, vals, reg.dst(len))?;
    let reg: &'r Reg = reg;
    Ok(reg.value(len))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn eval_block_avx2<'p: 'r, 'r>(
    prog: &Program<'p>,
    offs: &[isize],
    inner: &[isize],
    len: usize,
    regs: &'r mut [Reg],
    out: Option<Dst>,
    taps: &mut [Tap],
) -> Result<Option<Value<'r>>, Diagnostic> {
    eval_block_impl(prog, offs, inner, len, regs, out, taps)
}

fn eval_block_base<'p: 'r, 'r>(
    prog: &Program<'p>,
    offs: &[isize],
    inner: &[isize],
    len: usize,
    regs: &'r mut [Reg],
    out: Option<Dst>,
    taps: &mut [Tap],
) -> Result<Option<Value<'r>>, Diagnostic> {
    eval_block_impl(prog, offs, inner, len, regs, out, taps)
}

/// Declares `fn $name(args)` that runs `$imp` (an `#[inline(always)]` loop
/// with the same arguments) compiled for AVX2+FMA where the CPU has them
/// (`has_avx2`), and as the baseline build elsewhere: the loop is written
/// once, and the two builds and the run-time choice come from here.
macro_rules! avx2_dispatch {
    (
        $(#[$meta:meta])*
        fn $name:ident<$($g:ident $(: $bound:ident)?),*>($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? = $imp:ident;
    ) => {
        $(#[$meta])*
        fn $name<$($g $(: $bound)?),*>($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn avx2<$($g $(: $bound)?),*>($($arg: $ty),*) $(-> $ret)? {
                $imp($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            if $crate::backend::cpu::block::has_avx2() {
                // SAFETY: the CPU supports AVX2 and FMA (checked at run time).
                return unsafe { avx2($($arg),*) };
            }
            $imp($($arg),*)
        }
    };
}
pub(crate) use avx2_dispatch;

/// As `avx2_dispatch!`, with an AVX-512 (F, DQ, VL) build first where the
/// CPU has it (`has_avx512dq`): for the loops that are bound by arithmetic
/// rather than by memory, the instruction loops of `compute` and
/// `compute_pair`, where twice the lanes pay (a chain of transcendentals and
/// arithmetic on a block in L1).
macro_rules! widest_dispatch {
    (
        $(#[$meta:meta])*
        fn $name:ident<$($g:ident $(: $bound:ident)?),*>($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? = $imp:ident;
    ) => {
        $(#[$meta])*
        fn $name<$($g $(: $bound)?),*>($($arg: $ty),*) $(-> $ret)? {
            avx2_dispatch! {
                #[inline(always)]
                fn narrower<$($g $(: $bound)?),*>($($arg: $ty),*) $(-> $ret)? = $imp;
            }
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
            unsafe fn avx512<$($g $(: $bound)?),*>($($arg: $ty),*) $(-> $ret)? {
                $imp($($arg),*)
            }
            #[cfg(target_arch = "x86_64")]
            if $crate::backend::cpu::block::has_avx512dq() {
                // SAFETY: the CPU supports AVX-512 F, DQ and VL, AVX2 and FMA (checked at run time).
                return unsafe { avx512($($arg),*) };
            }
            narrower($($arg),*)
        }
    };
}

pub(crate) use widest_dispatch;

widest_dispatch! {
    /// Computes a pair of steps into `dst`; called, never inlined, as `compute`.
    #[inline(never)]
    fn compute_pair<>(pair: Pair, x: Value, y: Value, z: Value, dst: Dst) -> Result<(), Diagnostic> = compute_pair_impl;
}

widest_dispatch! {
    /// Computes one non-load instruction into `dst`. Called, never inlined:
    /// each evaluator (a block, rows, resident rows, each in both builds)
    /// used to inline every op's loops at each of its call sites, about 36
    /// copies of the largest code in the crate, and compiling them was most
    /// of a release build. One call per step and block costs nothing next
    /// to the step's loop.
    #[inline(never)]
    fn compute<>(inst: &Inst, vals: &[Value], dst: Dst) -> Result<(), Diagnostic> = compute_impl;
}

/// Whether this machine runs the AVX2+FMA build of the block loops.
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static AVX2: OnceLock<bool> = OnceLock::new();
        *AVX2.get_or_init(|| {
            std::env::var_os("ARR_NO_AVX2").is_none()
                && is_x86_feature_detected!("avx2")
                && is_x86_feature_detected!("fma")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `eval_block_impl` compiled for the best instruction set this machine has.
pub fn eval_block<'p: 'r, 'r>(
    prog: &Program<'p>,
    offs: &[isize],
    inner: &[isize],
    len: usize,
    regs: &'r mut [Reg],
    out: Option<Dst>,
    taps: &mut [Tap],
) -> Result<Option<Value<'r>>, Diagnostic> {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU supports AVX2 and FMA (checked at run time above).
        return unsafe { eval_block_avx2(prog, offs, inner, len, regs, out, taps) };
    }
    eval_block_base(prog, offs, inner, len, regs, out, taps)
}

/// An operand's values over a block of `nrows` rows of `len` elements:
/// row r starts at buffer offset `off + r * rs`, elements `s` apart.
/// Rows that all read one element are one scalar; otherwise the rows are
/// copied (or gathered) one after another into the register.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn load_rows<'a>(
    input: Input<'a>,
    off0: isize,
    rs: isize,
    s: isize,
    len: usize,
    nrows: usize,
    reg: &'a mut Reg,
) -> Value<'a> {
    let off = |r: usize| off0 + r as isize * rs;
    macro_rules! data {
        ($x:expr, $V:ident) => {{
            let x = $x;
            if s == 0 && rs == 0 {
                return Value::$V(Src::Scalar(x[off0 as usize]));
            }
            // rows that follow one another in the buffer are read in place
            if s == 1 && rs == len as isize {
                let o = off(0) as usize;
                return Value::$V(Src::Slice(&x[o..o + nrows * len]));
            }
            let Reg::$V(r) = reg else {
                unreachable!("registers follow step dtypes")
            };
            for (row, seg) in r[..nrows * len].chunks_exact_mut(len).enumerate() {
                let o = off(row);
                match s {
                    1 => seg.copy_from_slice(&x[o as usize..o as usize + len]),
                    0 => seg.fill(x[o as usize]),
                    _ => gather(x, o, s, seg),
                }
            }
            Value::$V(Src::Slice(&r[..nrows * len]))
        }};
    }
    match input {
        Input::Data(Data::B(x)) => data!(x, B),
        Input::Data(Data::I32(x)) => data!(x, I32),
        Input::Data(Data::I64(x)) => data!(x, I64),
        Input::Data(Data::F32(x)) => data!(x, F32),
        Input::Data(Data::F64(x)) => data!(x, F64),
        Input::Data(Data::Storage(d)) => load_storage(d, off0, s, len, rs, nrows, reg),
        // eval_rows runs only programs whose operands are all buffers
        Input::Arange { .. } | Input::Random { .. } => unreachable!("a generator in a block of rows"),
    }
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn eval_rows_impl<'p: 'r, 'r>(
    prog: &Program<'p>,
    offs: &[isize],
    rstep: &[isize],
    inner: &[isize],
    len: usize,
    nrows: usize,
    regs: &'r mut [Reg],
    out: Option<Dst>,
    taps: &mut [Tap],
) -> Result<Option<Value<'r>>, Diagnostic> {
    eval_body(
        prog,
        |k, b, reg| load_rows(b.input, offs[k], rstep[k], inner[k], len, nrows, reg),
        len * nrows,
        regs,
        out,
        taps,
    )
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn eval_rows_avx2<'p: 'r, 'r>(
    prog: &Program<'p>,
    offs: &[isize],
    rstep: &[isize],
    inner: &[isize],
    len: usize,
    nrows: usize,
    regs: &'r mut [Reg],
    out: Option<Dst>,
    taps: &mut [Tap],
) -> Result<Option<Value<'r>>, Diagnostic> {
    eval_rows_impl(prog, offs, rstep, inner, len, nrows, regs, out, taps)
}

#[allow(clippy::too_many_arguments)]
fn eval_rows_base<'p: 'r, 'r>(
    prog: &Program<'p>,
    offs: &[isize],
    rstep: &[isize],
    inner: &[isize],
    len: usize,
    nrows: usize,
    regs: &'r mut [Reg],
    out: Option<Dst>,
    taps: &mut [Tap],
) -> Result<Option<Value<'r>>, Diagnostic> {
    eval_rows_impl(prog, offs, rstep, inner, len, nrows, regs, out, taps)
}

/// Whether `eval_rows` can run this program: every operand reads a buffer.
pub fn rows_ok(prog: &Program<'_>) -> bool {
    prog.inputs.iter().all(|b| matches!(b.input, Input::Data(_)))
}

/// Whether rows of `len` elements should go several to a block
/// (`eval_rows`) rather than one row a block (`eval_block`). Several rows
/// make each step's loop longer, saving each step's fixed cost per block
/// for every row but the first; but an operand whose rows do not follow one
/// another in its buffer is copied into a register first, a pass over its
/// values that a row read in place does not pay. Measured on heat (five
/// shifted views of one plate, rows of 498: one row a block is 18% faster)
/// and shallow water (two or three copied operands under ten steps, rows of
/// 200: several rows a block is 25% faster; both hold for 100 to 200
/// here), copying one element costs about 1/`ROW_COPIES_PER_STEP` of a
/// step's fixed cost.
pub fn rows_pay(prog: &Program<'_>, len: usize, row_strides: &[isize], inner_strides: &[isize]) -> bool {
    if len * 4 > BLOCK || !rows_ok(prog) {
        return false;
    }
    let copied = row_strides
        .iter()
        .zip(inner_strides)
        .filter(|&(&rs, &s)| !((rs == 0 && s == 0) || (s == 1 && rs == len as isize)))
        .count();
    copied * len <= prog.steps.len() * ROW_COPIES_PER_STEP
}

/// Elements copied into a row register that cost about as much as one
/// step's fixed cost per block (see `rows_pay`).
const ROW_COPIES_PER_STEP: usize = 150;

/// Evaluates the program over a block of `nrows` short rows of `len`
/// elements each, as one block of `nrows * len` values (row after row), so
/// that each step's loop runs over the whole block rather than one short
/// row: `offs[k]` is operand k's offset of the first row's first element,
/// `rstep[k]` its step from one row to the next and `inner[k]` along a row.
/// `nrows * len` is at most `BLOCK`, and every operand reads a buffer
/// (`rows_ok`).
#[allow(clippy::too_many_arguments)]
pub fn eval_rows<'p: 'r, 'r>(
    prog: &Program<'p>,
    offs: &[isize],
    rstep: &[isize],
    inner: &[isize],
    len: usize,
    nrows: usize,
    regs: &'r mut [Reg],
    out: Option<Dst>,
    taps: &mut [Tap],
) -> Result<Option<Value<'r>>, Diagnostic> {
    let ni = prog.inputs.len();
    if len * nrows > BLOCK || offs.len() < ni || rstep.len() < ni || inner.len() < ni || !rows_ok(prog) {
        return Err(internal("a block of rows larger than a block"));
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU supports AVX2 and FMA (checked at run time above).
        return unsafe { eval_rows_avx2(prog, offs, rstep, inner, len, nrows, regs, out, taps) };
    }
    eval_rows_base(prog, offs, rstep, inner, len, nrows, regs, out, taps)
}

/// The dtype of a block value.
fn value_dtype(v: &Value) -> DType {
    match v {
        Value::B(_) => DType::Bool,
        Value::I32(_) => DType::I32,
        Value::I64(_) => DType::I64,
        Value::F32(_) => DType::F32,
        Value::F64(_) => DType::F64,
    }
}

/// Reduces a row's values with a stage's op into one value (the fused
/// executor's fold, so a row-resident sum is the row reduction's sum bitwise).
pub type RowFold<'f> = &'f dyn Fn(ReduceOp, Value<'_>, usize) -> Result<Value<'static>, Diagnostic>;

/// Body steps whose one value per row a row-resident evaluation hands back
/// (a kernel's extra per-row outputs), and where: the row's value of
/// `steps[k]` goes to `values[k]`.
pub struct Taps<'t> {
    pub steps: &'t [usize],
    pub values: &'t mut [Value<'static>],
}

/// Copies each tapped step's per-row value (a scalar, or the first of a
/// row of equal values) out of the evaluated `vals` of one row.
fn tap(vals: &[Value<'_>], taps: Taps<'_>) -> Result<(), Diagnostic> {
    for (&k, slot) in taps.steps.iter().zip(taps.values.iter_mut()) {
        let &v = vals.get(k).ok_or_else(|| internal("a tapped step past the body"))?;
        *slot = row_entry(v, 0);
    }
    Ok(())
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn eval_resident_impl<'p: 'r, 'r>(
    prog: &Program<'p>,
    offs: &[isize],
    inner: &[isize],
    len: usize,
    regs: &'r mut [Reg],
    stages: &[RowStage],
    fold: RowFold<'_>,
    want: usize,
    out: Option<Dst>,
    taps: Taps<'_>,
) -> Result<Option<Value<'r>>, Diagnostic> {
    let steps = prog.steps;
    let mut out = out;
    let filler = Value::B(Src::Scalar(false));
    let mut vals: Vec<Value<'r>> = vec![filler; steps.len()];
    let mut rest: &'r mut [Reg] = regs;
    for (i, step) in steps.iter().enumerate() {
        let Some((reg, tail)) = std::mem::take(&mut rest).split_first_mut() else {
            return Err(internal("fewer registers than steps"));
        };
        rest = tail;
        vals[i] = match step.inst {
            Inst::Load(k) => load_operand(prog, k, offs, inner, len, reg)?,
            Inst::Row(k) => {
                let stage = stages.get(k).ok_or_else(|| internal("a missing row stage"))?;
                let v = *vals
                    .get(stage.value)
                    .filter(|_| stage.value < i)
                    .ok_or_else(|| internal("a row stage of a later step"))?;
                fold_stage(stage, v, len, step.dtype, fold, reg)?
            }
            Inst::Acc => return Err(internal("an accumulator in a row-resident body")),
            // the written step, when it is the last, goes straight into the output
            _ if i == want && i + 1 == steps.len() && out.is_some() => {
                if let Some(dst) = out.take() {
                    compute(&step.inst, &vals[..i], dst)?;
                }
                tap(&vals[..i], taps)?;
                return Ok(None);
            }
            _ => compute_step(&step.inst, &vals[..i], reg, len)?,
        };
    }
    tap(&vals, taps)?;
    let v = *vals
        .get(want)
        .ok_or_else(|| internal("a row-resident output past the body"))?;
    match out {
        Some(dst) => store(v, dst).map(|()| None),
        None => Ok(Some(v)),
    }
}

/// Operand `k`'s values over `len` elements from its offset `offs[k]` along `inner[k]`.
#[inline(always)]
fn load_operand<'p: 'r, 'r>(
    prog: &Program<'p>,
    k: usize,
    offs: &[isize],
    inner: &[isize],
    len: usize,
    reg: &'r mut Reg,
) -> Result<Value<'r>, Diagnostic> {
    let b = prog
        .inputs
        .get(k)
        .ok_or_else(|| internal("a load of a missing operand"))?;
    Ok(load(b.input, b.dtype, offs[k], inner[k], len, reg))
}

/// A row stage's reduction of its values `v` (a row of `len`) by `fold`, as
/// one value of `dtype` (cast into `reg` when the accumulator's differs).
#[inline(always)]
fn fold_stage<'r>(
    stage: &RowStage,
    v: Value<'_>,
    len: usize,
    dtype: DType,
    fold: RowFold<'_>,
    reg: &'r mut Reg,
) -> Result<Value<'r>, Diagnostic> {
    let r = fold(stage.op, v, len)?;
    if value_dtype(&r) == dtype {
        return Ok(r);
    }
    compute(&Inst::Cast(0), &[r], reg.dst(1))?;
    Ok(reg.scalar())
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn eval_resident_avx2<'p: 'r, 'r>(
    prog: &Program<'p>,
    offs: &[isize],
    inner: &[isize],
    len: usize,
    regs: &'r mut [Reg],
    stages: &[RowStage],
    fold: RowFold<'_>,
    want: usize,
    out: Option<Dst>,
    taps: Taps<'_>,
) -> Result<Option<Value<'r>>, Diagnostic> {
    eval_resident_impl(prog, offs, inner, len, regs, stages, fold, want, out, taps)
}

/// Evaluates a row-resident body (`Strategy::RowResident`) over one whole
/// row of `len` elements held in the registers (at least `len` long):
/// `offs[k]` is operand k's offset of the row's first element and `inner[k]`
/// its step along the row. Each `Inst::Row(k)` step is stage k's reduction
/// of its value step over the row (by `fold`), one value for the row, so the
/// steps after it read the row from the registers, never from memory again.
/// Step `want`'s value is written into `out` (`len` elements; the last
/// step straight from its loop) and `None` returned, or returned without it;
/// the tapped steps' row values are copied into `taps`.
#[allow(clippy::too_many_arguments)]
pub fn eval_resident<'p: 'r, 'r>(
    prog: &Program<'p>,
    offs: &[isize],
    inner: &[isize],
    len: usize,
    regs: &'r mut [Reg],
    stages: &[RowStage],
    fold: RowFold<'_>,
    want: usize,
    out: Option<Dst>,
    taps: Taps<'_>,
) -> Result<Option<Value<'r>>, Diagnostic> {
    let ni = prog.inputs.len();
    if offs.len() < ni || inner.len() < ni || regs.iter().any(|r| r.len() < len) {
        return Err(internal("a row longer than its registers"));
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU supports AVX2 and FMA (checked at run time above).
        return unsafe { eval_resident_avx2(prog, offs, inner, len, regs, stages, fold, want, out, taps) };
    }
    eval_resident_impl(prog, offs, inner, len, regs, stages, fold, want, out, taps)
}

/// A streamed row-resident body (`plan::rows_stream`) split for
/// `eval_resident_streamed`: the steps that no reduction's result reaches,
/// as a program of their own run block by block, and where each stage's
/// value is in it.
pub struct StreamSplit {
    pub steps: Vec<Step>,
    /// Per stage: its value's step in `steps`.
    pub stage_values: Vec<usize>,
    /// The body's steps the row's one value needs: the reductions, the
    /// steps after them, and what they read.
    pub per_row: Vec<bool>,
}

impl StreamSplit {
    /// None when a stage's value is reached by a reduction's result (the
    /// planner streams no such body).
    pub fn new(body: &[Step], stages: &[RowStage], want: usize, taps: &[usize]) -> Option<StreamSplit> {
        let mut after_row = vec![false; body.len()];
        let mut renumber = vec![usize::MAX; body.len()];
        let mut steps = Vec::new();
        for (i, step) in body.iter().enumerate() {
            after_row[i] = matches!(step.inst, Inst::Row(_)) || step.inst.args().any(|a| after_row[a]);
            if after_row[i] {
                continue;
            }
            let m = |a: usize| renumber[a];
            let inst = match step.inst {
                Inst::Cast(a) => Inst::Cast(m(a)),
                Inst::Unary(u, a) => Inst::Unary(u, m(a)),
                Inst::Binary(b, x, y) => Inst::Binary(b, m(x), m(y)),
                Inst::Where(c, x, y) => Inst::Where(m(c), m(x), m(y)),
                ref other => other.clone(),
            };
            renumber[i] = steps.len();
            steps.push(Step {
                inst,
                dtype: step.dtype,
            });
        }
        let stage_values = stages
            .iter()
            .map(|st| renumber.get(st.value).copied().filter(|&v| v != usize::MAX))
            .collect::<Option<_>>()?;
        let mut per_row = after_row;
        for &k in taps.iter().chain([&want]) {
            *per_row.get_mut(k)? = true;
        }
        for i in (0..body.len()).rev() {
            if per_row[i] {
                for a in body[i].inst.args() {
                    per_row[a] = true;
                }
            }
        }
        Some(StreamSplit {
            steps,
            stage_values,
            per_row,
        })
    }
}

/// `eval_resident` for a body that `plan::rows_stream` accepts: the row
/// goes through in blocks (`split`, the program of `parts.steps`, its registers `regs`), each
/// stage's values written into `stage_rows[k]` (a row long). Then each
/// stage folds its whole row (by `fold`, as `eval_resident` does, so the
/// sums are the same bitwise), and the body's steps after the reductions,
/// all one value per row, run once (into `row_regs`). Returns step `want`'s
/// value; the tapped steps' row values are copied into `taps`.
#[allow(clippy::too_many_arguments)]
pub fn eval_resident_streamed<'p: 'r, 'r>(
    prog: &Program<'p>,
    split: &Program<'p>,
    parts: &StreamSplit,
    offs: &[isize],
    inner: &[isize],
    len: usize,
    regs: &mut [Reg],
    row_regs: &'r mut [Reg],
    stage_rows: &mut [Reg],
    stages: &[RowStage],
    fold: RowFold<'_>,
    want: usize,
    taps: Taps<'_>,
) -> Result<Value<'r>, Diagnostic> {
    let ni = prog.inputs.len();
    if offs.len() < ni
        || inner.len() < ni
        || stage_rows.len() < stages.len()
        || stage_rows.iter().any(|r| r.len() < len)
    {
        return Err(internal("a streamed row longer than its registers"));
    }
    let mut block_offs = offs.to_vec();
    let mut start = 0;
    while start < len {
        let n = BLOCK.min(len - start);
        for ((o, &base), &s) in block_offs.iter_mut().zip(offs).zip(inner) {
            *o = base + start as isize * s;
        }
        let mut written: Vec<Tap> = parts
            .stage_values
            .iter()
            .zip(stage_rows.iter_mut())
            .map(|(&step, row)| Tap {
                step,
                dst: Some(row.dst_range(start, n)),
            })
            .collect();
        eval_block(split, &block_offs, inner, n, regs, None, &mut written)?;
        start += n;
    }
    // the row's values: the loads' first elements, the reductions, the steps after them
    let steps = prog.steps;
    let filler = Value::B(Src::Scalar(false));
    let mut rest: &'r mut [Reg] = row_regs;
    let mut vals: Vec<Value<'r>> = vec![filler; steps.len()];
    for (i, step) in steps.iter().enumerate() {
        let Some((reg, tail)) = std::mem::take(&mut rest).split_first_mut() else {
            return Err(internal("fewer registers than steps"));
        };
        rest = tail;
        if !parts.per_row[i] {
            continue;
        }
        vals[i] = match step.inst {
            Inst::Load(k) => load_operand(prog, k, offs, inner, 1, reg)?,
            Inst::Row(k) => {
                let stage = stages.get(k).ok_or_else(|| internal("a missing row stage"))?;
                let row = stage_rows.get(k).ok_or_else(|| internal("a missing stage row"))?;
                fold_stage(stage, row.value(len), len, step.dtype, fold, reg)?
            }
            Inst::Acc => return Err(internal("an accumulator in a row-resident body")),
            ref inst => compute_step(inst, &vals[..i], reg, 1)?,
        };
    }
    tap(&vals, taps)?;
    vals.get(want)
        .copied()
        .ok_or_else(|| internal("a row-resident output past the body"))
}

/// Where a value of a block of several rows lives: one value for the whole
/// block, one per row (`nrows` values), or one per element (`nrows * len`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Block,
    Row,
    Elem,
}

/// A row value's `r`th entry as one value (a block-wide value stays as it is).
fn row_entry(v: Value<'_>, r: usize) -> Value<'static> {
    fn at<T: Copy>(s: Src<'_, T>, r: usize) -> Src<'static, T> {
        Src::Scalar(s.at(r))
    }
    match v {
        Value::B(s) => Value::B(at(s, r)),
        Value::I32(s) => Value::I32(at(s, r)),
        Value::I64(s) => Value::I64(at(s, r)),
        Value::F32(s) => Value::F32(at(s, r)),
        Value::F64(s) => Value::F64(at(s, r)),
    }
}

/// Row `r`'s `len` elements of an element value, or a row value's entry.
fn row_segment<'v>(v: Value<'v>, level: Level, r: usize, len: usize) -> Value<'v> {
    if level != Level::Elem {
        return row_entry(v, if level == Level::Row { r } else { 0 });
    }
    match v {
        Value::B(s) => Value::B(s.segment(r * len, len)),
        Value::I32(s) => Value::I32(s.segment(r * len, len)),
        Value::I64(s) => Value::I64(s.segment(r * len, len)),
        Value::F32(s) => Value::F32(s.segment(r * len, len)),
        Value::F64(s) => Value::F64(s.segment(r * len, len)),
    }
}

/// A row value (`nrows` values) spread over its rows' `len` elements each.
fn expand<'r>(v: Value<'_>, len: usize, nrows: usize, reg: &'r mut Reg) -> Result<Value<'r>, Diagnostic> {
    macro_rules! go {
        ($s:expr, $V:ident) => {{
            let Reg::$V(out) = reg else {
                return Err(internal("a row value expanded into a register of another dtype"));
            };
            for (r, seg) in out[..nrows * len].chunks_exact_mut(len).enumerate() {
                seg.fill($s.at(r));
            }
            Value::$V(Src::Slice(&out[..nrows * len]))
        }};
    }
    Ok(match v {
        Value::B(s) => go!(s, B),
        Value::I32(s) => go!(s, I32),
        Value::I64(s) => go!(s, I64),
        Value::F32(s) => go!(s, F32),
        Value::F64(s) => go!(s, F64),
    })
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn eval_resident_rows_impl<'p: 'r, 'r>(
    prog: &Program<'p>,
    offs: &[isize],
    rstep: &[isize],
    inner: &[isize],
    len: usize,
    nrows: usize,
    regs: &'r mut [Reg],
    wide: &'r mut [Reg],
    stages: &[RowStage],
    fold: RowFold<'_>,
    want: usize,
    out: Option<Dst>,
    taps: Taps<'_>,
) -> Result<Option<(Value<'r>, bool)>, Diagnostic> {
    let steps = prog.steps;
    let n = nrows * len;
    let mut out = out;
    let filler = Value::B(Src::Scalar(false));
    let mut vals: Vec<Value<'r>> = vec![filler; steps.len()];
    // each value as element steps read it: a row value is spread over its
    // row (once, into `wide`) the first time an element step reads it
    let mut wvals: Vec<Value<'r>> = vec![filler; steps.len()];
    let mut spread = vec![false; steps.len()];
    let mut level = vec![Level::Block; steps.len()];
    let mut rest: &'r mut [Reg] = regs;
    // each step's wide register, taken when its row value is spread
    let mut spare: Vec<Option<&'r mut Reg>> = wide.iter_mut().map(Some).collect();
    for (i, step) in steps.iter().enumerate() {
        let Some((reg, tail)) = std::mem::take(&mut rest).split_first_mut() else {
            return Err(internal("fewer registers than steps"));
        };
        rest = tail;
        let (v, lv) = match step.inst {
            Inst::Load(k) => {
                let b = prog
                    .inputs
                    .get(k)
                    .ok_or_else(|| internal("a load of a missing operand"))?;
                let (rs, s) = (rstep[k], inner[k]);
                if s == 0 && rs == 0 {
                    (load_rows(b.input, offs[k], 0, 0, 1, 1, reg), Level::Block)
                } else if s == 0 {
                    // one value per row: the rows' first elements, `rs` apart
                    (load_rows(b.input, offs[k], rs, 1, 1, nrows, reg), Level::Row)
                } else {
                    (load_rows(b.input, offs[k], rs, s, len, nrows, reg), Level::Elem)
                }
            }
            Inst::Row(k) => {
                let stage = stages.get(k).ok_or_else(|| internal("a missing row stage"))?;
                let (v, vl) = vals
                    .get(stage.value)
                    .zip(level.get(stage.value))
                    .filter(|_| stage.value < i)
                    .map(|(&v, &l)| (v, l))
                    .ok_or_else(|| internal("a row stage of a later step"))?;
                for r in 0..nrows {
                    let folded = fold(stage.op, row_segment(v, vl, r, len), len)?;
                    let dst = reg.dst_range(r, 1);
                    if value_dtype(&folded) == step.dtype {
                        store(folded, dst)?;
                    } else {
                        compute(&Inst::Cast(0), &[folded], dst)?;
                    }
                }
                let reg: &'r Reg = reg;
                (reg.value(nrows), Level::Row)
            }
            Inst::Acc => return Err(internal("an accumulator in a row-resident body")),
            ref inst => {
                let lv = inst.args().map(|a| level[a]).max().unwrap_or(Level::Block);
                match lv {
                    Level::Block => (compute_step(inst, &vals[..i], reg, 1)?, Level::Block),
                    Level::Row => (compute_step(inst, &vals[..i], reg, nrows)?, Level::Row),
                    Level::Elem => {
                        for a in inst.args() {
                            if level[a] == Level::Row && !spread[a] {
                                let w = spare[a].take().ok_or_else(|| internal("a row value spread twice"))?;
                                wvals[a] = expand(vals[a], len, nrows, w)?;
                                spread[a] = true;
                            }
                        }
                        if i == want && i + 1 == steps.len() && out.is_some() {
                            if let Some(dst) = out.take() {
                                compute(inst, &wvals[..i], dst)?;
                            }
                            tap_rows(&vals[..i], &level[..i], len, nrows, taps)?;
                            return Ok(None);
                        }
                        (compute_step(inst, &wvals[..i], reg, n)?, Level::Elem)
                    }
                }
            }
        };
        vals[i] = v;
        wvals[i] = v;
        level[i] = lv;
    }
    tap_rows(&vals, &level, len, nrows, taps)?;
    let v = *vals
        .get(want)
        .ok_or_else(|| internal("a row-resident output past the body"))?;
    let lv = level[want];
    match out {
        Some(dst) => {
            let v = match lv {
                Level::Row if spread[want] => wvals[want],
                Level::Row => {
                    let w = spare[want].take().ok_or_else(|| internal("a row value spread twice"))?;
                    expand(v, len, nrows, w)?
                }
                _ => v,
            };
            store(v, dst).map(|()| None)
        }
        None => Ok(Some((v, lv == Level::Row))),
    }
}

/// `tap` for a block of rows: row r's values of the tapped steps go to
/// `taps[r * steps + k]`.
fn tap_rows(vals: &[Value<'_>], level: &[Level], len: usize, nrows: usize, taps: Taps<'_>) -> Result<(), Diagnostic> {
    let width = taps.steps.len();
    if width == 0 {
        return Ok(());
    }
    for (r, slots) in taps.values.chunks_exact_mut(width).take(nrows).enumerate() {
        for (&k, slot) in taps.steps.iter().zip(slots.iter_mut()) {
            let (&v, &lv) = vals
                .get(k)
                .zip(level.get(k))
                .ok_or_else(|| internal("a tapped step past the body"))?;
            *slot = row_entry(row_segment(v, lv, r, len), 0);
        }
    }
    Ok(())
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn eval_resident_rows_avx2<'p: 'r, 'r>(
    prog: &Program<'p>,
    offs: &[isize],
    rstep: &[isize],
    inner: &[isize],
    len: usize,
    nrows: usize,
    regs: &'r mut [Reg],
    wide: &'r mut [Reg],
    stages: &[RowStage],
    fold: RowFold<'_>,
    want: usize,
    out: Option<Dst>,
    taps: Taps<'_>,
) -> Result<Option<(Value<'r>, bool)>, Diagnostic> {
    eval_resident_rows_impl(
        prog, offs, rstep, inner, len, nrows, regs, wide, stages, fold, want, out, taps,
    )
}

/// `eval_resident` over a block of `nrows` short rows of `len` elements
/// each (at most `BLOCK` values; every operand reads a buffer, `rows_ok`),
/// so each step's loop runs over the whole block rather than one short row.
/// Row r of operand k starts at `offs[k] + r * rstep[k]`. A value the same
/// along each row (a row stage's result, an operand that does not move
/// along the row, and the steps over them alone) is held once per row and
/// spread over its row (into `wide`, one register per step) only when an
/// element step reads it. Each row folds on its own, as `eval_resident`
/// folds it. Step `want` is written into `out` (`nrows * len` elements), or
/// returned with whether it is one value per row (`nrows` values) rather
/// than per element; the tapped steps' row values go to `taps`, `nrows`
/// rows of `taps.steps.len()`.
#[allow(clippy::too_many_arguments)]
pub fn eval_resident_rows<'p: 'r, 'r>(
    prog: &Program<'p>,
    offs: &[isize],
    rstep: &[isize],
    inner: &[isize],
    len: usize,
    nrows: usize,
    regs: &'r mut [Reg],
    wide: &'r mut [Reg],
    stages: &[RowStage],
    fold: RowFold<'_>,
    want: usize,
    out: Option<Dst>,
    taps: Taps<'_>,
) -> Result<Option<(Value<'r>, bool)>, Diagnostic> {
    let ni = prog.inputs.len();
    let n = len * nrows;
    if n > BLOCK
        || offs.len() < ni
        || rstep.len() < ni
        || inner.len() < ni
        || !rows_ok(prog)
        || wide.len() < prog.steps.len()
        || regs.iter().chain(wide.iter()).any(|r| r.len() < n)
        || taps.values.len() < nrows * taps.steps.len()
    {
        return Err(internal("a block of rows that its registers or operands cannot take"));
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU supports AVX2 and FMA (checked at run time above).
        return unsafe {
            eval_resident_rows_avx2(
                prog, offs, rstep, inner, len, nrows, regs, wide, stages, fold, want, out, taps,
            )
        };
    }
    eval_resident_rows_impl(
        prog, offs, rstep, inner, len, nrows, regs, wide, stages, fold, want, out, taps,
    )
}

/// Element types a kernel can write: their destination, and the values of
/// their dtype (`None` for a storage-only dtype, whose values are wide).
pub(crate) trait Out: Elem {
    /// Whether this is a storage-only dtype (stored by narrowing a wide value).
    const STORAGE: bool = false;
    fn dst(s: &mut [MaybeUninit<Self>]) -> Dst<'_>;
    fn src(v: Value<'_>) -> Option<Src<'_, Self>>;
}

/// Element types a kernel computes in: also their value variant.
pub(crate) trait Lane: Out {
    fn value(s: Src<'_, Self>) -> Value<'_>;
}

macro_rules! impl_lane {
    ($t:ty, $V:ident) => {
        impl Out for $t {
            #[inline(always)]
            fn dst(s: &mut [MaybeUninit<$t>]) -> Dst<'_> {
                Dst::$V(s)
            }
            #[inline(always)]
            fn src(v: Value<'_>) -> Option<Src<'_, $t>> {
                match v {
                    Value::$V(s) => Some(s),
                    _ => None,
                }
            }
        }
        impl Lane for $t {
            #[inline(always)]
            fn value(s: Src<'_, $t>) -> Value<'_> {
                Value::$V(s)
            }
        }
    };
}

macro_rules! impl_storage_out {
    ($t:ty, $V:ident) => {
        impl Out for $t {
            const STORAGE: bool = true;
            #[inline(always)]
            fn dst(s: &mut [MaybeUninit<$t>]) -> Dst<'_> {
                Dst::Storage(StorageDst::$V(s))
            }
            #[inline(always)]
            fn src(_: Value<'_>) -> Option<Src<'_, $t>> {
                None
            }
        }
    };
}
impl_storage_out!(u8, U8);
impl_storage_out!(i8, I8);
impl_storage_out!(i16, I16);
impl_storage_out!(u16, U16);
impl_storage_out!(u32, U32);
impl_storage_out!(half::f16, F16);
impl_storage_out!(half::bf16, BF16);
impl_lane!(bool, B);
impl_lane!(i32, I32);
impl_lane!(i64, I64);
impl_lane!(f32, F32);
impl_lane!(f64, F64);

#[cfg(test)]
mod tests {
    use super::*;

    /// Values with awkward roundings, signed zeros, infinities and NaN.
    fn operands(n: usize, seed: u64) -> Vec<f64> {
        let specials = [
            0.0,
            -0.0,
            1.0,
            -3.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1e-300,
            7.0,
        ];
        let mut state = seed | 1;
        (0..n)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                if i % 7 == 3 {
                    specials[(state % specials.len() as u64) as usize]
                } else {
                    (state % 2_000_001) as f64 / 1000.0 - 1000.0 + 1.0 / 3.0
                }
            })
            .collect()
    }

    /// Every pair of `+ - * /` in one loop gives bitwise what its two steps
    /// give one after the other, for each side, operand kind and float dtype.
    #[test]
    fn pairs_equal_their_steps() {
        fn check<T: Float + FloatMath + DstOf + Lane + Into<f64>>(
            cast: impl Fn(f64) -> T,
            wrap: for<'a> fn(Src<'a, T>) -> Value<'a>,
        ) {
            use BinaryOp::{Add, Div, Mul, Sub};
            let n = 67;
            let data: Vec<Vec<T>> = (0..3)
                .map(|k| operands(n, 11 + k).into_iter().map(&cast).collect())
                .collect();
            let bits = |x: T| -> u64 { Into::<f64>::into(x).to_bits() };
            for op1 in [Add, Sub, Mul, Div] {
                for op2 in [Add, Sub, Mul, Div] {
                    for left in [true, false] {
                        for kinds in 1..8u32 {
                            let src = |k: usize| -> Src<T> {
                                if kinds & (1 << k) != 0 {
                                    Src::Slice(&data[k])
                                } else {
                                    Src::Scalar(data[k][5])
                                }
                            };
                            let (x, y, z) = (src(0), src(1), src(2));
                            let mut first = vec![MaybeUninit::<T>::uninit(); n];
                            float_binary(op1, x, y, T::dst(&mut first)).unwrap();
                            // SAFETY: float_binary wrote every element.
                            let first: Vec<T> = first.iter().map(|v| unsafe { v.assume_init() }).collect();
                            let t = Src::Slice(&first[..]);
                            let (a, b) = if left { (t, z) } else { (z, t) };
                            let mut want = vec![MaybeUninit::<T>::uninit(); n];
                            float_binary(op2, a, b, T::dst(&mut want)).unwrap();
                            let mut got = vec![MaybeUninit::<T>::uninit(); n];
                            let pair = Pair { op1, op2, left };
                            compute_pair(pair, wrap(x), wrap(y), wrap(z), T::dst(&mut got)).unwrap();
                            for i in 0..n {
                                // SAFETY: both loops wrote every element.
                                let (w, g) = unsafe { (want[i].assume_init(), got[i].assume_init()) };
                                assert!(
                                    bits(w) == bits(g)
                                        || (Into::<f64>::into(w).is_nan() && Into::<f64>::into(g).is_nan()),
                                    "{op1:?} then {op2:?} (left {left}, kinds {kinds:03b}) at {i}: {} against {}",
                                    Into::<f64>::into(g),
                                    Into::<f64>::into(w)
                                );
                            }
                        }
                    }
                }
            }
        }
        // a closure, not the variant itself: the variant's fn item is not general over the lifetime
        #[allow(clippy::redundant_closure)]
        {
            check::<f32>(|v| v as f32, |s| Value::F32(s));
            check::<f64>(|v| v, |s| Value::F64(s));
        }
    }

    /// A step read twice, or by a non-arithmetic step, keeps its register; a
    /// step that takes a partner is not taken itself.
    #[test]
    fn pair_partners_take_single_readers_only() {
        use BinaryOp::{Add, Mul, Sub};
        let step = |inst: Inst| Step {
            inst,
            dtype: DType::F32,
        };
        let steps = vec![
            step(Inst::Load(0)),                // 0
            step(Inst::Load(1)),                // 1
            step(Inst::Binary(Add, 0, 1)),      // 2: read once by 3
            step(Inst::Binary(Mul, 2, 1)),      // 3: takes 2, so not taken by 4
            step(Inst::Binary(Sub, 3, 0)),      // 4: read twice (5 and 6)
            step(Inst::Unary(UnaryOp::Exp, 4)), // 5
            step(Inst::Binary(Add, 4, 5)),      // 6
        ];
        assert_eq!(pair_partners(&steps)[..], [None, None, Some(3), None, None, None, None]);
    }
}
