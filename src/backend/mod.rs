//! Backends execute realized graphs: the CPU backend (the reference) and,
//! where a GPU is present, CUDA.

pub mod cpu;
pub mod cuda;
pub mod memory;
