//! Every example and every language case, run on the CUDA backend and on the
//! CPU backend: the numbers they print must agree. Needs an NVIDIA GPU, so
//! every test is ignored on CI; `scripts/gpu-test.sh` runs them on a GPU machine.

use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;

#[derive(Clone, Default)]
struct SharedBuf(Rc<RefCell<Vec<u8>>>);

impl Write for SharedBuf {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn run(path: &Path, choice: arr::BackendChoice) -> Result<String, String> {
    let out = SharedBuf::default();
    {
        let mut session = arr::Session::new(choice).map_err(|d| d.to_string())?;
        session.set_output(Box::new(out.clone()));
        session.run_file(path).map_err(|d| session.render(&d, false))?;
    }
    let bytes = out.0.borrow().clone();
    Ok(String::from_utf8_lossy(&bytes).into_owned())
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
