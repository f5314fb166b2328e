//! Host storage of array elements, one vector per dtype. The half floats
//! are stored as the `half` crate's `f16`/`bf16` (IEEE bits, 2 bytes each);
//! every conversion to and from them rounds to nearest, ties to even.

use crate::check::dtype::DType;

#[derive(Clone, Debug, PartialEq)]
pub enum HostData {
    Bool(Vec<bool>),
    U8(Vec<u8>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    U16(Vec<u16>),
    I32(Vec<i32>),
    U32(Vec<u32>),
    I64(Vec<i64>),
    F16(Vec<half::f16>),
    BF16(Vec<half::bf16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// Runs `$body` with `$v` bound to the typed vector inside a `HostData`.
#[macro_export]
macro_rules! with_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            $crate::graph::data::HostData::Bool($v) => $body,
            $crate::graph::data::HostData::U8($v) => $body,
            $crate::graph::data::HostData::I8($v) => $body,
            $crate::graph::data::HostData::I16($v) => $body,
            $crate::graph::data::HostData::U16($v) => $body,
            $crate::graph::data::HostData::I32($v) => $body,
            $crate::graph::data::HostData::U32($v) => $body,
            $crate::graph::data::HostData::I64($v) => $body,
            $crate::graph::data::HostData::F16($v) => $body,
            $crate::graph::data::HostData::BF16($v) => $body,
            $crate::graph::data::HostData::F32($v) => $body,
            $crate::graph::data::HostData::F64($v) => $body,
        }
    };
}

/// Runs `$body` with `$x` and `$y` bound to the typed vectors inside two
/// `HostData` of one dtype, or `$other` when their dtypes differ.
#[macro_export]
macro_rules! with_same_data {
    ($a:expr, $b:expr, $x:ident, $y:ident => $body:expr, else $other:expr) => {
        match ($a, $b) {
            ($crate::graph::data::HostData::Bool($x), $crate::graph::data::HostData::Bool($y)) => $body,
            ($crate::graph::data::HostData::U8($x), $crate::graph::data::HostData::U8($y)) => $body,
            ($crate::graph::data::HostData::I8($x), $crate::graph::data::HostData::I8($y)) => $body,
            ($crate::graph::data::HostData::I16($x), $crate::graph::data::HostData::I16($y)) => $body,
            ($crate::graph::data::HostData::U16($x), $crate::graph::data::HostData::U16($y)) => $body,
            ($crate::graph::data::HostData::I32($x), $crate::graph::data::HostData::I32($y)) => $body,
            ($crate::graph::data::HostData::U32($x), $crate::graph::data::HostData::U32($y)) => $body,
            ($crate::graph::data::HostData::I64($x), $crate::graph::data::HostData::I64($y)) => $body,
            ($crate::graph::data::HostData::F16($x), $crate::graph::data::HostData::F16($y)) => $body,
            ($crate::graph::data::HostData::BF16($x), $crate::graph::data::HostData::BF16($y)) => $body,
            ($crate::graph::data::HostData::F32($x), $crate::graph::data::HostData::F32($y)) => $body,
            ($crate::graph::data::HostData::F64($x), $crate::graph::data::HostData::F64($y)) => $body,
            _ => $other,
        }
    };
}

/// The pattern matching a `HostData` of a storage-only dtype (one that
/// kernels only load, store and cast; `DType::is_storage_only`).
#[macro_export]
macro_rules! storage_only_data {
    () => {
        $crate::graph::data::HostData::F16(_)
            | $crate::graph::data::HostData::BF16(_)
            | $crate::graph::data::HostData::U8(_)
            | $crate::graph::data::HostData::I8(_)
            | $crate::graph::data::HostData::I16(_)
            | $crate::graph::data::HostData::U16(_)
            | $crate::graph::data::HostData::U32(_)
    };
}

/// The pattern matching a storage-only `DType`.
#[macro_export]
macro_rules! storage_only_dtype {
    () => {
        $crate::check::dtype::DType::F16
            | $crate::check::dtype::DType::BF16
            | $crate::check::dtype::DType::U8
            | $crate::check::dtype::DType::I8
            | $crate::check::dtype::DType::I16
            | $crate::check::dtype::DType::U16
            | $crate::check::dtype::DType::U32
    };
}

/// `x` rounded to f32 toward zero, with the lowest bit set where that was
/// inexact ("round to odd"): rounded once more to a format of at most 22
/// significant bits, it gives `x` correctly rounded to that format, with no
/// double rounding.
fn f32_round_to_odd(x: f64) -> f32 {
    let r = x as f32;
    if x.is_nan() || r as f64 == x {
        return r;
    }
    let mut bits = r.to_bits();
    if r.is_infinite() || (r as f64).abs() > x.abs() {
        // one step toward zero (an overflow to infinity steps back to the largest finite)
        bits -= 1;
    }
    f32::from_bits(bits | 1)
}

/// `x` as an f16, correctly rounded (to nearest, ties to even). The `half`
/// crate's `f16::from_f64` drops the low 32 bits of the f64 before rounding,
/// so a value a hair above a tie rounds to even instead of up.
pub fn f16_from_f64(x: f64) -> half::f16 {
    half::f16::from_f32(f32_round_to_odd(x))
}

/// `x` as a bf16, correctly rounded (see `f16_from_f64`).
pub fn bf16_from_f64(x: f64) -> half::bf16 {
    half::bf16::from_f32(f32_round_to_odd(x))
}

impl HostData {
    pub fn dtype(&self) -> DType {
        match self {
            HostData::Bool(_) => DType::Bool,
            HostData::U8(_) => DType::U8,
            HostData::I8(_) => DType::I8,
            HostData::I16(_) => DType::I16,
            HostData::U16(_) => DType::U16,
            HostData::I32(_) => DType::I32,
            HostData::U32(_) => DType::U32,
            HostData::I64(_) => DType::I64,
            HostData::F16(_) => DType::F16,
            HostData::BF16(_) => DType::BF16,
            HostData::F32(_) => DType::F32,
            HostData::F64(_) => DType::F64,
        }
    }

    pub fn len(&self) -> usize {
        with_data!(self, v => v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn zeros(dtype: DType, len: usize) -> HostData {
        match dtype {
            DType::Bool => HostData::Bool(vec![false; len]),
            DType::U8 => HostData::U8(vec![0; len]),
            DType::I8 => HostData::I8(vec![0; len]),
            DType::I16 => HostData::I16(vec![0; len]),
            DType::U16 => HostData::U16(vec![0; len]),
            DType::I32 => HostData::I32(vec![0; len]),
            DType::U32 => HostData::U32(vec![0; len]),
            DType::I64 => HostData::I64(vec![0; len]),
            DType::F16 => HostData::F16(vec![half::f16::ZERO; len]),
            DType::BF16 => HostData::BF16(vec![half::bf16::ZERO; len]),
            DType::F32 => HostData::F32(vec![0.0; len]),
            DType::F64 => HostData::F64(vec![0.0; len]),
        }
    }

    /// An empty buffer with room for `len` elements, for a kernel to write
    /// through `spare_ptr` before `set_len`.
    pub fn with_capacity(dtype: DType, len: usize) -> HostData {
        match dtype {
            DType::Bool => HostData::Bool(Vec::with_capacity(len)),
            DType::U8 => HostData::U8(Vec::with_capacity(len)),
            DType::I8 => HostData::I8(Vec::with_capacity(len)),
            DType::I16 => HostData::I16(Vec::with_capacity(len)),
            DType::U16 => HostData::U16(Vec::with_capacity(len)),
            DType::I32 => HostData::I32(Vec::with_capacity(len)),
            DType::U32 => HostData::U32(Vec::with_capacity(len)),
            DType::I64 => HostData::I64(Vec::with_capacity(len)),
            DType::F16 => HostData::F16(Vec::with_capacity(len)),
            DType::BF16 => HostData::BF16(Vec::with_capacity(len)),
            DType::F32 => HostData::F32(Vec::with_capacity(len)),
            DType::F64 => HostData::F64(Vec::with_capacity(len)),
        }
    }

    /// The first element past the buffer's length, where its spare room starts.
    pub fn spare_ptr(&mut self) -> *mut u8 {
        with_data!(self, v => v.spare_capacity_mut().as_mut_ptr() as *mut u8)
    }

    /// Sets the length, taking the elements written into the spare room.
    ///
    /// # Safety
    /// `len` is at most the capacity, and every element below it is initialised.
    pub unsafe fn set_len(&mut self, len: usize) {
        // SAFETY: as the caller promised.
        with_data!(self, v => unsafe { v.set_len(len) })
    }

    /// Element `i` as f64 (for printing, conditions and static arguments).
    pub fn get_f64(&self, i: usize) -> f64 {
        match self {
            HostData::Bool(v) => v[i] as u8 as f64,
            HostData::U8(v) => v[i] as f64,
            HostData::I8(v) => v[i] as f64,
            HostData::I16(v) => v[i] as f64,
            HostData::U16(v) => v[i] as f64,
            HostData::I32(v) => v[i] as f64,
            HostData::U32(v) => v[i] as f64,
            HostData::I64(v) => v[i] as f64,
            HostData::F16(v) => v[i].to_f64(),
            HostData::BF16(v) => v[i].to_f64(),
            HostData::F32(v) => v[i] as f64,
            HostData::F64(v) => v[i],
        }
    }

    /// Element `i` as i64 (exact for integer dtypes).
    pub fn get_i64(&self, i: usize) -> i64 {
        match self {
            HostData::Bool(v) => v[i] as i64,
            HostData::U8(v) => v[i] as i64,
            HostData::I8(v) => v[i] as i64,
            HostData::I16(v) => v[i] as i64,
            HostData::U16(v) => v[i] as i64,
            HostData::I32(v) => v[i] as i64,
            HostData::U32(v) => v[i] as i64,
            HostData::I64(v) => v[i],
            HostData::F16(v) => v[i].to_f32() as i64,
            HostData::BF16(v) => v[i].to_f32() as i64,
            HostData::F32(v) => v[i] as i64,
            HostData::F64(v) => v[i] as i64,
        }
    }

    /// One value of `dtype` from an f64 (for literals and `full`).
    pub fn scalar(dtype: DType, value: f64) -> HostData {
        match dtype {
            DType::Bool => HostData::Bool(vec![value != 0.0]),
            // through i64, so that an out-of-range value wraps as the cast kernels wrap it
            DType::U8 | DType::I8 | DType::I16 | DType::U16 | DType::U32 => {
                HostData::I64(vec![value as i64]).narrow_to(dtype)
            }
            DType::I32 => HostData::I32(vec![value as i32]),
            DType::I64 => HostData::I64(vec![value as i64]),
            DType::F16 => HostData::F16(vec![f16_from_f64(value)]),
            DType::BF16 => HostData::BF16(vec![bf16_from_f64(value)]),
            DType::F32 => HostData::F32(vec![value as f32]),
            DType::F64 => HostData::F64(vec![value]),
        }
    }

    /// The elements widened, exactly, to the dtype their values are computed
    /// in (f32 for the half floats, i64 for the narrow integers), for kernels
    /// that compute a storage-only dtype's values; `None` for other dtypes.
    pub fn widen(&self) -> Option<HostData> {
        fn i64s<T: Copy + Into<i64>>(v: &[T]) -> HostData {
            HostData::I64(v.iter().map(|&x| x.into()).collect())
        }
        Some(match self {
            HostData::F16(v) => HostData::F32(v.iter().map(|x| x.to_f32()).collect()),
            HostData::BF16(v) => HostData::F32(v.iter().map(|x| x.to_f32()).collect()),
            HostData::U8(v) => i64s(v),
            HostData::I8(v) => i64s(v),
            HostData::I16(v) => i64s(v),
            HostData::U16(v) => i64s(v),
            HostData::U32(v) => i64s(v),
            _ => return None,
        })
    }

    /// Computed values stored as the storage-only `dtype`: f32 rounded once
    /// (to nearest, ties to even) to a half float, i64 wrapped to a narrow
    /// integer's width; other data, or another `dtype`, comes back unchanged.
    pub fn narrow_to(self, dtype: DType) -> HostData {
        match (self, dtype) {
            (HostData::F32(v), DType::F16) => HostData::F16(v.iter().map(|&x| half::f16::from_f32(x)).collect()),
            (HostData::F32(v), DType::BF16) => HostData::BF16(v.iter().map(|&x| half::bf16::from_f32(x)).collect()),
            // `as` keeps the low bits: the wrapping NumPy's integer arithmetic does
            (HostData::I64(v), DType::U8) => HostData::U8(v.iter().map(|&x| x as u8).collect()),
            (HostData::I64(v), DType::I8) => HostData::I8(v.iter().map(|&x| x as i8).collect()),
            (HostData::I64(v), DType::I16) => HostData::I16(v.iter().map(|&x| x as i16).collect()),
            (HostData::I64(v), DType::U16) => HostData::U16(v.iter().map(|&x| x as u16).collect()),
            (HostData::I64(v), DType::U32) => HostData::U32(v.iter().map(|&x| x as u32).collect()),
            // the CPU executor computes the narrow integers below 32 bits in i32 (`block::register_dtype`)
            (HostData::I32(v), DType::U8) => HostData::U8(v.iter().map(|&x| x as u8).collect()),
            (HostData::I32(v), DType::I8) => HostData::I8(v.iter().map(|&x| x as i8).collect()),
            (HostData::I32(v), DType::I16) => HostData::I16(v.iter().map(|&x| x as i16).collect()),
            (HostData::I32(v), DType::U16) => HostData::U16(v.iter().map(|&x| x as u16).collect()),
            (d, _) => d,
        }
    }

    /// One i64 value of `dtype` (exact for large integers; rounded once to f32).
    pub fn scalar_i64(dtype: DType, value: i64) -> HostData {
        match dtype {
            DType::I64 => HostData::I64(vec![value]),
            DType::I32 => HostData::I32(vec![value as i32]),
            DType::F32 => HostData::F32(vec![value as f32]),
            d if d.is_narrow_int() => HostData::I64(vec![value]).narrow_to(d),
            _ => HostData::scalar(dtype, value as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{bf16_from_f64, f16_from_f64};

    /// Whether `c` (as f64, with its neighbours `prev` and `next`) is `x`
    /// rounded to nearest, ties to even: `x` lies between the midpoints
    /// (exact in f64: a half float has at most 11 significant bits), and on
    /// one only if `c` is even.
    fn nearest(x: f64, c: f64, prev: f64, next: f64, even: bool) -> bool {
        let (a, b) = ((c + prev) / 2.0, (c + next) / 2.0);
        let (lo, hi) = (a.min(b), a.max(b));
        (lo < x && x < hi) || ((x == lo || x == hi) && even)
    }

    /// Random values with exponents in `lo_exp..hi_exp` of either sign, each
    /// followed by a tie between its rounding and the next half float up
    /// (`round` gives both) and that tie's two f64 neighbours.
    fn values(seed: u64, lo_exp: i32, hi_exp: i32, round: impl Fn(f64) -> (f64, f64)) -> Vec<f64> {
        let mut s = seed;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut out = Vec::new();
        for _ in 0..20_000 {
            let r = next();
            let exp = lo_exp + (r % (hi_exp - lo_exp) as u64) as i32;
            let x = f64::from_bits(next() >> 12 | 0x3FF0_0000_0000_0000) * 2f64.powi(exp);
            let x = if r & (1 << 40) != 0 { -x } else { x };
            out.push(x);
            let (h, up) = round(x);
            let mid = (h + up) / 2.0;
            out.extend([
                mid,
                f64::from_bits(mid.to_bits() + 1),
                f64::from_bits(mid.to_bits() - 1),
            ]);
        }
        out
    }

    #[test]
    fn half_floats_from_f64_are_correctly_rounded() {
        let bf16_pair = |v: f64| {
            let c = bf16_from_f64(v);
            (c.to_f64(), half::bf16::from_bits(c.to_bits() + 1).to_f64())
        };
        for x in values(0x9E37_79B9_7F4A_7C15, -130, 127, bf16_pair) {
            let c = bf16_from_f64(x);
            let b = c.to_bits();
            let (p, n) = (half::bf16::from_bits(b.wrapping_sub(1)), half::bf16::from_bits(b + 1));
            if !c.is_finite() || !p.is_finite() || !n.is_finite() || c.to_f64() == 0.0 {
                continue;
            }
            assert!(
                nearest(x, c.to_f64(), p.to_f64(), n.to_f64(), b & 1 == 0),
                "bf16 of {x:e}: {c}"
            );
        }
        let f16_pair = |v: f64| {
            let c = f16_from_f64(v);
            (c.to_f64(), half::f16::from_bits(c.to_bits() + 1).to_f64())
        };
        for x in values(0xD1B5_4A32_D192_ED03, -24, 16, f16_pair) {
            let c = f16_from_f64(x);
            let b = c.to_bits();
            let (p, n) = (half::f16::from_bits(b.wrapping_sub(1)), half::f16::from_bits(b + 1));
            if !c.is_finite() || !p.is_finite() || !n.is_finite() || c.to_f64() == 0.0 {
                continue;
            }
            assert!(
                nearest(x, c.to_f64(), p.to_f64(), n.to_f64(), b & 1 == 0),
                "f16 of {x:e}: {c}"
            );
        }
        // the case the GPU suite found: a hair above a tie rounds up
        let tie: f64 = (0.9765625 + 0.98046875) / 2.0;
        assert_eq!(bf16_from_f64(f64::from_bits(tie.to_bits() + 1)).to_f64(), 0.98046875);
        assert_eq!(bf16_from_f64(tie).to_f64(), 0.9765625);
        assert!(bf16_from_f64(f64::NAN).is_nan() && f16_from_f64(f64::NAN).is_nan());
        assert_eq!(bf16_from_f64(1e300).to_f64(), f64::INFINITY);
        assert_eq!(f16_from_f64(-70000.0).to_f64(), f64::NEG_INFINITY);
        assert_eq!(f16_from_f64(1e-30).to_f64(), 0.0);
    }
}
