//! Host storage of array elements, one vector per dtype. The half floats
//! are stored as the `half` crate's `f16`/`bf16` (IEEE bits, 2 bytes each);
//! every conversion to and from them rounds to nearest, ties to even.

use crate::check::dtype::DType;

#[derive(Clone, Debug, PartialEq)]
pub enum HostData {
    Bool(Vec<bool>),
    I32(Vec<i32>),
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
            $crate::graph::data::HostData::I32($v) => $body,
            $crate::graph::data::HostData::I64($v) => $body,
            $crate::graph::data::HostData::F16($v) => $body,
            $crate::graph::data::HostData::BF16($v) => $body,
            $crate::graph::data::HostData::F32($v) => $body,
            $crate::graph::data::HostData::F64($v) => $body,
        }
    };
}

impl HostData {
    pub fn dtype(&self) -> DType {
        match self {
            HostData::Bool(_) => DType::Bool,
            HostData::I32(_) => DType::I32,
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
            DType::I32 => HostData::I32(vec![0; len]),
            DType::I64 => HostData::I64(vec![0; len]),
            DType::F16 => HostData::F16(vec![half::f16::ZERO; len]),
            DType::BF16 => HostData::BF16(vec![half::bf16::ZERO; len]),
            DType::F32 => HostData::F32(vec![0.0; len]),
            DType::F64 => HostData::F64(vec![0.0; len]),
        }
    }

    /// An empty buffer with room for `len` elements, for a kernel to write
    /// through `spare_ptr` before `set_len` (the half floats, which no fused
    /// kernel writes, have none).
    pub fn with_capacity(dtype: DType, len: usize) -> Option<HostData> {
        Some(match dtype {
            DType::Bool => HostData::Bool(Vec::with_capacity(len)),
            DType::I32 => HostData::I32(Vec::with_capacity(len)),
            DType::I64 => HostData::I64(Vec::with_capacity(len)),
            DType::F32 => HostData::F32(Vec::with_capacity(len)),
            DType::F64 => HostData::F64(Vec::with_capacity(len)),
            DType::F16 | DType::BF16 => return None,
        })
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
            HostData::I32(v) => v[i] as f64,
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
            HostData::I32(v) => v[i] as i64,
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
            DType::I32 => HostData::I32(vec![value as i32]),
            DType::I64 => HostData::I64(vec![value as i64]),
            DType::F16 => HostData::F16(vec![half::f16::from_f64(value)]),
            DType::BF16 => HostData::BF16(vec![half::bf16::from_f64(value)]),
            DType::F32 => HostData::F32(vec![value as f32]),
            DType::F64 => HostData::F64(vec![value]),
        }
    }

    /// The elements widened to f32 (exact for the half floats), for kernels
    /// that compute a half float's values in f32; `None` for other dtypes.
    pub fn half_to_f32(&self) -> Option<Vec<f32>> {
        match self {
            HostData::F16(v) => Some(v.iter().map(|x| x.to_f32()).collect()),
            HostData::BF16(v) => Some(v.iter().map(|x| x.to_f32()).collect()),
            _ => None,
        }
    }

    /// f32 values rounded once (to nearest, ties to even) to the half float
    /// `dtype`; other data, or another `dtype`, comes back unchanged.
    pub fn round_to_half(self, dtype: DType) -> HostData {
        match (self, dtype) {
            (HostData::F32(v), DType::F16) => HostData::F16(v.iter().map(|&x| half::f16::from_f32(x)).collect()),
            (HostData::F32(v), DType::BF16) => HostData::BF16(v.iter().map(|&x| half::bf16::from_f32(x)).collect()),
            (d, _) => d,
        }
    }

    /// One i64 value of `dtype` (exact for large integers; rounded once to f32).
    pub fn scalar_i64(dtype: DType, value: i64) -> HostData {
        match dtype {
            DType::I64 => HostData::I64(vec![value]),
            DType::I32 => HostData::I32(vec![value as i32]),
            DType::F32 => HostData::F32(vec![value as f32]),
            _ => HostData::scalar(dtype, value as f64),
        }
    }
}
