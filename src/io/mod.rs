//! Reading and writing arrays in files (NumPy's `.npy`).

pub mod npy;
