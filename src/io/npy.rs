//! `.npy` load and save. npyz parses and writes the header; the element bytes
//! are decoded here, after checking that the file really holds them, so that
//! a damaged or hostile file gives a sentence instead of a panic or a huge
//! allocation.

use crate::graph::data::HostData;
use npyz::{Endianness, NpyHeader, Order, TypeChar, WriterBuilder};
use std::io::ErrorKind;
use std::path::Path;

const MAGIC: &[u8] = b"\x93NUMPY";
const SUPPORTED: &str = "arr can load bool, int32, int64, float32 and float64 arrays (little-endian)";

/// Reads a `.npy` file: its elements in row-major order and its shape
/// (Fortran-order files are reordered). Errors are sentences for the user.
pub fn load(path: &Path) -> Result<(HostData, Vec<usize>), String> {
    let shown = path.display();
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        ErrorKind::NotFound => format!("cannot read {shown}: no such file"),
        ErrorKind::PermissionDenied => format!("cannot read {shown}: permission denied"),
        ErrorKind::IsADirectory => format!("cannot read {shown}: it is a directory"),
        _ => format!("cannot read {shown}: {e}"),
    })?;
    let data_start = precheck_header(&bytes).map_err(|problem| problem.sentence(path))?;

    let mut reader: &[u8] = &bytes;
    let header =
        NpyHeader::from_reader(&mut reader).map_err(|e| format!("{shown} has a malformed .npy header ({e})"))?;
    let dtype = element_dtype(&header.dtype()).map_err(|found| format!("{shown} holds {found}; {SUPPORTED}"))?;
    let shape: Vec<usize> = header.shape().iter().map(|&n| n as usize).collect();
    let count = element_count(&shape).ok_or_else(|| format!("{shown} declares a shape too large to load"))?;
    let needed = count
        .checked_mul(dtype.size_bytes())
        .ok_or_else(|| format!("{shown} declares a shape too large to load"))?;
    let body = &bytes[data_start..];
    if body.len() < needed {
        return Err(format!(
            "{shown} is truncated: its header promises {count} elements ({needed} bytes) but only {} bytes of data follow",
            body.len()
        ));
    }
    let body = &body[..needed];
    let fortran = header.order() == Order::Fortran;
    let data = match dtype {
        crate::DType::Bool => HostData::Bool(reorder(body.iter().map(|&b| b != 0).collect(), &shape, fortran)),
        crate::DType::I32 => HostData::I32(reorder(decode(body, i32::from_le_bytes), &shape, fortran)),
        crate::DType::I64 => HostData::I64(reorder(decode(body, i64::from_le_bytes), &shape, fortran)),
        crate::DType::F32 => HostData::F32(reorder(decode(body, f32::from_le_bytes), &shape, fortran)),
        crate::DType::F64 => HostData::F64(reorder(decode(body, f64::from_le_bytes), &shape, fortran)),
    };
    Ok((data, shape))
}

/// Writes `data` (row-major, `shape`) as a `.npy` file.
pub fn save(path: &Path, data: &HostData, shape: &[usize]) -> Result<(), String> {
    let shown = path.display();
    if element_count(shape) != Some(data.len()) {
        return Err(format!(
            "internal error: cannot save {shown}: {} elements do not fit shape {shape:?}",
            data.len()
        ));
    }
    let shape: Vec<u64> = shape.iter().map(|&n| n as u64).collect();
    let encoded = match data {
        HostData::Bool(v) => encode(v, &shape),
        HostData::I32(v) => encode(v, &shape),
        HostData::I64(v) => encode(v, &shape),
        HostData::F32(v) => encode(v, &shape),
        HostData::F64(v) => encode(v, &shape),
    }
    .map_err(|e| format!("cannot save {shown}: {e}"))?;
    std::fs::write(path, encoded).map_err(|e| match e.kind() {
        ErrorKind::NotFound => format!("cannot write {shown}: its folder does not exist"),
        ErrorKind::PermissionDenied => format!("cannot write {shown}: permission denied"),
        ErrorKind::IsADirectory => format!("cannot write {shown}: it is a directory"),
        _ => format!("cannot write {shown}: {e}"),
    })
}

fn encode<T: npyz::AutoSerialize + Copy>(values: &[T], shape: &[u64]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut writer = npyz::WriteOptions::<T>::new()
        .default_dtype()
        .shape(shape)
        .writer(&mut out)
        .begin_nd()?;
    writer.extend(values.iter().copied())?;
    writer.finish()?;
    Ok(out)
}

fn decode<T, const N: usize>(bytes: &[u8], from_le: fn([u8; N]) -> T) -> Vec<T> {
    bytes
        .chunks_exact(N)
        .map(|chunk| {
            let mut raw = [0u8; N];
            raw.copy_from_slice(chunk);
            from_le(raw)
        })
        .collect()
}

fn element_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n))
}

/// Turns Fortran-order elements (first axis fastest) into row-major order.
fn reorder<T: Copy>(values: Vec<T>, shape: &[usize], fortran: bool) -> Vec<T> {
    if !fortran || shape.len() < 2 || values.is_empty() {
        return values;
    }
    let mut fortran_strides = vec![1usize; shape.len()];
    for axis in 1..shape.len() {
        fortran_strides[axis] = fortran_strides[axis - 1] * shape[axis - 1];
    }
    let mut out = Vec::with_capacity(values.len());
    let mut index = vec![0usize; shape.len()];
    let mut offset = 0usize;
    for _ in 0..values.len() {
        out.push(values[offset]);
        // Row-major odometer: bump the last axis, carrying into earlier ones.
        for axis in (0..shape.len()).rev() {
            index[axis] += 1;
            offset += fortran_strides[axis];
            if index[axis] < shape[axis] {
                break;
            }
            offset -= fortran_strides[axis] * shape[axis];
            index[axis] = 0;
        }
    }
    out
}

/// The Arr dtype of a file's elements, or a description of what it holds instead.
fn element_dtype(dtype: &npyz::DType) -> Result<crate::DType, String> {
    let npyz::DType::Plain(ts) = dtype else {
        return Err(format!("structured (record) elements, dtype {}", dtype.descr()));
    };
    let size = ts.size_field();
    let little = matches!(ts.endianness(), Endianness::Little) || size == 1;
    let found = match (ts.type_char(), size, little) {
        (TypeChar::Bool, 1, _) => return Ok(crate::DType::Bool),
        (TypeChar::Int, 4, true) => return Ok(crate::DType::I32),
        (TypeChar::Int, 8, true) => return Ok(crate::DType::I64),
        (TypeChar::Float, 4, true) => return Ok(crate::DType::F32),
        (TypeChar::Float, 8, true) => return Ok(crate::DType::F64),
        (TypeChar::Bool, _, _) => "bool".to_string(),
        (TypeChar::Int, n, _) => format!("int{}", n * 8),
        (TypeChar::Uint, n, _) => format!("uint{}", n * 8),
        (TypeChar::Float, n, _) => format!("float{}", n * 8),
        (TypeChar::Complex, n, _) => format!("complex{}", n * 8),
        (TypeChar::TimeDelta, _, _) => "timedelta64".to_string(),
        (TypeChar::DateTime, _, _) => "datetime64".to_string(),
        (TypeChar::ByteStr, _, _) => "bytes".to_string(),
        (TypeChar::UnicodeStr, _, _) => "string".to_string(),
        (TypeChar::Object, _, _) => "Python object".to_string(),
        (TypeChar::RawData, _, _) => "raw (void)".to_string(),
        _ => "unknown".to_string(),
    };
    let order = if little { "" } else { "big-endian " };
    Err(format!("{order}{found} elements (dtype '{ts}')"))
}

enum HeaderProblem {
    NotNpy,
    Truncated,
    TooLarge,
    UnknownVersion(u8, u8),
}

impl HeaderProblem {
    fn sentence(&self, path: &Path) -> String {
        let shown = path.display();
        match self {
            HeaderProblem::NotNpy => {
                format!("{shown} is not a .npy file (it does not start with the NumPy magic bytes)")
            }
            HeaderProblem::Truncated => format!("{shown} is truncated: its .npy header is incomplete"),
            HeaderProblem::TooLarge => format!("{shown} declares a shape too large to load"),
            HeaderProblem::UnknownVersion(major, minor) => {
                format!("{shown} uses .npy format version {major}.{minor}, which arr does not know")
            }
        }
    }
}

/// Checks what npyz would trust blindly (header length, shape product) and
/// returns where the element bytes start.
fn precheck_header(bytes: &[u8]) -> Result<usize, HeaderProblem> {
    if bytes.len() < MAGIC.len() {
        return Err(if MAGIC.starts_with(bytes) && !bytes.is_empty() {
            HeaderProblem::Truncated
        } else {
            HeaderProblem::NotNpy
        });
    }
    if &bytes[..MAGIC.len()] != MAGIC {
        return Err(HeaderProblem::NotNpy);
    }
    let version = (
        *bytes.get(6).ok_or(HeaderProblem::Truncated)?,
        *bytes.get(7).ok_or(HeaderProblem::Truncated)?,
    );
    let (text_start, header_len): (usize, usize) = match version {
        (1, 0) => {
            let raw = bytes.get(8..10).ok_or(HeaderProblem::Truncated)?;
            (10, u16::from_le_bytes([raw[0], raw[1]]) as usize)
        }
        (2, 0) | (3, 0) => {
            let raw = bytes.get(8..12).ok_or(HeaderProblem::Truncated)?;
            (12, u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]) as usize)
        }
        (major, minor) => return Err(HeaderProblem::UnknownVersion(major, minor)),
    };
    let text_end = text_start.checked_add(header_len).ok_or(HeaderProblem::Truncated)?;
    let text = bytes.get(text_start..text_end).ok_or(HeaderProblem::Truncated)?;
    // npyz multiplies the shape without overflow checks; a hostile header must not reach it.
    if let Some(dims) = shape_dims(&String::from_utf8_lossy(text))
        && dims
            .iter()
            .try_fold(1u64, |acc, &n| acc.checked_mul(n))
            .is_none_or(|n| n > usize::MAX as u64 / 8)
    {
        return Err(HeaderProblem::TooLarge);
    }
    Ok(text_end)
}

/// The numbers of the `'shape': (...)` entry of a header dict, when it reads plainly.
fn shape_dims(text: &str) -> Option<Vec<u64>> {
    let key = text.find("'shape'").or_else(|| text.find("\"shape\""))?;
    let after = &text[key + 7..];
    let open = after.find('(')?;
    let close = after[open..].find(')')? + open;
    after[open + 1..close]
        .split(',')
        .map(|part| part.trim().trim_end_matches('L'))
        .filter(|part| !part.is_empty())
        .map(|part| part.parse::<u64>().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A fresh path in the temp dir; the file is removed when the guard drops.
    struct TempFile(PathBuf);

    impl TempFile {
        fn new(tag: &str) -> TempFile {
            static COUNTER: AtomicUsize = AtomicUsize::new(0);
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            TempFile(std::env::temp_dir().join(format!("arr-npy-test-{}-{tag}-{n}.npy", std::process::id())))
        }

        fn with_bytes(tag: &str, bytes: &[u8]) -> TempFile {
            let file = TempFile::new(tag);
            std::fs::write(&file.0, bytes).expect("write temp file");
            file
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    /// A version 1.0 `.npy` file written by hand from the format spec.
    fn npy_v1(dict: &str, data: &[u8]) -> Vec<u8> {
        let mut text = dict.to_string();
        let unpadded = 10 + text.len() + 1;
        text.push_str(&" ".repeat((64 - unpadded % 64) % 64));
        text.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend((text.len() as u16).to_le_bytes());
        out.extend(text.as_bytes());
        out.extend(data);
        out
    }

    fn le_bytes<T: Copy, const N: usize>(values: &[T], to_le: fn(T) -> [u8; N]) -> Vec<u8> {
        values.iter().flat_map(|&v| to_le(v)).collect()
    }

    fn round_trip(data: HostData, shape: &[usize]) {
        let file = TempFile::new("rt");
        save(&file.0, &data, shape).expect("save");
        let (back, back_shape) = load(&file.0).expect("load");
        assert_eq!(back, data);
        assert_eq!(back_shape, shape);
    }

    #[test]
    fn round_trips_every_dtype() {
        round_trip(HostData::Bool(vec![true, false, true, true, false, false]), &[2, 3]);
        round_trip(HostData::I32(vec![1, -2, i32::MAX, i32::MIN, 0, 7]), &[3, 2]);
        round_trip(HostData::I64(vec![i64::MIN, -1, 0, 1, i64::MAX, 42]), &[6]);
        round_trip(
            HostData::F32(vec![0.1, -2.5, f32::INFINITY, 1e-30, 3.0, -0.0]),
            &[1, 2, 3],
        );
        round_trip(
            HostData::F64(vec![0.1, -2.5, f64::NEG_INFINITY, 1e300, 3.0, 1.0 / 3.0]),
            &[2, 3],
        );
    }

    #[test]
    fn round_trips_rank0_and_empty() {
        round_trip(HostData::F64(vec![3.5]), &[]);
        round_trip(HostData::I64(vec![-9]), &[]);
        round_trip(HostData::F32(vec![]), &[2, 0]);
        round_trip(HostData::I64(vec![]), &[0]);
    }

    #[test]
    fn saved_file_has_numpy_header_and_little_endian_body() {
        let file = TempFile::new("layout");
        save(&file.0, &HostData::F32(vec![1.0, 2.0]), &[2]).expect("save");
        let bytes = std::fs::read(&file.0).expect("read back");
        assert!(bytes.starts_with(MAGIC));
        let text = String::from_utf8_lossy(&bytes[10..bytes.len() - 8]).to_string();
        assert!(text.contains("'descr': '<f4'"), "{text}");
        assert!(text.contains("'fortran_order': False"), "{text}");
        // npyz writes `(2, )`, which Python reads as the tuple (2,).
        assert!(text.contains("'shape': (2,"), "{text}");
        assert_eq!(&bytes[bytes.len() - 8..], &[0, 0, 0x80, 0x3f, 0, 0, 0, 0x40]);
    }

    #[test]
    fn loads_hand_written_files() {
        let body = le_bytes(&[1.5f64, -2.0, 4.25], f64::to_le_bytes);
        let file = TempFile::with_bytes(
            "c",
            &npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", &body),
        );
        assert_eq!(
            load(&file.0).expect("load"),
            (HostData::F64(vec![1.5, -2.0, 4.25]), vec![3])
        );

        let file = TempFile::with_bytes(
            "bool",
            &npy_v1(
                "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 2), }",
                &[1, 0, 0, 1],
            ),
        );
        assert_eq!(
            load(&file.0).expect("load"),
            (HostData::Bool(vec![true, false, false, true]), vec![2, 2])
        );

        let file = TempFile::with_bytes(
            "scalar",
            &npy_v1(
                "{'descr': '<i8', 'fortran_order': False, 'shape': (), }",
                &(-3i64).to_le_bytes(),
            ),
        );
        assert_eq!(load(&file.0).expect("load"), (HostData::I64(vec![-3]), vec![]));
    }

    #[test]
    fn fortran_order_is_reordered_to_row_major() {
        // [[1, 2, 3], [4, 5, 6]] stored column by column.
        let body = le_bytes(&[1i32, 4, 2, 5, 3, 6], i32::to_le_bytes);
        let file = TempFile::with_bytes(
            "f2",
            &npy_v1("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", &body),
        );
        assert_eq!(
            load(&file.0).expect("load"),
            (HostData::I32(vec![1, 2, 3, 4, 5, 6]), vec![2, 3])
        );

        // Rank 3: element (i, j, k) = 100i + 10j + k sits at i + 2j + 6k in Fortran order.
        let mut stored = vec![0i64; 24];
        for i in 0..2 {
            for j in 0..3 {
                for k in 0..4 {
                    stored[i + 2 * j + 6 * k] = (100 * i + 10 * j + k) as i64;
                }
            }
        }
        let file = TempFile::with_bytes(
            "f3",
            &npy_v1(
                "{'descr': '<i8', 'fortran_order': True, 'shape': (2, 3, 4), }",
                &le_bytes(&stored, i64::to_le_bytes),
            ),
        );
        let (data, shape) = load(&file.0).expect("load");
        let mut expected = Vec::new();
        for i in 0..2 {
            for j in 0..3 {
                for k in 0..4 {
                    expected.push((100 * i + 10 * j + k) as i64);
                }
            }
        }
        assert_eq!(shape, vec![2, 3, 4]);
        assert_eq!(data, HostData::I64(expected));
    }

    #[test]
    fn fortran_order_written_by_npyz() {
        let mut bytes = Vec::new();
        let mut writer = npyz::WriteOptions::<f32>::new()
            .default_dtype()
            .order(Order::Fortran)
            .shape(&[2, 2])
            .writer(&mut bytes)
            .begin_nd()
            .expect("begin");
        writer.extend([1.0f32, 3.0, 2.0, 4.0]).expect("extend");
        writer.finish().expect("finish");
        let file = TempFile::with_bytes("fnpyz", &bytes);
        assert_eq!(
            load(&file.0).expect("load"),
            (HostData::F32(vec![1.0, 2.0, 3.0, 4.0]), vec![2, 2])
        );
    }

    fn load_err(tag: &str, bytes: &[u8]) -> String {
        let file = TempFile::with_bytes(tag, bytes);
        let err = load(&file.0).expect_err("load should fail");
        assert!(
            err.contains(&file.0.display().to_string()),
            "message does not name the file: {err}"
        );
        err
    }

    #[test]
    fn unsupported_dtypes_are_named() {
        let cases = [
            ("<f2", 2, "float16"),
            ("|u1", 1, "uint8"),
            ("<c8", 8, "complex64"),
            (">f8", 8, "big-endian float64"),
            (">i4", 4, "big-endian int32"),
            ("<u4", 4, "uint32"),
        ];
        for (descr, size, name) in cases {
            let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (2,), }}");
            let err = load_err("dtype", &npy_v1(&dict, &vec![0u8; 2 * size]));
            assert!(err.contains(name), "{descr}: {err}");
            assert!(err.contains(descr), "{descr}: {err}");
            assert!(err.contains("float32"), "should say what is supported: {err}");
        }
    }

    #[test]
    fn garbage_file() {
        let err = load_err("garbage", b"this is not numpy data at all");
        assert!(err.contains("not a .npy file"), "{err}");
        let err = load_err("empty", b"");
        assert!(err.contains("not a .npy file"), "{err}");
    }

    #[test]
    fn truncated_files() {
        let body = le_bytes(&[1.0f64, 2.0, 3.0], f64::to_le_bytes);
        let whole = npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", &body);
        let err = load_err("trunc-data", &whole[..whole.len() - 3]);
        assert!(err.contains("truncated") && err.contains("3 elements"), "{err}");
        let err = load_err("trunc-header", &whole[..30]);
        assert!(err.contains("truncated"), "{err}");
        let err = load_err("trunc-magic", &whole[..4]);
        assert!(err.contains("truncated"), "{err}");
    }

    #[test]
    fn malformed_and_hostile_headers() {
        let err = load_err("dict", &npy_v1("{'descr': '<f8', 'shape': (3,), }", &[0; 24]));
        assert!(err.contains("malformed"), "{err}");
        let huge = "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16), }";
        let err = load_err("huge", &npy_v1(huge, &[0; 8]));
        assert!(err.contains("too large"), "{err}");
        let big = "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }";
        let err = load_err("big", &npy_v1(big, &[0; 8]));
        assert!(err.contains("truncated"), "{err}");
        let mut v9 = npy_v1("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", &[0; 8]);
        v9[6] = 9;
        let err = load_err("version", &v9);
        assert!(err.contains("version 9.0"), "{err}");
    }

    #[test]
    fn missing_file_and_bad_destination() {
        let missing = std::env::temp_dir().join("arr-npy-test-no-such-dir/none.npy");
        let err = load(&missing).expect_err("missing");
        assert!(err.contains("no such file") && err.contains("none.npy"), "{err}");
        let err = save(&missing, &HostData::I64(vec![1]), &[1]).expect_err("no folder");
        assert!(err.contains("cannot write") && err.contains("none.npy"), "{err}");
    }

    #[test]
    fn save_rejects_mismatched_shape() {
        let file = TempFile::new("mismatch");
        assert!(save(&file.0, &HostData::I64(vec![1, 2]), &[3]).is_err());
    }
}
