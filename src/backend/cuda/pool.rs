//! Device memory: the pool of device buffers (size classes, slabs for small
//! arrays, trimming when the driver runs out), and the copies between host
//! and device (upload, download, gathering a view into a contiguous copy).

// Diagnostic is the crate's one error type; boxing it here alone would buy nothing.
#![allow(clippy::result_large_err)]

use super::{CudaBackend, cuda_error};
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::Op;
use crate::graph::view::View;
use crate::graph::{Array, Backend, Buffer, DeviceStorage, Node, Storage};
use cudarc::driver::result as cu;
use cudarc::driver::sys;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

pub(super) fn mib(b: usize) -> String {
    format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)
}

/// Size classes: powers of two up to 1 MiB, then multiples of 2 MiB, so that
/// freed blocks are reused by arrays of similar size.
pub(super) fn size_class(bytes: usize) -> usize {
    let b = bytes.max(256);
    if b <= 1 << 20 {
        b.next_power_of_two()
    } else {
        b.div_ceil(2 << 20) * (2 << 20)
    }
}

/// Blocks of a size class up to this come from shared slabs: a script's
/// scalars and short vectors would otherwise cost a driver allocation each
/// (tens of microseconds, which dominate a short program).
pub(super) const SLAB_CLASS_MAX: usize = 64 << 10;
/// A slab: the blocks one size class takes at a time, cut from the arena.
const SLAB_BYTES: usize = SLAB_CLASS_MAX;
/// The arena the slabs are cut from, one driver allocation for every small
/// class: a first run that needs a reduction's partials and its scalar
/// result used to pay a driver allocation for each of their two classes,
/// 0.25 ms of a 2-ms program on an H200.
const ARENA_BYTES: usize = 8 << 20;

/// Device memory pool: a free list per size class. Allocation is ordered on
/// the one stream, so a block freed after its last launch can be handed to
/// the next launch at once.
pub struct Pool {
    pub(super) _ctx: Arc<cudarc::driver::CudaContext>,
    pub(super) free: RefCell<HashMap<usize, Vec<sys::CUdeviceptr>>>,
    /// Bytes in the free lists of classes above `SLAB_CLASS_MAX` (given back by `trim`).
    pub(super) cached: RefCell<usize>,
    /// Blocks taken from the driver (not the free lists), and the seconds that took.
    pub(super) driver_allocs: Cell<(u64, f64)>,
    /// The small classes' arena: the next slab's address and the bytes left after it.
    pub(super) arena: Cell<(sys::CUdeviceptr, usize)>,
}

impl Pool {
    pub(super) fn alloc(&self, bytes: usize) -> Result<(sys::CUdeviceptr, usize), Diagnostic> {
        if bytes == 0 {
            return Ok((0, 0));
        }
        let class = size_class(bytes);
        if let Some(p) = self.free.borrow_mut().get_mut(&class).and_then(|v| v.pop()) {
            if class > SLAB_CLASS_MAX {
                *self.cached.borrow_mut() -= class;
            }
            return Ok((p, class));
        }
        if class <= SLAB_CLASS_MAX {
            // one slab, cut into blocks of this class; the rest go to the free list
            let slab = self.slab()?;
            let blocks = (1..SLAB_BYTES / class).map(|k| slab + (k * class) as u64);
            self.free.borrow_mut().entry(class).or_default().extend(blocks.rev());
            return Ok((slab, class));
        }
        Ok((self.driver_alloc(class)?, class))
    }

    /// A fresh slab from the arena, which takes a new driver allocation when
    /// it is used up (the old one's slabs stay with their classes).
    fn slab(&self) -> Result<sys::CUdeviceptr, Diagnostic> {
        let (mut next, mut left) = self.arena.get();
        if left < SLAB_BYTES {
            next = self.driver_alloc(ARENA_BYTES)?;
            left = ARENA_BYTES;
        }
        self.arena.set((next + SLAB_BYTES as u64, left - SLAB_BYTES));
        Ok(next)
    }

    pub(super) fn driver_alloc(&self, bytes: usize) -> Result<sys::CUdeviceptr, Diagnostic> {
        let t = std::time::Instant::now();
        // SAFETY: a plain allocation in the backend's current context; the result is checked.
        let fresh = unsafe { cu::malloc_sync(bytes) };
        let (n, secs) = self.driver_allocs.get();
        self.driver_allocs.set((n + 1, secs + t.elapsed().as_secs_f64()));
        match fresh {
            Ok(p) => Ok(p),
            Err(_) => {
                // give every cached block back to the driver and try once more
                self.trim();
                // SAFETY: as above, after the cached blocks went back to the driver.
                unsafe { cu::malloc_sync(bytes) }.map_err(|e| {
                    let (free, total) = cu::mem_get_info().unwrap_or((0, 0));
                    Diagnostic::spanless(
                        "E0403",
                        format!(
                            "out of GPU memory: an array of {} does not fit ({} free of {}; {e:?})",
                            mib(bytes),
                            mib(free),
                            mib(total)
                        ),
                    )
                    .with_hint("use smaller arrays, or release large arrays you no longer need")
                })
            }
        }
    }

    pub(super) fn release(&self, ptr: sys::CUdeviceptr, class: usize) {
        if ptr == 0 {
            return;
        }
        self.free.borrow_mut().entry(class).or_default().push(ptr);
        if class > SLAB_CLASS_MAX {
            *self.cached.borrow_mut() += class;
        }
    }

    /// Gives the free blocks of large classes back to the driver (slab blocks
    /// stay: a slab can only be freed whole).
    pub(super) fn trim(&self) {
        // SAFETY: after the synchronisation no queued launch uses a free block;
        // each pointer came from `malloc_sync` and leaves the free list as it is freed.
        unsafe {
            let _ = cu::ctx::synchronize();
            for (_, ptrs) in self.free.borrow_mut().iter_mut().filter(|(c, _)| **c > SLAB_CLASS_MAX) {
                for p in ptrs.drain(..) {
                    let _ = cu::free_sync(p);
                }
            }
        }
        *self.cached.borrow_mut() = 0;
    }
}

/// A contiguous, realized kernel operand (`CudaBackend::flat_operands`):
/// the buffer is held so that it outlives the launch.
pub(super) struct FlatOperand {
    pub(super) array: crate::graph::Array,
    _buffer: Buffer,
    pub(super) ptr: u64,
}

/// An array's elements in device memory (bool as one byte).
pub struct DeviceBuffer {
    pub ptr: sys::CUdeviceptr,
    pub len: usize,
    pub dtype: DType,
    pub(super) class: usize,
    pub(super) pool: Rc<Pool>,
}

impl DeviceStorage for DeviceBuffer {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
    fn len(&self) -> usize {
        self.len
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        self.pool.release(self.ptr, self.class);
    }
}

impl CudaBackend {
    /// `arrays` made contiguous (a copy where one is a strided view) and
    /// realized together, each with its buffer and device address
    /// (`operand`), for a kernel that takes flat operands.
    pub(super) fn flat_operands(&self, arrays: &[&crate::graph::Array]) -> Result<Vec<FlatOperand>, Diagnostic> {
        let flat: Vec<crate::graph::Array> = arrays
            .iter()
            .map(|a| {
                if a.view.is_contiguous() {
                    (*a).clone()
                } else {
                    crate::graph::build::copy(a, None)
                }
            })
            .collect();
        crate::graph::realize(self, &flat.iter().collect::<Vec<_>>())?;
        flat.into_iter()
            .map(|array| {
                let (buffer, ptr) = self.operand(&array)?;
                Ok(FlatOperand {
                    array,
                    _buffer: buffer,
                    ptr,
                })
            })
            .collect()
    }

    /// The device address of a realized array's first element, with its
    /// buffer (made device-resident), which the caller keeps alive across the launch.
    pub(super) fn operand(&self, a: &crate::graph::Array) -> Result<(Buffer, u64), Diagnostic> {
        let buf = a
            .node
            .buffer()
            .ok_or_else(|| Diagnostic::spanless("E0499", "internal: operand not realized"))?;
        self.ensure_device(&buf)?;
        let (p, _) = device_ptr(&buf).ok_or_else(|| Diagnostic::spanless("E0499", "internal: no device buffer"))?;
        Ok((buf, p + (a.view.offset * a.dtype().size_bytes()) as u64))
    }

    pub(super) fn alloc(&self, dtype: DType, len: usize) -> Result<DeviceBuffer, Diagnostic> {
        let (ptr, class) = self.pool.alloc(len * dtype.size_bytes())?;
        Ok(DeviceBuffer {
            ptr,
            len,
            dtype,
            class,
            pool: self.pool.clone(),
        })
    }

    /// Makes a host-resident buffer device-resident in place.
    pub(super) fn ensure_device(&self, buffer: &Buffer) -> Result<(), Diagnostic> {
        let upload = match &*buffer.storage() {
            Storage::Host(data) => Some(self.upload(data)?),
            Storage::Device(_) => None,
        };
        if let Some(dev) = upload {
            *buffer.storage_mut() = Storage::Device(Box::new(dev));
        }
        Ok(())
    }

    pub(super) fn upload(&self, data: &HostData) -> Result<DeviceBuffer, Diagnostic> {
        let buf = self.alloc(data.dtype(), data.len())?;
        if buf.len == 0 {
            return Ok(buf);
        }
        // A synchronous copy from pageable memory waits for the stream first, so a
        // statement's scalar literal would wait for every queued kernel. An async
        // copy on the same (legacy) stream stays ordered and returns once the driver
        // has staged the bytes, so the host data may go at once. Small copies only:
        // large ones gain nothing from it.
        fn put<T>(dst: sys::CUdeviceptr, src: &[T]) -> Result<(), cudarc::driver::DriverError> {
            if std::mem::size_of_val(src) <= 64 << 10 {
                // SAFETY: `dst` holds at least `src`'s bytes (allocated for it); the driver
                // stages pageable memory of this size before returning, so `src` may go.
                unsafe { cu::memcpy_htod_async(dst, src, std::ptr::null_mut()) }
            } else {
                // SAFETY: `dst` holds at least `src`'s bytes; the copy ends before the call returns.
                unsafe { cu::memcpy_htod_sync(dst, src) }
            }
        }
        let r = match data {
            HostData::Bool(v) => {
                let bytes: Vec<u8> = v.iter().map(|&b| b as u8).collect();
                put(buf.ptr, &bytes)
            }
            HostData::U8(v) => put(buf.ptr, v),
            HostData::I8(v) => put(buf.ptr, v),
            HostData::I16(v) => put(buf.ptr, v),
            HostData::U16(v) => put(buf.ptr, v),
            HostData::I32(v) => put(buf.ptr, v),
            HostData::U32(v) => put(buf.ptr, v),
            HostData::I64(v) => put(buf.ptr, v),
            // the half floats travel as their 16-bit patterns
            HostData::F16(v) => put(buf.ptr, &v.iter().map(|x| x.to_bits()).collect::<Vec<u16>>()),
            HostData::BF16(v) => put(buf.ptr, &v.iter().map(|x| x.to_bits()).collect::<Vec<u16>>()),
            HostData::F32(v) => put(buf.ptr, v),
            HostData::F64(v) => put(buf.ptr, v),
        };
        r.map_err(|e| cuda_error("copying to the GPU", e))?;
        Ok(buf)
    }

    pub(super) fn download(&self, ptr: sys::CUdeviceptr, dtype: DType, len: usize) -> Result<HostData, Diagnostic> {
        let err = |e| cuda_error("copying from the GPU", e);
        if len == 0 {
            return Ok(HostData::zeros(dtype, 0));
        }
        // SAFETY: `ptr` is a live device buffer of at least `len` elements of `dtype`
        // (the caller's view lies inside it), and each host vector has `len` of them.
        unsafe {
            macro_rules! fetch {
                ($t:ty) => {{
                    let mut v = vec![<$t>::default(); len];
                    cu::memcpy_dtoh_sync(&mut v, ptr).map_err(err)?;
                    v
                }};
            }
            Ok(match dtype {
                DType::Bool => HostData::Bool(fetch!(u8).into_iter().map(|b| b != 0).collect()),
                DType::U8 => HostData::U8(fetch!(u8)),
                DType::I8 => HostData::I8(fetch!(i8)),
                DType::I16 => HostData::I16(fetch!(i16)),
                DType::U16 => HostData::U16(fetch!(u16)),
                DType::I32 => HostData::I32(fetch!(i32)),
                DType::U32 => HostData::U32(fetch!(u32)),
                DType::I64 => HostData::I64(fetch!(i64)),
                // the half floats travel as their 16-bit patterns
                DType::F16 => HostData::F16(fetch!(u16).into_iter().map(half::f16::from_bits).collect()),
                DType::BF16 => HostData::BF16(fetch!(u16).into_iter().map(half::bf16::from_bits).collect()),
                DType::F32 => HostData::F32(fetch!(f32)),
                DType::F64 => HostData::F64(fetch!(f64)),
            })
        }
    }

    /// A contiguous device copy of what `view` sees of `buffer`.
    pub(super) fn gather(&self, buffer: &Buffer, view: &View, dtype: DType) -> Result<Rc<Node>, Diagnostic> {
        let len = match &*buffer.storage() {
            Storage::Device(d) => d.len(),
            Storage::Host(h) => h.len(),
        };
        let src = Array::from_buffer(buffer.clone(), dtype, &[len]).with_view(view.clone());
        let copy = Array::pending(Op::Copy, vec![src], dtype, &view.shape, None);
        self.execute(std::slice::from_ref(&copy.node), std::slice::from_ref(&copy.node))?;
        Ok(copy.node)
    }

    pub(super) fn read_to_host(&self, buffer: &Buffer, view: &View, dtype: DType) -> Result<HostData, Diagnostic> {
        if let Storage::Host(data) = &*buffer.storage() {
            return Ok(host_gather(data, view));
        }
        let n = view.size();
        if view.is_contiguous()
            && let Some((ptr, len)) = device_ptr(buffer)
            && view.offset + n <= len
        {
            return self.download(ptr + (view.offset * dtype.size_bytes()) as u64, dtype, n);
        }
        let node = self.gather(buffer, view, dtype)?;
        let b = node
            .buffer()
            .ok_or_else(|| Diagnostic::spanless("E0499", "internal: gather failed"))?;
        let (ptr, _) = device_ptr(&b).ok_or_else(|| Diagnostic::spanless("E0499", "internal: gather failed"))?;
        self.download(ptr, dtype, n)
    }
}

pub(super) fn device_ptr(buffer: &Buffer) -> Option<(sys::CUdeviceptr, usize)> {
    match &*buffer.storage() {
        Storage::Device(d) => d.as_any().downcast_ref::<DeviceBuffer>().map(|b| (b.ptr, b.len)),
        Storage::Host(_) => None,
    }
}

/// The elements `view` sees of host data, in row-major order.
pub(super) fn host_gather(data: &HostData, view: &View) -> HostData {
    let offs = view.offsets();
    crate::with_data!(data, v => crate::backend::cpu::kernels::Elem::wrap(offs.iter().map(|&o| v[o]).collect()))
}
