//! Compile workers: NVRTC in child processes of the `arr` command (its hidden
//! `nvrtc-worker` command), started with the CUDA backend.
//!
//! Why: on the project's GPU hosts, NVRTC inside the `arr` process took 45 to
//! 90 ms of CPU a module, and its first compile 200 to 300 ms, while the same
//! modules compiled in a process of their own, whose heap keeps the memory a
//! compile frees (`keep_heap`), took 12 to 16 ms after the first (session 11,
//! `bench/results/h100_2026-11-23_s11`). A worker also starts NVRTC while the
//! driver creates the context, so its one-time start is off the path of the
//! first kernel.
//!
//! Only the `arr` command enables workers (`enable`); a program embedding the
//! library compiles in its own process. A worker that cannot start, or fails,
//! leaves the compile to the calling process: the result is the same.
//!
//! The protocol, on the worker's stdin and stdout: a request is the option
//! count (u32), each option (u32 length, bytes), then the source (u64 length,
//! bytes); the answer is a status byte (0: a CUBIN follows; 1: NVRTC refused
//! the source, its error and log follow) and a u64 length with the bytes.
//! Integers are little-endian. The worker exits at the end of its input.

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Condvar, Mutex, OnceLock};

/// The hidden command of `arr` that serves compiles.
pub const COMMAND: &str = "nvrtc-worker";

static EXECUTABLE: OnceLock<PathBuf> = OnceLock::new();

/// Lets the CUDA backend start compile workers from `exe`, the `arr` command.
pub fn enable(exe: PathBuf) {
    let _ = EXECUTABLE.set(exe);
}

/// What NVRTC said when it refused a source: the error and the program log.
#[derive(Debug)]
pub(super) struct Refusal {
    pub(super) error: String,
    pub(super) log: String,
}

/// Compiles `source` with `opts` in this process; the CUBIN, or NVRTC's refusal.
pub(super) fn nvrtc_compile(source: &str, opts: &[String]) -> Result<Vec<u8>, Refusal> {
    use cudarc::nvrtc::{result as nv, sys as nvsys};
    let refuse = |error: String| Refusal {
        error,
        log: String::new(),
    };
    let src = std::ffi::CString::new(source).map_err(|e| refuse(format!("{e:?}")))?;
    let prog = nv::create_program(&src, Some(c"arr.cu")).map_err(|e| refuse(format!("{e:?}")))?;
    // SAFETY: `prog` is a live program made above and destroyed only below.
    let res = unsafe { nv::compile_program(prog, opts) };
    if let Err(e) = res {
        // SAFETY: `prog` is live; the log is copied out before it is destroyed.
        let log = unsafe { nv::get_program_log(prog) }
            .map(|l| {
                l.iter()
                    .take_while(|&&c| c != 0)
                    .map(|&c| c as u8 as char)
                    .collect::<String>()
            })
            .unwrap_or_default();
        // SAFETY: `prog` is live and not used after this.
        unsafe {
            let _ = nv::destroy_program(prog);
        }
        return Err(Refusal {
            error: format!("{e:?}"),
            log,
        });
    }
    let mut size = 0usize;
    let mut img;
    // SAFETY: `prog` compiled; `img` has the size NVRTC reported for the
    // CUBIN it then writes; `prog` is destroyed last and not used after.
    unsafe {
        let sized = nvsys::nvrtcGetCUBINSize(prog, &mut size).result();
        img = vec![0u8; size];
        let got = sized.and_then(|_| nvsys::nvrtcGetCUBIN(prog, img.as_mut_ptr() as *mut _).result());
        let _ = nv::destroy_program(prog);
        got.map_err(|e| refuse(format!("reading a CUBIN: {e:?}")))?;
    }
    Ok(img)
}

/// Keeps the memory NVRTC frees in this process's heap for its next compile,
/// rather than handing it back to the kernel and faulting it in again.
fn keep_heap() {
    // SAFETY: mallopt only sets glibc's malloc parameters; any value is accepted or refused.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
        libc::mallopt(libc::M_TOP_PAD, 256 << 20);
    }
}

/// The worker's main loop: serves requests until its input ends.
pub fn serve() -> std::process::ExitCode {
    // SAFETY: only asks whether the library loads; a failure is caught.
    let present = std::panic::catch_unwind(|| unsafe { cudarc::nvrtc::sys::is_culib_present() });
    if !matches!(present, Ok(true)) {
        return std::process::ExitCode::FAILURE;
    }
    // SAFETY: setting a signal's disposition to "ignore" has no preconditions.
    // Ctrl-C reaches the whole process group: the parent decides what it stops.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
    }
    keep_heap();
    // NVRTC's first compile in a process starts it (hundreds of ms on some
    // hosts), and the first compiles grow the heap the later ones reuse: a
    // module as large as the usual one, compiled while the parent creates
    // its CUDA context, pays both off the path of the first kernel
    let warm = format!(
        "{}\nextern \"C\" __global__ void arr_warm(float* x) {{ x[threadIdx.x] = arr_max(x[0], arr_mod(x[1], 3.0f)); }}",
        super::codegen::PRELUDE
    );
    // the device's architecture is not known yet; any recent one runs the same passes
    let opts = ["--gpu-architecture=sm_90", "--std=c++17", "-minimal"].map(String::from);
    let _ = nvrtc_compile(&warm, &opts);
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut output = BufWriter::new(std::io::stdout().lock());
    while let Ok(Some((opts, source))) = read_request(&mut input) {
        let answer = nvrtc_compile(&source, &opts);
        if write_answer(&mut output, &answer).and_then(|_| output.flush()).is_err() {
            break;
        }
    }
    std::process::ExitCode::SUCCESS
}

/// A request's bytes: the options, then the source.
fn request_bytes(opts: &[String], source: &str) -> Vec<u8> {
    let mut req = Vec::with_capacity(source.len() + 256);
    req.extend_from_slice(&(opts.len() as u32).to_le_bytes());
    for o in opts {
        req.extend_from_slice(&(o.len() as u32).to_le_bytes());
        req.extend_from_slice(o.as_bytes());
    }
    req.extend_from_slice(&(source.len() as u64).to_le_bytes());
    req.extend_from_slice(source.as_bytes());
    req
}

/// The next request, or None at the end of the input.
fn read_request(r: &mut impl Read) -> std::io::Result<Option<(Vec<String>, String)>> {
    let mut count = [0u8; 4];
    match r.read_exact(&mut count) {
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        other => other?,
    }
    let mut opts = Vec::new();
    for _ in 0..u32::from_le_bytes(count) {
        let len = read_u32(r)? as usize;
        opts.push(String::from_utf8_lossy(&read_bytes(r, len)?).into_owned());
    }
    let len = read_u64(r)? as usize;
    Ok(Some((opts, String::from_utf8_lossy(&read_bytes(r, len)?).into_owned())))
}

fn write_answer(w: &mut impl Write, answer: &Result<Vec<u8>, Refusal>) -> std::io::Result<()> {
    let refused;
    let (status, body): (u8, &[u8]) = match answer {
        Ok(img) => (0, img),
        Err(r) => {
            refused = format!("{}\0{}", r.error, r.log);
            (1, refused.as_bytes())
        }
    };
    w.write_all(&[status])?;
    w.write_all(&(body.len() as u64).to_le_bytes())?;
    w.write_all(body)
}

fn read_answer(r: &mut impl Read) -> std::io::Result<Result<Vec<u8>, Refusal>> {
    let mut status = [0u8; 1];
    r.read_exact(&mut status)?;
    let len = read_u64(r)? as usize;
    let body = read_bytes(r, len)?;
    Ok(match status[0] {
        0 => Ok(body),
        _ => {
            let text = String::from_utf8_lossy(&body);
            let (error, log) = text.split_once('\0').unwrap_or((&text, ""));
            Err(Refusal {
                error: error.to_string(),
                log: log.to_string(),
            })
        }
    })
}

fn read_u32(r: &mut impl Read) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn read_u64(r: &mut impl Read) -> std::io::Result<u64> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

/// Reads `len` bytes; a length beyond what the stream holds ends in an
/// error at its end, not in one huge allocation up front.
fn read_bytes(r: &mut impl Read, len: usize) -> std::io::Result<Vec<u8>> {
    let mut v = Vec::new();
    r.take(len as u64).read_to_end(&mut v)?;
    if v.len() < len {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(v)
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Worker {
    fn start(exe: &PathBuf) -> Option<Worker> {
        let mut child = Command::new(exe)
            .arg(COMMAND)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let stdin = child.stdin.take()?;
        let stdout = BufReader::new(child.stdout.take()?);
        Some(Worker { child, stdin, stdout })
    }

    fn compile(&mut self, source: &str, opts: &[String]) -> std::io::Result<Result<Vec<u8>, Refusal>> {
        self.stdin.write_all(&request_bytes(opts, source))?;
        self.stdin.flush()?;
        read_answer(&mut self.stdout)
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // closing its input ends the worker; kill covers one stuck in NVRTC
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The running workers, each serving one compile at a time.
pub(super) struct Workers {
    state: Mutex<Idle>,
    returned: Condvar,
}

struct Idle {
    workers: Vec<Worker>,
    /// Workers started and not lost, idle or busy.
    live: usize,
}

impl Workers {
    /// Starts the workers when the `arr` command enabled them and
    /// `ARR_COMPILE_WORKERS` is not 0: that many, else one for every four
    /// cores, 1 to 4.
    pub(super) fn start() -> Option<Workers> {
        let exe = EXECUTABLE.get()?;
        let count = match std::env::var("ARR_COMPILE_WORKERS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
        {
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, |n| (n.get() / 4).clamp(1, 4)),
        };
        let workers: Vec<Worker> = (0..count).filter_map(|_| Worker::start(exe)).collect();
        if workers.is_empty() {
            return None;
        }
        Some(Workers {
            state: Mutex::new(Idle {
                live: workers.len(),
                workers,
            }),
            returned: Condvar::new(),
        })
    }

    /// How many compiles can run at once.
    pub(super) fn count(&self) -> usize {
        self.state.lock().map_or(0, |s| s.live)
    }

    /// Compiles on the next free worker; None when no worker could do it
    /// (none left, or the one asked failed), and the caller compiles itself.
    pub(super) fn compile(&self, source: &str, opts: &[String]) -> Option<Result<Vec<u8>, Refusal>> {
        let mut worker = {
            let mut state = self.state.lock().ok()?;
            loop {
                if let Some(w) = state.workers.pop() {
                    break w;
                }
                if state.live == 0 {
                    return None;
                }
                state = self.returned.wait(state).ok()?;
            }
        };
        let answer = worker.compile(source, opts);
        if let Ok(mut state) = self.state.lock() {
            match answer {
                Ok(_) => state.workers.push(worker),
                // a lost worker: waiters must see that one fewer is left
                Err(_) => state.live -= 1,
            }
        }
        self.returned.notify_all();
        answer.ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_answers_survive_the_pipe() {
        let opts = vec!["--gpu-architecture=sm_90".to_string(), "-minimal".to_string()];
        let source = "extern \"C\" __global__ void k() {}\n// é";
        let mut stream = request_bytes(&opts, source);
        stream.extend(request_bytes(&[], ""));
        let mut r = &stream[..];
        assert_eq!(read_request(&mut r).unwrap(), Some((opts, source.to_string())));
        assert_eq!(read_request(&mut r).unwrap(), Some((vec![], String::new())));
        assert_eq!(read_request(&mut r).unwrap(), None);

        let mut out = Vec::new();
        write_answer(&mut out, &Ok(vec![0, 1, 2, 255])).unwrap();
        let refusal = Refusal {
            error: "NvrtcError(NVRTC_ERROR_COMPILATION)".into(),
            log: "arr.cu(1): error: expected a \";\"".into(),
        };
        write_answer(&mut out, &Err(refusal)).unwrap();
        let mut r = &out[..];
        assert_eq!(read_answer(&mut r).unwrap().unwrap(), vec![0, 1, 2, 255]);
        let back = read_answer(&mut r).unwrap().unwrap_err();
        assert_eq!(back.error, "NvrtcError(NVRTC_ERROR_COMPILATION)");
        assert_eq!(back.log, "arr.cu(1): error: expected a \";\"");
        assert!(read_answer(&mut r).is_err());
    }

    #[test]
    fn a_cut_request_is_an_error_not_a_huge_allocation() {
        let mut bytes = request_bytes(&["-minimal".to_string()], "abc");
        bytes.truncate(bytes.len() - 1);
        assert!(read_request(&mut &bytes[..]).is_err());
        // a length far beyond the stream
        let mut lie = 0u32.to_le_bytes().to_vec();
        lie.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(read_request(&mut &lie[..]).is_err());
    }
}
