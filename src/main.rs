//! The `arr` command: the REPL (no arguments), `run`, `check` and `explain`.
//! Diagnostics go to stderr, in colour only on a terminal; any error exits 1,
//! a run stopped by Ctrl-C exits 130.

mod repl;

use arr::plan::DeviceInfo;
use arr::{BackendChoice, Session};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "arr",
    version,
    about = "Arr: a small array language; with no command, starts the REPL"
)]
struct Cli {
    /// Where programs run: the CPU, an NVIDIA GPU, or the GPU when one is usable.
    #[arg(long, global = true, value_enum, default_value_t = Backend::Auto)]
    backend: Backend,
    /// Seed of the random functions (as if the program began with `seed(N)`).
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=i64::MAX as u64))]
    seed: Option<u64>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a script.
    Run {
        /// The script to run (`-` reads it from stdin).
        file: PathBuf,
        /// Print where the time went (kernels, transfers) after the run.
        #[arg(long)]
        profile: bool,
        /// Write the same timings as JSON lines to FILE (one object per kernel, then a summary).
        #[arg(long, value_name = "FILE")]
        profile_json: Option<PathBuf>,
        /// Print the script's wall time to stderr (without start-up: the standard library,
        /// and the device, which starts at the first computation; until the last statement
        /// returns).
        #[arg(long)]
        time: bool,
        /// Run the script N times in one session, as `timeit` does: it is parsed
        /// and checked once, and later runs find planned kernels, pooled buffers and
        /// mapped memory. Each run's time is printed with `--time`; output and side
        /// effects repeat.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
        runs: u32,
    },
    /// Report every static error in a script without running it.
    Check {
        /// The script to check.
        file: PathBuf,
    },
    /// Serve NVRTC compiles on stdin and stdout for a parent `arr` (internal).
    #[command(name = arr::backend::cuda::worker::COMMAND, hide = true)]
    NvrtcWorker,
    /// Show the kernels a script compiles to for the chosen backend, with no side
    /// effects: it runs on the CPU to follow its control flow, prints nothing and
    /// writes no file. Needs no GPU (`--backend cuda` plans for a reference device).
    Explain {
        /// The script to explain.
        file: PathBuf,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Backend {
    Cpu,
    Cuda,
    Auto,
}

impl From<Backend> for BackendChoice {
    fn from(backend: Backend) -> BackendChoice {
        match backend {
            Backend::Cpu => BackendChoice::Cpu,
            Backend::Cuda => BackendChoice::Cuda,
            Backend::Auto => BackendChoice::Auto,
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // --help and --version come through here too, and are not errors.
            return if e.use_stderr() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    // this command's CUDA backend compiles in child processes of itself
    if let Ok(exe) = std::env::current_exe() {
        arr::backend::cuda::worker::enable(exe);
    }
    let color = std::io::stderr().is_terminal();
    let outcome = match &cli.command {
        None => start(&cli, color).map(|session| repl::run(session) == 0),
        Some(Command::Run {
            file,
            profile,
            profile_json,
            time,
            runs,
        }) => on_pool(|| run(&cli, file, *profile, profile_json.as_deref(), *time, *runs, color)),
        Some(Command::Check { file }) => check(file, color),
        Some(Command::Explain { file }) => explain(&cli, file, color),
        Some(Command::NvrtcWorker) => return arr::backend::cuda::worker::serve(),
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        _ if arr::interrupt::requested() => ExitCode::from(130),
        Ok(false) | Err(()) => ExitCode::FAILURE,
    }
}

/// Runs `f` on a thread of rayon's pool rather than this one. The CPU kernels'
/// parallel loops then start from inside the pool, where sharing work with
/// the other threads is a push onto a local queue; from outside, each loop
/// wakes the pool and blocks this thread until it is done, two context
/// switches that cost more than a small kernel saves by going parallel.
fn on_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match rayon::ThreadPoolBuilder::new().build() {
        Ok(pool) => {
            // Each worker's first allocation maps and zeroes a fresh (huge) page
            // for its allocator heap: up to 10 ms on this project's VMs. Paid
            // here, while the script is read and checked, rather than by the
            // first parallel kernel, which would wait for it. n-body of 204
            // bodies, 6 runs each: one step took 1.5 to 12 ms before, 0.9 to
            // 1.3 ms after; ten steps 3.3 ms before, 2.8 ms after (medians).
            pool.spawn_broadcast(|_| {
                std::hint::black_box(vec![1u8; 4096]);
            });
            // Reading the CPU's features executes `cpuid`, which a VM traps: 70 to
            // 80 us on this project's VMs, paid by the first kernel (inside
            // `--time`) until it was done here, on whichever worker is free while
            // the other reads and checks the script.
            pool.spawn(|| {
                arr::backend::cpu::block::has_avx512dq();
            });
            pool.install(f)
        }
        // no threads to be had: the kernels run here, as they would have
        Err(_) => f(),
    }
}

/// A session on the chosen backend, seeded when `--seed` was given. Failures
/// are reported here; `Err(())` only says that they were.
fn start(cli: &Cli, color: bool) -> Result<Session, ()> {
    let mut session = Session::new(cli.backend.into()).map_err(|diag| eprint!("{}", diag.render("", "", color)))?;
    if let Some(seed) = cli.seed {
        session.set_seed(seed);
    }
    Ok(session)
}

fn run(
    cli: &Cli,
    file: &Path,
    profile: bool,
    json: Option<&Path>,
    time: bool,
    runs: u32,
    color: bool,
) -> Result<bool, ()> {
    // Read it first so that a missing file is reported before any backend starts.
    let (name, source) = read_script(file)?;
    let mut session = start(cli, color)?;
    if profile || json.is_some() {
        session.start_tracing();
    }
    arr::interrupt::install_handler();
    let mut ok = true;
    let mut started = std::time::Instant::now();
    // parsed and checked once: the first run's time includes it, later runs only run
    let compiled = session.compile(&name, &source);
    for run in 0..runs {
        if run > 0 {
            started = std::time::Instant::now();
        }
        let start_up_before = session.backend().start_up_time();
        let result = match &compiled {
            Ok(program) => session.run_compiled(program),
            Err(diags) => Err(diags.clone()),
        };
        // Until the last statement returns: a GPU may still be computing values nobody
        // read, so a script timed this way should end by printing its results.
        let start_up = session.backend().start_up_time().saturating_sub(start_up_before);
        let elapsed = started.elapsed().saturating_sub(start_up);
        let failed = result.as_ref().is_err();
        if let Err(diags) = result {
            eprint!("{}", session.render(&diags, color));
        }
        if time {
            eprintln!("time: {:.3} ms", elapsed.as_secs_f64() * 1e3);
        }
        ok &= !failed;
        if failed || arr::interrupt::requested() {
            break;
        }
    }
    if profile {
        eprintln!(
            "\nprofile ({}):\n{}",
            session.backend_name(),
            session.profile_report().trim_end()
        );
    }
    if let Some(path) = json
        && let Err(e) = std::fs::write(path, session.profile_json())
    {
        eprintln!("error: cannot write {}: {e}", path.display());
        return Ok(false);
    }
    Ok(ok)
}

fn check(file: &Path, color: bool) -> Result<bool, ()> {
    let (name, source) = read_script(file)?;
    // Checking runs nothing, so no device is needed whatever --backend says.
    let mut session = Session::cpu();
    let diags = session.check(&name, &source);
    if diags.is_empty() {
        println!("{name}: no errors");
        Ok(true)
    } else {
        eprint!("{}", session.render(&diags, color));
        Ok(false)
    }
}

/// Runs the script on the CPU with `print` and `save` silenced, then prints
/// the kernels of every distinct graph it realized: on the CPU (chosen, or
/// where `auto` finds no GPU) as the fused CPU executor runs them, for CUDA
/// as the GPU's plan. The CUDA plan needs no GPU: without one it is made for
/// the planner's reference device.
fn explain(cli: &Cli, file: &Path, color: bool) -> Result<bool, ()> {
    let (name, source) = read_script(file)?;
    let (target, device) = match cli.backend {
        Backend::Cpu => ("cpu".to_string(), None),
        Backend::Cuda | Backend::Auto => match arr::backend::cuda::CudaBackend::new() {
            Ok(cuda) => ("cuda".to_string(), Some(cuda.device_info().clone())),
            Err(_) if cli.backend == Backend::Cuda => (
                "cuda (no usable GPU here: planned for the reference device)".to_string(),
                Some(DeviceInfo::reference()),
            ),
            // `run` would use the CPU here: show its kernels
            Err(_) => ("cpu (no usable GPU here)".to_string(), None),
        },
    };
    let mut session = Session::cpu();
    if let Some(seed) = cli.seed {
        session.set_seed(seed);
    }
    session.start_explaining(device);
    let result = session.run_source(&name, &source);
    println!("explain {name} for {target}");
    println!("{}", session.explain_report().trim_end());
    match result {
        Ok(()) => Ok(true),
        Err(diags) => {
            eprint!("{}", session.render(&diags, color));
            Ok(false)
        }
    }
}

/// The name diagnostics give a script and its text; `-` is stdin.
fn read_script(file: &Path) -> Result<(String, String), ()> {
    if file.as_os_str() == "-" {
        let mut text = String::new();
        return match std::io::Read::read_to_string(&mut std::io::stdin(), &mut text) {
            Ok(_) => Ok(("<stdin>".to_string(), text)),
            Err(e) => {
                eprintln!("error: cannot read the script from stdin: {e}");
                Err(())
            }
        };
    }
    Ok((file.display().to_string(), read_source(file)?))
}

/// The text of a script, or a reported sentence naming it.
fn read_source(file: &Path) -> Result<String, ()> {
    std::fs::read_to_string(file).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            std::io::ErrorKind::IsADirectory => "it is a directory".to_string(),
            std::io::ErrorKind::InvalidData => "it is not UTF-8 text".to_string(),
            _ => e.to_string(),
        };
        eprintln!("error: cannot read {}: {why}", file.display());
    })
}
