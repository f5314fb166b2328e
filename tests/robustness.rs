//! Issue 10, "nothing a user types loses their work": items 1 (Ctrl-C), 8
//! (`arr explain` has no side effects and plans for CUDA without a GPU) and 11
//! (what a newcomer meets first). Each test runs the built `arr` binary as a
//! user would and asserts the diagnostic or value it expects; the values are
//! worked out by hand in the comments. The interactive case drives the REPL on
//! a pseudo-terminal with `tests/robustness/repl_sigint.py`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

mod common;
use common::{output_with_stdin, text};

fn arr() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arr"));
    command.arg("--backend").arg("cpu");
    command
}

fn with_stdin(command: Command, input: &str) -> Output {
    output_with_stdin(command, input)
}

/// A fresh directory under the system's temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("arr-robustness-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    fn file(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, contents).expect("write file");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

// ---- item 1: Ctrl-C ------------------------------------------------------------

/// The REPL on a pseudo-terminal: Ctrl-C during a long loop and during a long
/// computation prints `interrupted`, gives the prompt back and keeps the
/// variables (and after a loop, `acc == i`: the iterations 0..i-1 finished);
/// multi-line input, Tab listing, and leaving by Ctrl-C twice with the history
/// written are checked on the same terminal. The script says what failed.
#[test]
fn ctrl_c_in_the_repl_stops_the_statement_and_keeps_the_variables() {
    let home = TempDir::new("home");
    let out = Command::new("python3")
        .arg(repo("tests/robustness/repl_sigint.py"))
        .arg(env!("CARGO_BIN_EXE_arr"))
        .arg(&home.0)
        .output()
        .expect("python3 runs the pty driver");
    assert!(
        out.status.success() && text(&out.stdout).trim() == "ok",
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// `arr run` and piped input stopped by SIGINT: `interrupted` (E0407), status
/// 130, and the statement after the loop never runs.
#[test]
fn ctrl_c_stops_a_script_with_status_130() {
    let dir = TempDir::new("script");
    let source = "print(\"started\")\nlet acc = 0\nfor i in 0..1000000000 { acc += 1 }\nprint(\"finished\")\n";
    let script = dir.file("loop.arr", source);
    for piped in [false, true] {
        let mut command = arr();
        if piped {
            command.stdin(std::fs::File::open(&script).expect("open script"));
        } else {
            command.arg("run").arg(&script).stdin(Stdio::null());
        }
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start arr");
        // `started` is printed once the script runs, after the handler is in place.
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut first = String::new();
        stdout.read_line(&mut first).expect("read stdout");
        assert_eq!(first.trim(), "started");
        std::thread::sleep(Duration::from_millis(300));
        // SAFETY: `kill` only sends a signal to the child this test started.
        let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
        assert_eq!(sent, 0, "kill failed");
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "arr did not stop within 60 s"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut rest).expect("read stdout");
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().expect("stderr"), &mut stderr).expect("read stderr");
        assert_eq!(status.code(), Some(130), "piped: {piped}; stderr:\n{stderr}");
        assert!(stderr.contains("E0407") && stderr.contains("interrupted"), "{stderr}");
        assert!(!rest.contains("finished"), "the script went on after Ctrl-C: {rest}");
    }
}

// ---- item 8: explain -------------------------------------------------------------

const EXPLAINED: &str = "let a = rand([1000])
let total = sum(a * 2.0)
print(\"program output\")
save(\"OUT\", a + 1.0)
if total > 0.0 {
    print(mean(a))
}
";

/// `arr explain` prints plans but runs no side effect: no file from `save`, no
/// program output; the control flow is followed (the `if` body's `mean` is
/// planned: `total` is a sum of positive numbers).
#[test]
fn explain_has_no_side_effects() {
    let dir = TempDir::new("explain");
    let target = dir.0.join("out.npy");
    let script = dir.file("prog.arr", &EXPLAINED.replace("OUT", &target.display().to_string()));
    let out = arr().arg("explain").arg(&script).output().expect("run arr");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!target.exists(), "explain ran `save`");
    assert!(
        !stdout.contains("program output"),
        "explain printed the program's output:\n{stdout}"
    );
    // Three realizes: the saved `a + 1.0`, the condition `sum(a * 2.0) > 0.0` (one fused
    // reduction), and the `mean` inside the `if`, which only a run that follows the control
    // flow reaches (a mean: a sum with a division epilogue), each as the CPU runs it (a
    // whole-array sum is one long row), never the GPU's launch shape.
    assert!(
        stdout.contains("realize 3:") && !stdout.contains("realize 4:"),
        "{stdout}"
    );
    let last = &stdout[stdout.find("realize 3:").expect("a third realize")..];
    assert!(
        last.contains("reduce-rows") && last.contains("fused ops: sum, div"),
        "{stdout}"
    );
    assert!(stdout.lines().next().is_some_and(|l| l.contains("for cpu")), "{stdout}");
    assert!(!stdout.contains("H100") && !stdout.contains("grid "), "{stdout}");
    // Kernels, not the Debug text of graph nodes.
    assert!(!stdout.contains("key:") && !stdout.contains("random {"), "{stdout}");
}

/// `arr --backend cuda explain` shows the CUDA kernel plan on any machine:
/// with no GPU, planned for the reference device instead of failing with E0404.
#[test]
fn explain_for_cuda_needs_no_gpu() {
    let dir = TempDir::new("explain-cuda");
    let target = dir.0.join("out.npy");
    let script = dir.file("prog.arr", &EXPLAINED.replace("OUT", &target.display().to_string()));
    let out = Command::new(env!("CARGO_BIN_EXE_arr"))
        .args(["--backend", "cuda", "explain"])
        .arg(&script)
        .output()
        .expect("run arr");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("E0404"), "{}", text(&out.stderr));
    assert!(
        stdout.lines().next().is_some_and(|l| l.contains("for cuda")),
        "{stdout}"
    );
    // `sum(a * 2.0)` fuses the random generator, the cast and the product into one reduction.
    assert!(
        stdout.contains("1 kernel on") && stdout.contains("reduce-all"),
        "{stdout}"
    );
    assert!(!target.exists(), "explain ran `save`");
}

// ---- item 11: first contact -------------------------------------------------------

/// `arr run -` reads the script from stdin: 2 + 3 * 4 = 14.
#[test]
fn run_reads_a_script_from_stdin() {
    let mut command = arr();
    command.args(["run", "-"]);
    let out = with_stdin(command, "let x = 2 + 3 * 4\nprint(x)\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "14");
    // An error names the script `<stdin>`.
    let mut command = arr();
    command.args(["run", "-"]);
    let out = with_stdin(command, "print(nope)\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("<stdin>"), "{}", text(&out.stderr));
}

/// Every `arr ...` command that examples/README.md and README.md show for an
/// example works as written (from the repository root).
#[test]
fn the_documented_example_commands_work() {
    for doc in ["examples/README.md", "README.md"] {
        let content = std::fs::read_to_string(repo(doc)).expect("read doc");
        // In code blocks and inline code alike: from the command to a closing backtick or a comment.
        let commands: Vec<&str> = content
            .match_indices("target/release/arr run examples/")
            .map(|(at, _)| content[at..].split(['`', '#', '\n']).next().unwrap_or("").trim())
            .collect();
        assert!(
            !commands.is_empty(),
            "{doc} shows no `target/release/arr run examples/...` command"
        );
        for c in commands {
            let mut words = c.split_whitespace().skip(1);
            let out = arr()
                .current_dir(repo(""))
                .args(words.by_ref())
                .output()
                .expect("run arr");
            assert!(out.status.success(), "{doc}: `{c}` failed:\n{}", text(&out.stderr));
        }
    }
    // README.md states what a newcomer needs: the Rust version Cargo.toml asks for, that a GPU
    // is optional, where the binary lands, and that the first build takes minutes.
    let readme = std::fs::read_to_string(repo("README.md")).expect("README");
    let cargo = std::fs::read_to_string(repo("Cargo.toml")).expect("Cargo.toml");
    let version = cargo
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .expect("Cargo.toml sets rust-version")
        .trim_matches('"');
    assert!(
        readme.contains(&format!("Rust {version}")),
        "README lacks `Rust {version}`"
    );
    for needed in ["GPU is optional", "target/release/arr", "few minutes"] {
        assert!(readme.contains(needed), "README lacks `{needed}`");
    }
    // BENCHMARKS.md points at nothing outside the repository.
    let benchmarks = std::fs::read_to_string(repo("BENCHMARKS.md")).expect("BENCHMARKS.md");
    assert!(
        !benchmarks.contains("/work/"),
        "BENCHMARKS.md names a path outside the repository"
    );
}

/// `:help` finds a stdlib function, an error code and a keyword, not only builtins.
#[test]
fn help_finds_stdlib_functions_error_codes_and_keywords() {
    let out = with_stdin(arr(), ":help var\n:help E0200\n:help newaxis\n:help for\n:help e0406\n");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The signature from stdlib/core.arr and its comment.
    assert!(
        stdout.contains("var(x, axis = none, keepdims = false, ddof = 0) (standard library)"),
        "{stdout}"
    );
    assert!(stdout.contains("Variance over the given axes"), "{stdout}");
    // The docs/errors.md entry, heading and text.
    assert!(stdout.contains("E0200: shapes do not broadcast"), "{stdout}");
    assert!(stdout.contains("E0406: break/continue outside a loop"), "{stdout}");
    assert!(stdout.contains("insert an axis of length 1"), "{stdout}");
    assert!(stdout.contains("for i in A..B"), "{stdout}");
    // Something that is none of them is an error with a suggestion of any kind.
    let out = with_stdin(arr(), ":help newaxes\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("did you mean `newaxis`?"),
        "{}",
        text(&out.stderr)
    );
}

/// Did-you-mean offers a name of the right kind: the variable `x` (one edit)
/// for `xx`, never the function `exp`; for a call of `length` (MATLAB's),
/// Arr's `size` and `shape`, never the constant `nan`.
#[test]
fn did_you_mean_suggests_the_right_kind_of_name() {
    let out = with_stdin(arr(), "let x = 1\nprint(xx)\n");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("E0100") && stderr.contains("did you mean `x`?"),
        "{stderr}"
    );
    assert!(!stderr.contains("exp"), "{stderr}");

    let out = with_stdin(arr(), "let x = [1, 2, 3]\nprint(length(x))\n");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("E0101") && stderr.contains("`size(x)`") && stderr.contains("`shape(x)`"),
        "{stderr}"
    );
    assert!(!stderr.contains("`nan`"), "{stderr}");

    // A misspelt user function is suggested for a call, a variable is not.
    let out = with_stdin(arr(), "fn square(v) = v * v\nlet squares = 1\nprint(sqare(2))\n");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("did you mean `square`?"), "{stderr}");
}

/// `1 < x < 3` is a syntax error whose hint spells out the `and` form.
#[test]
fn a_chained_comparison_gets_a_hint_to_write_and() {
    let out = with_stdin(arr(), "let x = 2\nprint(1 < x < 3)\nif 0 <= x <= 5 { print(x) }\n");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("comparisons cannot be chained"), "{stderr}");
    assert!(stderr.contains("write `1 < x and x < 3`"), "{stderr}");
    assert!(stderr.contains("write `0 <= x and x <= 5`"), "{stderr}");
    assert!(!stderr.contains("expected `-`"), "{stderr}");
    // The suggested form is valid and means the same: 1 < 2 and 2 < 3 is true.
    let out = with_stdin(arr(), "let x = 2\nprint(1 < x and x < 3)\n");
    assert_eq!(text(&out.stdout).trim(), "true", "{}", text(&out.stderr));
}
