//! Every example and every language case, run on the CUDA backend and on the
//! CPU backend: the numbers they print must agree. Needs an NVIDIA GPU, so
//! every test is ignored on CI; `scripts/gpu-test.sh` runs them on a GPU machine.

mod common;
use common::Captured;

use std::path::{Path, PathBuf};

fn run(path: &Path, choice: arr::BackendChoice) -> Result<String, String> {
    let out = Captured::default();
    {
        let mut session = arr::Session::new(choice).map_err(|d| d.to_string())?;
        session.set_output(Box::new(out.clone()));
        session.run_file(path).map_err(|d| session.render(&d, false))?;
    }
    Ok(out.text())
}

/// The numbers in printed text (labels and brackets dropped).
fn numbers(text: &str) -> Vec<f64> {
    text.split(|c: char| c.is_whitespace() || "[](),:".contains(c))
        .filter_map(|t| match t {
            "true" => Some(1.0),
            "false" => Some(0.0),
            "nan" => Some(f64::NAN),
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            _ => t.parse::<f64>().ok(),
        })
        .collect()
}

fn programs() -> Vec<PathBuf> {
    // On the GPU machine the binary runs in a copy of the repository at another path.
    let root = std::env::current_dir()
        .ok()
        .filter(|d| d.join("examples").is_dir())
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let mut files = Vec::new();
    for dir in ["examples", "tests/cases"] {
        let mut these: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "arr"))
            .collect();
        these.sort();
        files.extend(these);
    }
    files
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn programs_agree_on_cuda_and_cpu() {
    let (mut passed, mut failed) = (0, 0);
    let programs = programs();
    assert!(programs.len() >= 10, "found only {} programs", programs.len());
    for path in programs {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let cpu = run(&path, arr::BackendChoice::Cpu);
        let gpu = run(&path, arr::BackendChoice::Cuda);
        let verdict = match (&cpu, &gpu) {
            (Ok(c), Ok(g)) => {
                let (a, b) = (numbers(c), numbers(g));
                // f32 sums are accumulated in f64 on the CPU and in f32 trees on the GPU.
                let close = |x: f64, y: f64| {
                    (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= 1e-6 + 2e-4 * x.abs().max(y.abs())
                };
                if a.len() != b.len() {
                    Err(format!(
                        "{} numbers on the CPU, {} on the GPU\ncpu:\n{c}\ngpu:\n{g}",
                        a.len(),
                        b.len()
                    ))
                } else if let Some(k) = (0..a.len()).find(|&k| !close(a[k], b[k])) {
                    Err(format!("number {k}: cpu {} gpu {}\ncpu:\n{c}\ngpu:\n{g}", a[k], b[k]))
                } else {
                    Ok(())
                }
            }
            (Err(e), _) => Err(format!("cpu failed: {e}")),
            (_, Err(e)) => Err(format!("gpu failed: {e}")),
        };
        match verdict {
            Ok(()) => {
                passed += 1;
                println!("ok    {name}");
            }
            Err(why) => {
                failed += 1;
                println!("FAIL  {name}: {why}");
            }
        }
    }
    println!("programs on cuda vs cpu: {passed} passed, {failed} failed");
    assert_eq!(failed, 0);
}

/// The `arr` command to run: `ARR_BIN`, else the copy `scripts/gpu-test.sh`
/// puts beside the tests on the GPU machine, else the one cargo built.
fn arr_command() -> PathBuf {
    std::env::var_os("ARR_BIN")
        .map(PathBuf::from)
        .or_else(|| Some(PathBuf::from("target/device/arr")).filter(|p| p.exists()))
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_arr")))
}

/// Runs `script` through the `arr` command with an empty kernel cache; what
/// it printed and the profile's count of modules compiled.
fn run_command(script: &Path, backend: &str, workers: &str) -> (String, u64) {
    let cache = std::env::temp_dir().join(format!("arr-workers-test-{}-{workers}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    let profile = cache.join("profile.json");
    std::fs::create_dir_all(&cache).unwrap();
    let out = std::process::Command::new(arr_command())
        .args(["--backend", backend, "--seed", "7", "run", "--profile-json"])
        .arg(&profile)
        .arg(script)
        .env("ARR_CACHE_DIR", &cache)
        .env("ARR_COMPILE_WORKERS", workers)
        .output()
        .expect("running arr");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let compiles = std::fs::read_to_string(&profile)
        .unwrap_or_default()
        .lines()
        .find(|l| l.contains("\"summary\""))
        .and_then(|l| l.split("\"compiles\":").nth(1))
        .and_then(|r| {
            r.trim_start()
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .map(str::to_string)
        })
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let _ = std::fs::remove_dir_all(&cache);
    (String::from_utf8_lossy(&out.stdout).into_owned(), compiles)
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn the_command_compiles_in_workers_as_in_process() {
    // several distinct kernels in one realize, so that they compile at once
    let script = std::env::temp_dir().join(format!("arr-workers-{}.arr", std::process::id()));
    std::fs::write(
        &script,
        "let a = rand([300, 200])\nlet b = exp(a) * 2.0\nlet c = sum(a * a, axis=1)\n\
         let d = cumsum(a, axis=0)\nlet e = transpose(a) + 1.0\n\
         print(sum(b), sum(c), sum(d), sum(e), max(c))\n",
    )
    .unwrap();
    let (cpu, _) = run_command(&script, "cpu", "0");
    let (in_process, compiled_here) = run_command(&script, "cuda", "0");
    let (workers, compiled_by_workers) = run_command(&script, "cuda", "2");
    let _ = std::fs::remove_file(&script);
    let (c, p, w) = (numbers(&cpu), numbers(&in_process), numbers(&workers));
    assert_eq!(c.len(), 5, "{cpu}");
    for k in 0..5 {
        assert!(
            (c[k] - w[k]).abs() <= 1e-4 * c[k].abs().max(1.0),
            "cpu {cpu} workers {workers}"
        );
    }
    assert_eq!(p, w, "in process {in_process} workers {workers}");
    assert!(compiled_by_workers >= 4, "{compiled_by_workers} modules compiled");
    assert_eq!(compiled_here, compiled_by_workers);
}
