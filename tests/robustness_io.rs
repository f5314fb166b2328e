//! Issue 10, items 2, 4, 5 and 7: nothing a user types loses their work or
//! brings the process down. A failed `save` keeps the old file; shapes whose
//! sizes overflow are refused (NumPy's rule) and empty arrays print and reduce
//! without touching their nominal size; `arange` matches NumPy (goldens made by
//! `tests/golden/make_robustness_goldens.py`, no NumPy needed here); memory
//! limits (`ulimit -v`) give E0403 instead of an abort; `load` reads only
//! regular files and only what their header promises.
//!
//! The cases that need a process of their own (resource limits, exit codes,
//! hangs) run the `arr` binary under `sh -c`.

mod common;

use arr::graph::data::HostData;
use common::Captured;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/robustness/io")
}

/// A fresh empty folder under the system's temp dir, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("arr-robustness-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("make scratch dir");
        Scratch(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.0)
            .expect("list scratch dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs `program` with `arr run` in `dir` after the shell `prelude` (limits),
/// killing it after `limit`. Returns the output and how long it took.
fn run_arr(dir: &Path, prelude: &str, program: &str, limit: Duration) -> (Output, Duration) {
    let script = dir.join("prog.arr");
    std::fs::write(&script, program).expect("write program");
    let command = format!("{prelude}\nexec \"$0\" --backend cpu run prog.arr", prelude = prelude);
    let started = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .arg(env!("CARGO_BIN_EXE_arr"))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sh");
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!(
                "`{program}` still running after {limit:?}; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let elapsed = started.elapsed();
    (child.wait_with_output().expect("output"), elapsed)
}

/// Asserts a run failed with a diagnostic `code` (exit code 1, no signal) whose text has `needle`.
fn assert_diagnostic(out: &Output, code: &str, needle: &str) {
    use std::os::unix::process::ExitStatusExt;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.signal(),
        None,
        "killed by a signal instead of reporting {code}: {stderr}"
    );
    assert_eq!(out.status.code(), Some(1), "exit status for {code}: {stderr}");
    assert!(stderr.contains(&format!("[{code}]")), "expected {code}: {stderr}");
    assert!(stderr.contains(needle), "expected {needle:?} in: {stderr}");
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

// ---- item 2: a failed save keeps the file it was replacing

#[test]
fn failed_save_keeps_the_old_file() {
    let dir = Scratch::new("save");
    let (out, _) = run_arr(&dir.0, "", "save(\"good.npy\", arange(10))\n", Duration::from_secs(60));
    stdout(&out);
    let before = std::fs::read(dir.path("good.npy")).expect("first save wrote the file");
    // 8 MB under a 64-block file-size limit (blocks of 512 or 1024 bytes): the write
    // fails with EFBIG. SIGXFSZ is ignored (as the shell passes it on), or the kernel
    // would kill the process, which is not what this tests.
    let (out, _) = run_arr(
        &dir.0,
        "trap '' XFSZ; ulimit -f 64",
        "save(\"good.npy\", arange(1000000))\n",
        Duration::from_secs(60),
    );
    assert_diagnostic(&out, "E0412", "good.npy");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("file-size limit"), "the cause is named: {stderr}");
    let after = std::fs::read(dir.path("good.npy")).expect("the old file is still there");
    assert!(before == after, "the old file changed");
    assert_eq!(dir.names(), vec!["good.npy", "prog.arr"], "no temporary file is left");
}

/// (arr expression, golden file made by NumPy from the same values).
const SAVED: &[(&str, &str)] = &[
    ("reshape(arange(6) as f64, [2, 3]) / 4", "f64_2x3"),
    ("(arange(5) as f32) / 8", "f32_5"),
    ("arange(-3, 3) as i32", "i32_6"),
    ("sum(arange(5))", "i64_scalar"),
    ("reshape(arange(6), [3, 2]) > 2", "bool_3x2"),
    ("zeros([2, 0], dtype=f64)", "f64_2x0"),
    ("zeros([0, 3], dtype=f32)", "f32_0x3"),
    ("zeros([0], dtype=i64)", "i64_0"),
    ("zeros([2**40, 0], dtype=f64)", "f64_huge_empty"),
    ("reshape(arange(6) * 50, [2, 3]) as u8", "u8_2x3"),
    ("[-128, -1, 0, 127] as i8", "i8_4"),
    ("[-32768, 5, 32767] as i16", "i16_3"),
    ("[0, 40000, 65535] as u16", "u16_3"),
    ("[0, 3000000000, 4294967295] as u32", "u32_3"),
];

#[test]
fn save_writes_the_bytes_numpy_writes() {
    let dir = Scratch::new("golden");
    let program: String = SAVED
        .iter()
        .map(|(expr, name)| format!("save(\"{name}.npy\", {expr})\n"))
        .collect();
    let (out, _) = run_arr(&dir.0, "", &program, Duration::from_secs(60));
    stdout(&out);
    for (expr, name) in SAVED {
        let ours = std::fs::read(dir.path(&format!("{name}.npy"))).expect("saved");
        let golden = std::fs::read(data_dir().join(format!("{name}.npy"))).expect("golden");
        assert!(ours == golden, "{expr}: the file differs from np.save's");
    }
}

#[test]
fn load_reads_numpy_files_back() {
    // Each golden loads, and saving it again gives the same bytes.
    let dir = Scratch::new("reload");
    let program: String = SAVED
        .iter()
        .map(|(_, name)| {
            let golden = data_dir().join(format!("{name}.npy"));
            format!("save(\"{name}.npy\", load(\"{}\"))\n", golden.display())
        })
        .collect();
    let (out, _) = run_arr(&dir.0, "", &program, Duration::from_secs(60));
    stdout(&out);
    for (_, name) in SAVED {
        let ours = std::fs::read(dir.path(&format!("{name}.npy"))).expect("saved");
        let golden = std::fs::read(data_dir().join(format!("{name}.npy"))).expect("golden");
        assert!(ours == golden, "{name}: load then save changed the file");
    }
}

#[test]
fn numpy_loads_what_save_writes() {
    let numpy = Command::new("python3").args(["-c", "import numpy"]).output();
    if !numpy.is_ok_and(|o| o.status.success()) {
        eprintln!("note: numpy_loads_what_save_writes skipped: python3 cannot import numpy");
        return;
    }
    let dir = Scratch::new("numpy");
    let program: String = SAVED
        .iter()
        .map(|(expr, name)| format!("save(\"{name}.npy\", {expr})\n"))
        .collect();
    let (out, _) = run_arr(&dir.0, "", &program, Duration::from_secs(60));
    stdout(&out);
    // NumPy builds each expected array itself (the same table as the golden script).
    let check = r#"
import sys, numpy as np
sys.path.insert(0, sys.argv[2])
from make_robustness_goldens import NPY
for name, want in NPY.items():
    got = np.load(f"{sys.argv[1]}/{name}.npy")
    assert got.dtype == want.dtype and got.shape == want.shape, (name, got.dtype, got.shape)
    assert np.array_equal(got, want), name
print("ok", len(NPY))
"#;
    let golden_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let out = Command::new("python3")
        .args(["-c", check])
        .arg(&dir.0)
        .arg(golden_dir)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "numpy could not load a saved file: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("ok {}", SAVED.len())
    );
}

// ---- item 4: shape arithmetic cannot overflow

#[test]
fn wrapping_reshape_is_refused() {
    let dir = Scratch::new("reshape");
    // 8589934595 * 6148914685509894146 wraps to 6 in 64 bits.
    let (out, _) = run_arr(
        &dir.0,
        "",
        "let x = reshape(arange(6), [8589934595, 6148914685509894146])\nprint(x[1, 0])\n",
        Duration::from_secs(60),
    );
    assert_diagnostic(&out, "E0203", "cannot reshape 6 elements");
}

#[test]
fn shapes_whose_nominal_size_overflows_are_refused() {
    let dir = Scratch::new("nominal");
    // NumPy: np.zeros((2**62, 0, 2**62)) raises "array is too big".
    let (out, _) = run_arr(
        &dir.0,
        "",
        "print(zeros([2**62, 0, 2**62]) + 1)\n",
        Duration::from_secs(60),
    );
    assert_diagnostic(&out, "E0403", "is too big");
    let (out, _) = run_arr(
        &dir.0,
        "",
        "save(\"z.npy\", zeros([0, 2**62, 2**62]))\n",
        Duration::from_secs(60),
    );
    assert_diagnostic(&out, "E0403", "is too big");
    assert!(!dir.path("z.npy").exists(), "nothing was written");
}

#[test]
fn empty_arrays_print_and_reduce_in_constant_time() {
    let dir = Scratch::new("empty");
    // 2^40 rows of nothing: the printer summarises the long axis (as NumPy does for any
    // axis longer than 6 once there are more than 1000 items), the concat and the sums
    // never walk it. Sums of nothing are 0; along axis 0 the kept axis has length 0.
    let program = "print(zeros([2**40, 0]))\n\
                   print(sum(concat([zeros([2**40, 0]), zeros([2**40, 0])], axis=1)))\n\
                   print(sum(zeros([2**40, 0]), axis=0))\n\
                   print(shape(eye(2**31, 0)))\n";
    let (out, elapsed) = run_arr(&dir.0, "ulimit -v 4194304", program, Duration::from_secs(60));
    assert_eq!(
        stdout(&out),
        "[[], [], [], ..., [], [], []]\n0.0\n[]\n(2147483648, 0)\n"
    );
    assert!(elapsed < Duration::from_secs(20), "took {elapsed:?}");
}

// ---- item 5: arange as NumPy, integers exactly

fn arange_cases() -> Vec<(String, String, Result<Vec<String>, String>)> {
    let text = std::fs::read_to_string(data_dir().join("arange.tsv")).expect("arange goldens");
    text.lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "bad golden line {line:?}");
            let mut words = fields[2].split(' ').filter(|w| !w.is_empty());
            let result = match words.next() {
                Some("values") => Ok(words.map(str::to_string).collect()),
                Some("error") => Err(words.collect::<Vec<_>>().join(" ")),
                _ => panic!("bad golden result {line:?}"),
            };
            (fields[0].to_string(), fields[1].to_string(), result)
        })
        .collect()
}

#[test]
fn arange_matches_numpy() {
    let cases = arange_cases();
    assert!(cases.len() >= 30, "the golden table is complete");
    for (args, dtype, want) in cases {
        let call = if dtype == "-" {
            format!("arange({args})")
        } else {
            format!("arange({args}, dtype={dtype})")
        };
        let mut session = arr::Session::cpu();
        let printed = Captured::default();
        session.set_output(Box::new(printed.clone()));
        let ran = session.eval(&format!("let x = {call}"));
        assert_eq!(printed.text(), "", "{call}: printed something");
        match (want, ran) {
            (Ok(values), Ok(_)) => {
                let got = session.get("x").expect("x is an array");
                assert_eq!(got.shape, vec![values.len()], "{call}: length");
                match (&got.data, dtype.as_str()) {
                    (HostData::I64(v), "-") => {
                        let want: Vec<i64> = values.iter().map(|s| s.parse().expect("int")).collect();
                        assert_eq!(v, &want, "{call}");
                    }
                    (HostData::F64(v), "f64") => {
                        let want: Vec<f64> = values.iter().map(|s| s.parse().expect("float")).collect();
                        let same = v.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits());
                        assert!(same, "{call}: {v:?} != NumPy's {want:?}");
                    }
                    (other, _) => panic!("{call}: unexpected dtype {}", other.dtype()),
                }
            }
            (Err(kind), Err(diags)) => {
                let code = match kind.as_str() {
                    "not a number" | "zero step" => "E0210",
                    "too large" => "E0403",
                    other => panic!("unknown error kind {other}"),
                };
                assert_eq!(diags[0].code, code, "{call}: {}", diags[0].message);
            }
            (Ok(values), Err(diags)) => panic!("{call}: NumPy gives {values:?}, arr fails: {}", diags[0].message),
            (Err(kind), Ok(_)) => panic!("{call}: NumPy fails ({kind}), arr does not"),
        }
    }
}

// ---- item 7: memory limits, bool sums, load of anything but a regular file

#[test]
fn allocations_past_ulimit_are_e0403_not_an_abort() {
    let dir = Scratch::new("ulimit");
    // 8 GiB under a 4 GiB address-space limit: refused with a diagnostic before the
    // allocator is asked (which would abort the process with SIGABRT). The array is
    // bound and indexed, so it must exist: a bare `sum(zeros(...))` fuses into its
    // reduction and allocates nothing.
    let (out, _) = run_arr(
        &dir.0,
        "ulimit -v 4194304",
        "let z = zeros([1073741824], dtype=f64) + 1\nprint(z[0])\n",
        Duration::from_secs(60),
    );
    assert_diagnostic(&out, "E0403", "out of memory");
}

#[test]
fn bool_sums_count_without_a_widened_copy() {
    // 256 MiB of bools: an i64 copy (2 GiB) would not fit under a 1.5 GiB address-space limit.
    let dir = Scratch::new("boolsum");
    let n: usize = 1 << 28;
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    let mut header = format!("{{'descr': '|b1', 'fortran_order': False, 'shape': ({n},), }}");
    header.push_str(&" ".repeat(64 - (10 + header.len() + 1) % 64));
    header.push('\n');
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    let data_start = bytes.len();
    let path = dir.path("mask.npy");
    std::fs::write(&path, &bytes).expect("header");
    // Sparse zeros, with trues at three places (hand-counted: 3).
    let file = std::fs::OpenOptions::new().write(true).open(&path).expect("open");
    file.set_len((data_start + n) as u64).expect("extend");
    for at in [0, 12345, n - 1] {
        use std::os::unix::fs::FileExt;
        file.write_at(&[1], (data_start + at) as u64).expect("write a true");
    }
    drop(file);
    let program = "let m = load(\"mask.npy\")\nprint(sum(m))\nprint(sum(reshape(m, [4, 67108864]), axis=1))\n";
    let (out, _) = run_arr(&dir.0, "ulimit -v 1572864", program, Duration::from_secs(120));
    assert_eq!(stdout(&out), "3\n[2, 0, 0, 1]\n");
}

#[test]
fn load_refuses_devices_and_fifos_without_hanging() {
    let dir = Scratch::new("fifo");
    let (out, _) = run_arr(&dir.0, "", "let z = load(\"/dev/zero\")\n", Duration::from_secs(30));
    assert_diagnostic(&out, "E0410", "character device");
    let made = Command::new("mkfifo").arg(dir.path("pipe.npy")).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("note: the FIFO half of load_refuses_devices_and_fifos_without_hanging skipped: no mkfifo");
        return;
    }
    let (out, elapsed) = run_arr(&dir.0, "", "let p = load(\"pipe.npy\")\n", Duration::from_secs(30));
    assert_diagnostic(&out, "E0410", "FIFO");
    assert!(elapsed < Duration::from_secs(20), "took {elapsed:?}");
}

/// A version 1.0 `.npy` file of the header dict `dict` and the element bytes `body`.
fn npy_file(dict: &str, body: &[u8]) -> Vec<u8> {
    let mut header = dict.to_string();
    header.push_str(&" ".repeat(64 - (10 + header.len() + 1) % 64));
    header.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((header.len() as u16).to_le_bytes());
    bytes.extend(header.as_bytes());
    bytes.extend(body);
    bytes
}

#[test]
fn load_reads_only_what_the_header_promises() {
    let dir = Scratch::new("promise");
    // A header promising 2^40 f64 elements over 16 bytes of data: refused as truncated
    // before anything of that size is allocated.
    let bytes = npy_file(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }",
        &[0u8; 16],
    );
    std::fs::write(dir.path("liar.npy"), &bytes).expect("write");
    let (out, _) = run_arr(
        &dir.0,
        "ulimit -v 2097152",
        "let x = load(\"liar.npy\")\n",
        Duration::from_secs(30),
    );
    assert_diagnostic(&out, "E0411", "truncated");
}

#[test]
fn load_refuses_uint64_and_says_how_to_convert() {
    // Arr has no u64: a uint64 file is refused by name, with the conversion to make.
    let dir = Scratch::new("uint64");
    let bytes = npy_file("{'descr': '<u8', 'fortran_order': False, 'shape': (2,), }", &[7u8; 16]);
    std::fs::write(dir.path("big.npy"), &bytes).expect("write");
    let (out, _) = run_arr(&dir.0, "", "let x = load(\"big.npy\")\n", Duration::from_secs(30));
    assert_diagnostic(&out, "E0411", "holds uint64 elements");
    assert_diagnostic(&out, "E0411", "uint64 to int64");
}
