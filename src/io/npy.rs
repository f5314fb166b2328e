//! `.npy` load and save. npyz parses and writes the header; the element bytes
//! are decoded here, after checking that the file really holds them, so that
//! a damaged or hostile file gives a sentence instead of a panic or a huge
//! allocation. `load` opens regular files only and reads exactly what its
//! validated header promises; `save` writes a temporary file next to the
//! target and renames it over the target only once every byte is on disk, so
//! a failed save leaves the old file as it was.

use crate::backend::memory;
use crate::graph::data::HostData;
use npyz::{Endianness, NpyHeader, Order, TypeChar};
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8] = b"\x93NUMPY";
const SUPPORTED: &str = "arr can load bool, uint8, int8, int16, uint16, int32, uint32, int64, float16, float32 and float64 arrays (either byte order); convert others with astype, e.g. uint64 to int64";
/// The longest header text read: NumPy's own default `max_header_size` is 10000,
/// and a header is a short dict; this bound keeps a hostile length from
/// allocating gigabytes.
const MAX_HEADER_BYTES: usize = 1 << 20;

/// A failure of `load` or `save`: the diagnostic code (E0410 cannot read, E0411
/// bad contents, E0412 cannot write, E0403 out of memory) and a sentence
/// naming the file and the cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IoError {
    pub code: &'static str,
    pub message: String,
}

impl IoError {
    fn new(code: &'static str, message: String) -> IoError {
        IoError { code, message }
    }

    fn contents(message: String) -> IoError {
        IoError::new("E0411", message)
    }
}

impl std::fmt::Display for IoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What kind of thing a non-regular path is, for the message.
fn kind_of(file_type: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_fifo() {
        "a FIFO (named pipe)"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else if file_type.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

fn read_error(shown: &std::path::Display, e: &std::io::Error) -> IoError {
    IoError::new(
        "E0410",
        match e.kind() {
            ErrorKind::NotFound => format!("cannot read {shown}: no such file"),
            ErrorKind::PermissionDenied => format!("cannot read {shown}: permission denied"),
            ErrorKind::IsADirectory => format!("cannot read {shown}: it is a directory"),
            _ => format!("cannot read {shown}: {e}"),
        },
    )
}

/// Opens `path` for reading if it is a regular file. The type is checked
/// before opening (a FIFO would block `open` until a writer comes) and again
/// on the open file (the path may have changed in between); `O_NONBLOCK`
/// keeps even that window from hanging.
fn open_regular(path: &Path) -> Result<(File, u64), IoError> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| read_error(&shown, &e))?;
    let refuse = |t: std::fs::FileType| {
        IoError::new(
            "E0410",
            format!(
                "cannot read {shown}: it is {}, and arr loads only regular files",
                kind_of(t)
            ),
        )
    };
    if !meta.is_file() {
        return Err(refuse(meta.file_type()));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK on Linux (every architecture Rust supports there but alpha/mips/sparc).
        const O_NONBLOCK: i32 = 0o4000;
        options.custom_flags(O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| read_error(&shown, &e))?;
    let meta = file.metadata().map_err(|e| read_error(&shown, &e))?;
    if !meta.is_file() {
        return Err(refuse(meta.file_type()));
    }
    Ok((file, meta.len()))
}

/// Reads up to `len` bytes (fewer at the end of the file).
fn read_up_to(file: &mut File, len: usize, shown: &std::path::Display) -> Result<Vec<u8>, IoError> {
    let mut out = Vec::new();
    file.take(len as u64)
        .read_to_end(&mut out)
        .map_err(|e| read_error(shown, &e))?;
    Ok(out)
}

/// Reads a `.npy` file: its elements in row-major order and its shape
/// (Fortran-order files are reordered). Errors are sentences for the user.
pub fn load(path: &Path) -> Result<(HostData, Vec<usize>), IoError> {
    let shown = path.display();
    let (mut file, file_len) = open_regular(path)?;
    // Magic, version and header length; then exactly the header the length announces.
    let mut head = read_up_to(&mut file, 12, &shown)?;
    let (text_start, header_len) = header_extent(&head).map_err(|problem| IoError::contents(problem.sentence(path)))?;
    if header_len > MAX_HEADER_BYTES {
        return Err(IoError::contents(format!(
            "{shown} announces a .npy header of {header_len} bytes; arr reads headers of at most {MAX_HEADER_BYTES}"
        )));
    }
    let data_start = text_start + header_len;
    if (data_start as u64) > file_len {
        return Err(IoError::contents(HeaderProblem::Truncated.sentence(path)));
    }
    let more = read_up_to(&mut file, data_start.saturating_sub(head.len()), &shown)?;
    head.extend(more);
    head.truncate(data_start);
    if head.len() < data_start {
        return Err(IoError::contents(HeaderProblem::Truncated.sentence(path)));
    }
    precheck_shape(&head[text_start..data_start]).map_err(|problem| IoError::contents(problem.sentence(path)))?;

    let mut reader: &[u8] = &head;
    let header = NpyHeader::from_reader(&mut reader)
        .map_err(|e| IoError::contents(format!("{shown} has a malformed .npy header ({e})")))?;
    let (dtype, big) = element_dtype(&header.dtype())
        .map_err(|found| IoError::contents(format!("{shown} holds {found}; {SUPPORTED}")))?;
    let too_large = || IoError::contents(format!("{shown} declares a shape too large to load"));
    let shape: Vec<usize> = header
        .shape()
        .iter()
        .map(|&n| usize::try_from(n).map_err(|_| too_large()))
        .collect::<Result<_, _>>()?;
    let count = element_count(&shape).ok_or_else(too_large)?;
    let needed = count.checked_mul(dtype.size_bytes()).ok_or_else(too_large)?;
    let available = file_len - data_start as u64;
    if available < needed as u64 {
        return Err(IoError::contents(format!(
            "{shown} is truncated: its header promises {count} elements ({needed} bytes) but only {available} bytes of data follow"
        )));
    }
    let fortran = header.order() == Order::Fortran;
    let what = format!("the elements of {shown}");
    let mut body = BodyReader {
        file: &mut file,
        shown: &shown,
        left: needed,
    };
    // each element's bytes in the file's order
    macro_rules! bytes_of {
        ($t:ty) => {
            if big {
                <$t>::from_be_bytes
            } else {
                <$t>::from_le_bytes
            }
        };
    }
    let data = match dtype {
        crate::DType::Bool => HostData::Bool(reorder(body.decode(count, &what, |[b]| b != 0)?, &shape, fortran)),
        crate::DType::U8 => HostData::U8(reorder(body.decode(count, &what, bytes_of!(u8))?, &shape, fortran)),
        crate::DType::I8 => HostData::I8(reorder(body.decode(count, &what, bytes_of!(i8))?, &shape, fortran)),
        crate::DType::I16 => HostData::I16(reorder(body.decode(count, &what, bytes_of!(i16))?, &shape, fortran)),
        crate::DType::U16 => HostData::U16(reorder(body.decode(count, &what, bytes_of!(u16))?, &shape, fortran)),
        crate::DType::I32 => HostData::I32(reorder(body.decode(count, &what, bytes_of!(i32))?, &shape, fortran)),
        crate::DType::U32 => HostData::U32(reorder(body.decode(count, &what, bytes_of!(u32))?, &shape, fortran)),
        crate::DType::I64 => HostData::I64(reorder(body.decode(count, &what, bytes_of!(i64))?, &shape, fortran)),
        crate::DType::F16 => HostData::F16(reorder(
            body.decode(count, &what, bytes_of!(half::f16))?,
            &shape,
            fortran,
        )),
        crate::DType::BF16 => HostData::BF16(reorder(
            body.decode(count, &what, bytes_of!(half::bf16))?,
            &shape,
            fortran,
        )),
        crate::DType::F32 => HostData::F32(reorder(body.decode(count, &what, bytes_of!(f32))?, &shape, fortran)),
        crate::DType::F64 => HostData::F64(reorder(body.decode(count, &what, bytes_of!(f64))?, &shape, fortran)),
    };
    Ok((data, shape))
}

/// Streams the element bytes into their final vector, a block at a time, so
/// that a load never holds the raw bytes and the decoded elements at once.
struct BodyReader<'a, 'p> {
    file: &'a mut File,
    shown: &'a std::path::Display<'p>,
    left: usize,
}

impl BodyReader<'_, '_> {
    fn decode<T, const N: usize>(
        &mut self,
        count: usize,
        what: &str,
        from_bytes: fn([u8; N]) -> T,
    ) -> Result<Vec<T>, IoError> {
        let mut out: Vec<T> = memory::try_vec(count, what, None).map_err(|d| IoError::new("E0403", d.message))?;
        let mut block = vec![0u8; (1 << 16) * N];
        while self.left > 0 {
            let take = self.left.min(block.len());
            self.file.read_exact(&mut block[..take]).map_err(|e| {
                if e.kind() == ErrorKind::UnexpectedEof {
                    IoError::contents(format!("{} is truncated: it ended while being read", self.shown))
                } else {
                    read_error(self.shown, &e)
                }
            })?;
            out.extend(block[..take].chunks_exact(N).map(|chunk| {
                let mut raw = [0u8; N];
                raw.copy_from_slice(chunk);
                from_bytes(raw)
            }));
            self.left -= take;
        }
        Ok(out)
    }
}

/// A fresh name in `path`'s folder for the file a save writes before renaming it.
fn temporary_sibling(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = format!(".{name}.arr-tmp-{}-{n}", std::process::id());
    match path.parent() {
        Some(dir) => dir.join(tmp),
        None => PathBuf::from(tmp),
    }
}

fn write_error(shown: &std::path::Display, e: &std::io::Error) -> IoError {
    IoError::new(
        "E0412",
        match e.kind() {
            ErrorKind::NotFound => format!("cannot write {shown}: its folder does not exist"),
            ErrorKind::PermissionDenied => format!("cannot write {shown}: permission denied"),
            ErrorKind::IsADirectory => format!("cannot write {shown}: it is a directory"),
            ErrorKind::StorageFull => format!("cannot write {shown}: the disk is full ({e})"),
            ErrorKind::FileTooLarge => {
                format!("cannot write {shown}: the file would exceed the file-size limit ({e})")
            }
            _ => format!("cannot write {shown}: {e}"),
        },
    )
}

/// Why `save` refuses a dtype, if it does: NumPy has no bfloat16. ml_dtypes
/// writes one as raw `'<V2'` bytes that `np.load` reads back as void, not
/// numbers, so Arr refuses rather than write a file that loads as garbage;
/// `x as f32` holds every bf16 value exactly. (E0300, from the checker and
/// at run time.)
pub fn unsaveable(dtype: crate::DType) -> Option<(String, &'static str)> {
    (dtype == crate::DType::BF16).then(|| {
        (
            "`save` is not defined for bf16: NumPy has no bfloat16 dtype".to_string(),
            "save `x as f32`, which holds every bf16 value exactly",
        )
    })
}

/// Writes `data` (row-major, `shape`) as a `.npy` file. The bytes go to a
/// temporary file in the same folder, are flushed to disk, and only then
/// replace `path` by a rename; on any failure the temporary file is removed
/// and `path` is untouched.
pub fn save(path: &Path, data: &HostData, shape: &[usize]) -> Result<(), IoError> {
    let shown = path.display();
    if element_count(shape) != Some(data.len()) {
        return Err(IoError::new(
            "E0412",
            format!(
                "internal error: cannot save {shown}: {} elements do not fit shape {shape:?}",
                data.len()
            ),
        ));
    }
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(IoError::new(
            "E0412",
            format!("cannot write {shown}: it is a directory"),
        ));
    }
    let tmp = temporary_sibling(path);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| write_error(&shown, &e))?;
    let written = (|| -> std::io::Result<()> {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        out.write_all(&header_bytes(descr(data), shape))?;
        match data {
            HostData::Bool(v) => write_le(&mut out, v, |&b| [u8::from(b)])?,
            HostData::U8(v) => write_le(&mut out, v, |x| x.to_le_bytes())?,
            HostData::I8(v) => write_le(&mut out, v, |x| x.to_le_bytes())?,
            HostData::I16(v) => write_le(&mut out, v, |x| x.to_le_bytes())?,
            HostData::U16(v) => write_le(&mut out, v, |x| x.to_le_bytes())?,
            HostData::I32(v) => write_le(&mut out, v, |x| x.to_le_bytes())?,
            HostData::U32(v) => write_le(&mut out, v, |x| x.to_le_bytes())?,
            HostData::I64(v) => write_le(&mut out, v, |x| x.to_le_bytes())?,
            HostData::F16(v) => write_le(&mut out, v, |x| x.to_le_bytes())?,
            HostData::BF16(v) => write_le(&mut out, v, |x| x.to_le_bytes())?,
            HostData::F32(v) => write_le(&mut out, v, |x| x.to_le_bytes())?,
            HostData::F64(v) => write_le(&mut out, v, |x| x.to_le_bytes())?,
        }
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        write_error(&shown, &e)
    })
}

/// NumPy's `descr` of each dtype Arr writes.
fn descr(data: &HostData) -> &'static str {
    match data {
        HostData::Bool(_) => "|b1",
        HostData::U8(_) => "|u1",
        HostData::I8(_) => "|i1",
        HostData::I16(_) => "<i2",
        HostData::U16(_) => "<u2",
        HostData::I32(_) => "<i4",
        HostData::U32(_) => "<u4",
        HostData::I64(_) => "<i8",
        HostData::F16(_) => "<f2",
        // never written: `save` refuses bf16 first (NumPy has no bfloat16)
        HostData::BF16(_) => "<V2",
        HostData::F32(_) => "<f4",
        HostData::F64(_) => "<f8",
    }
}

/// The magic, version, length and header dict exactly as NumPy's `np.save`
/// writes them (`numpy/lib/format.py`): the dict in key order, Python's tuple
/// spelling of the shape, room for the first axis to grow to 21 digits, and
/// spaces up to a 64-byte boundary before the closing newline. Byte-for-byte
/// equal files are what the golden tests compare.
fn header_bytes(descr: &str, shape: &[usize]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let tuple = match dims.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", dims.join(", ")),
    };
    let mut text = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {tuple}, }}");
    if let Some(first) = dims.first() {
        text.push_str(&" ".repeat(21usize.saturating_sub(first.len())));
    }
    let (version, len_bytes): (u8, usize) = if text.len() + 1 + 64 + 10 < 65536 {
        (1, 2)
    } else {
        (2, 4)
    };
    let prefix = MAGIC.len() + 2 + len_bytes;
    let pad = 64 - (prefix + text.len() + 1) % 64;
    text.push_str(&" ".repeat(pad));
    text.push('\n');
    let mut out = MAGIC.to_vec();
    out.extend([version, 0]);
    if version == 1 {
        out.extend((text.len() as u16).to_le_bytes());
    } else {
        out.extend((text.len() as u32).to_le_bytes());
    }
    out.extend(text.as_bytes());
    out
}

fn write_le<T, const N: usize>(out: &mut impl Write, values: &[T], bytes: fn(&T) -> [u8; N]) -> std::io::Result<()> {
    for block in values.chunks(1 << 14) {
        let raw: Vec<u8> = block.iter().flat_map(bytes).collect();
        out.write_all(&raw)?;
    }
    Ok(())
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

/// The Arr dtype of a file's elements and whether they are big-endian (NumPy
/// writes `>` dtypes; they load as the same numbers in native order), or a
/// description of what the file holds instead.
fn element_dtype(dtype: &npyz::DType) -> Result<(crate::DType, bool), String> {
    let npyz::DType::Plain(ts) = dtype else {
        return Err(format!("structured (record) elements, dtype {}", dtype.descr()));
    };
    let size = ts.size_field();
    // `|` (an object, a byte string, a void) has no byte order: not big-endian
    let big = matches!(ts.endianness(), Endianness::Big) && size > 1;
    let ok = |d: crate::DType| Ok((d, big));
    let found = match (ts.type_char(), size) {
        (TypeChar::Bool, 1) => return ok(crate::DType::Bool),
        (TypeChar::Uint, 1) => return ok(crate::DType::U8),
        (TypeChar::Int, 1) => return ok(crate::DType::I8),
        (TypeChar::Int, 2) => return ok(crate::DType::I16),
        (TypeChar::Uint, 2) => return ok(crate::DType::U16),
        (TypeChar::Int, 4) => return ok(crate::DType::I32),
        (TypeChar::Uint, 4) => return ok(crate::DType::U32),
        (TypeChar::Int, 8) => return ok(crate::DType::I64),
        (TypeChar::Float, 2) => return ok(crate::DType::F16),
        (TypeChar::Float, 4) => return ok(crate::DType::F32),
        (TypeChar::Float, 8) => return ok(crate::DType::F64),
        (TypeChar::Bool, _) => "bool".to_string(),
        (TypeChar::Int, n) => format!("int{}", n * 8),
        (TypeChar::Uint, n) => format!("uint{}", n * 8),
        (TypeChar::Float, n) => format!("float{}", n * 8),
        (TypeChar::Complex, n) => format!("complex{}", n * 8),
        (TypeChar::TimeDelta, _) => "timedelta64".to_string(),
        (TypeChar::DateTime, _) => "datetime64".to_string(),
        (TypeChar::ByteStr, _) => "bytes".to_string(),
        (TypeChar::UnicodeStr, _) => "string".to_string(),
        (TypeChar::Object, _) => "Python object".to_string(),
        (TypeChar::RawData, _) => "raw (void)".to_string(),
        _ => "unknown".to_string(),
    };
    let order = if big { "big-endian " } else { "" };
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

/// Where the header text starts and how long it says it is, from the magic,
/// version and length fields (the first 10 or 12 bytes).
fn header_extent(bytes: &[u8]) -> Result<(usize, usize), HeaderProblem> {
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
    match version {
        (1, 0) => {
            let raw = bytes.get(8..10).ok_or(HeaderProblem::Truncated)?;
            Ok((10, u16::from_le_bytes([raw[0], raw[1]]) as usize))
        }
        (2, 0) | (3, 0) => {
            let raw = bytes.get(8..12).ok_or(HeaderProblem::Truncated)?;
            Ok((12, u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]) as usize))
        }
        (major, minor) => Err(HeaderProblem::UnknownVersion(major, minor)),
    }
}

/// Checks the shape of a header text before npyz, which multiplies it without
/// overflow checks, sees it. NumPy's rule: the non-zero sizes times the widest
/// element must fit the address space, even when a zero makes the array empty.
fn precheck_shape(text: &[u8]) -> Result<(), HeaderProblem> {
    if let Some(dims) = shape_dims(&String::from_utf8_lossy(text))
        && dims
            .iter()
            .filter(|&&n| n != 0)
            .try_fold(8u64, |acc, &n| acc.checked_mul(n))
            .is_none_or(|n| n > isize::MAX as u64)
    {
        return Err(HeaderProblem::TooLarge);
    }
    Ok(())
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
    use npyz::WriterBuilder;
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
        assert!(text.contains("'shape': (2,), }"), "{text}");
        assert_eq!((bytes.len() - 8) % 64, 0, "the data starts on a 64-byte boundary");
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
        let err = load(&file.0).expect_err("load should fail").message;
        assert!(
            err.contains(&file.0.display().to_string()),
            "message does not name the file: {err}"
        );
        err
    }

    #[test]
    fn unsupported_dtypes_are_named() {
        let cases = [
            ("<u8", 8, "uint64"),
            (">u8", 8, "big-endian uint64"),
            ("<c8", 8, "complex64"),
            (">c16", 16, "big-endian complex128"),
            ("|O", 8, "Python object"),
        ];
        for (descr, size, name) in cases {
            let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (2,), }}");
            let err = load_err("dtype", &npy_v1(&dict, &vec![0u8; 2 * size]));
            assert!(err.contains(name), "{descr}: {err}");
            assert_eq!(err.contains("big-endian"), descr.starts_with('>'), "{descr}: {err}");
            assert!(err.contains(descr), "{descr}: {err}");
            assert!(err.contains("float32"), "should say what is supported: {err}");
        }
    }

    #[test]
    fn big_endian_files_load_as_their_numbers() {
        // as NumPy writes `x.astype('>f8')` and the others: the same values, bytes reversed
        let f64s = [1.5f64, -2.25, 1e300];
        let data = le_bytes(&f64s, f64::to_be_bytes);
        let file = TempFile::with_bytes(
            "be-f8",
            &npy_v1("{'descr': '>f8', 'fortran_order': False, 'shape': (3,), }", &data),
        );
        assert_eq!(load(&file.0).expect("load"), (HostData::F64(f64s.to_vec()), vec![3]));
        let i32s = [1i32, -2, 70000, i32::MIN];
        let data = le_bytes(&i32s, i32::to_be_bytes);
        let dict = "{'descr': '>i4', 'fortran_order': True, 'shape': (2, 2), }";
        let file = TempFile::with_bytes("be-i4", &npy_v1(dict, &data));
        // Fortran order: the file holds the columns one after another
        assert_eq!(
            load(&file.0).expect("load"),
            (HostData::I32(vec![1, 70000, -2, i32::MIN]), vec![2, 2])
        );
        let halves = [half::f16::from_f32(0.5), half::f16::from_f32(-3.0)];
        let data = le_bytes(&halves, half::f16::to_be_bytes);
        let file = TempFile::with_bytes(
            "be-f2",
            &npy_v1("{'descr': '>f2', 'fortran_order': False, 'shape': (2,), }", &data),
        );
        assert_eq!(load(&file.0).expect("load"), (HostData::F16(halves.to_vec()), vec![2]));
        let u16s = [1u16, 65535];
        let data = le_bytes(&u16s, u16::to_be_bytes);
        let file = TempFile::with_bytes(
            "be-u2",
            &npy_v1("{'descr': '>u2', 'fortran_order': False, 'shape': (2,), }", &data),
        );
        assert_eq!(load(&file.0).expect("load"), (HostData::U16(u16s.to_vec()), vec![2]));
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
        let err = load(&missing).expect_err("missing").message;
        assert!(err.contains("no such file") && err.contains("none.npy"), "{err}");
        let err = save(&missing, &HostData::I64(vec![1]), &[1])
            .expect_err("no folder")
            .message;
        assert!(err.contains("cannot write") && err.contains("none.npy"), "{err}");
    }

    #[test]
    fn save_rejects_mismatched_shape() {
        let file = TempFile::new("mismatch");
        assert!(save(&file.0, &HostData::I64(vec![1, 2]), &[3]).is_err());
    }

    #[test]
    fn only_regular_files_are_loaded() {
        let err = load(Path::new("/dev/zero")).expect_err("a device");
        assert_eq!(err.code, "E0410");
        assert!(err.message.contains("character device"), "{err}");
        let err = load(&std::env::temp_dir()).expect_err("a directory");
        assert!(err.message.contains("directory"), "{err}");
        let fifo = TempFile::new("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo.0).status();
        if made.is_ok_and(|s| s.success()) {
            // Opening a FIFO for reading blocks until a writer comes: this must return at once.
            let err = load(&fifo.0).expect_err("a FIFO");
            assert!(err.message.contains("FIFO"), "{err}");
        }
    }

    #[test]
    fn header_length_is_bounded() {
        let mut bytes = b"\x93NUMPY\x02\x00".to_vec();
        bytes.extend(u32::MAX.to_le_bytes());
        bytes.extend(b"{'descr': '<f8'");
        let err = load_err("hugeheader", &bytes);
        assert!(err.contains("header of 4294967295 bytes"), "{err}");
    }

    #[test]
    fn zero_sized_shapes_with_huge_axes_are_refused() {
        // np.zeros((2**62, 0)) is "array is too big"; such a header is refused, not trusted.
        let dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 0), }";
        let err = load_err("nominal", &npy_v1(dict, &[]));
        assert!(err.contains("too large"), "{err}");
        let dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 0), }";
        let file = TempFile::with_bytes("empty-wide", &npy_v1(dict, &[]));
        assert_eq!(load(&file.0).expect("load"), (HostData::F64(vec![]), vec![1 << 40, 0]));
    }

    #[test]
    fn trailing_bytes_are_not_read() {
        let mut body = le_bytes(&[1i64, 2], i64::to_le_bytes);
        body.extend([0xAB; 100]);
        let file = TempFile::with_bytes(
            "trailing",
            &npy_v1("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", &body),
        );
        assert_eq!(load(&file.0).expect("load"), (HostData::I64(vec![1, 2]), vec![2]));
    }

    #[test]
    fn save_replaces_atomically_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("arr-npy-save-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let target = dir.join("x.npy");
        save(&target, &HostData::I64(vec![1, 2, 3]), &[3]).expect("first save");
        save(&target, &HostData::F32(vec![0.5]), &[1]).expect("second save");
        assert_eq!(load(&target).expect("load"), (HostData::F32(vec![0.5]), vec![1]));
        // A save that cannot rename (the target is a directory) leaves nothing behind.
        let sub = dir.join("sub.npy");
        std::fs::create_dir_all(&sub).expect("mkdir");
        let err = save(&sub, &HostData::I64(vec![1]), &[1]).expect_err("a directory");
        assert_eq!(err.code, "E0412");
        let names: Vec<String> = std::fs::read_dir(&dir)
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "a temporary file was left: {names:?}");
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
