//! Runs the built `arr` binary: argument handling, file errors, and (once the
//! Session works) scripts, checks and piped REPL input.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

mod common;
use common::{output_with_stdin, text};

fn arr(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arr"))
        .args(args)
        .output()
        .expect("start arr")
}

fn arr_with_stdin(args: &[&str], input: &str) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_arr"));
    command.args(args);
    output_with_stdin(command, input)
}

/// A script in the temp dir, removed when dropped.
struct Script(PathBuf);

impl Script {
    fn new(source: &str) -> Script {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("arr-cli-test-{}-{n}.arr", std::process::id()));
        std::fs::write(&path, source).expect("write script");
        Script(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("utf-8 temp path")
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn help_lists_the_commands() {
    let out = arr(&["--help"]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    for word in ["run", "check", "explain", "--backend", "--seed"] {
        assert!(stdout.contains(word), "`{word}` missing from --help:\n{stdout}");
    }
}

#[test]
fn check_of_a_missing_file_names_it() {
    let out = arr(&["check", "no/such/dir/missing_script.arr"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("no/such/dir/missing_script.arr"), "{stderr}");
    assert!(stderr.contains("no such file"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn run_of_a_missing_file_names_it() {
    let out = arr(&["run", "missing_script_2.arr", "--backend", "cpu"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("missing_script_2.arr") && !stderr.contains("panicked"),
        "{stderr}"
    );
}

#[test]
fn bad_arguments_exit_1() {
    let out = arr(&["--backend", "tpu"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("tpu"));
    let out = arr(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn piped_input_is_evaluated_without_prompts() {
    let out = arr_with_stdin(&["--backend", "cpu"], "print(1+1)\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "2\n");
}

#[test]
fn piped_bare_expressions_echo_and_multi_line_input_joins() {
    let out = arr_with_stdin(&["--backend", "cpu"], "let x = [1,\n 2,\n 3]\nx * 2\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "[2, 4, 6]\ni64[3]\n");
}

#[test]
fn piped_errors_are_reported_and_evaluation_goes_on() {
    let out = arr_with_stdin(&["--backend", "cpu"], "print(undefined_name)\nprint(3)\n");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "3\n");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("undefined_name") && !stderr.contains('\u{1b}'),
        "{stderr}"
    );
}

#[test]
fn piped_commands() {
    let out = arr_with_stdin(&["--backend", "cpu"], ":type zeros([2, 3])\n:quit\nprint(1)\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "f32[2, 3]\n");
}

#[test]
fn check_of_a_good_file() {
    let script = Script::new("let x = zeros([2, 2])\nprint(x + 1)\n");
    let out = arr(&["check", script.path()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{}: no errors\n", script.path()));
}

#[test]
fn check_of_a_bad_file_prints_diagnostics_and_exits_1() {
    let script = Script::new("let x = zeros([2, 2])\nprint(x + zeros([3]))\nprint(nope)\n");
    let out = arr(&["check", script.path()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("nope"), "{stderr}");
    assert!(stderr.contains("E0200") && stderr.contains("E0100"), "{stderr}");
    assert!(text(&out.stdout).is_empty());
}

#[test]
fn run_prints_and_seed_makes_rand_reproducible() {
    let script = Script::new("print(sum(ones([3])))\nprint(rand([2]))\n");
    let a = arr(&["run", script.path(), "--backend", "cpu", "--seed", "7"]);
    let b = arr(&["--seed", "7", "--backend", "cpu", "run", script.path()]);
    assert!(a.status.success(), "{}", text(&a.stderr));
    assert_eq!(text(&a.stdout), text(&b.stdout));
    assert!(text(&a.stdout).starts_with("3.0\n"), "{}", text(&a.stdout));
}

#[test]
fn profile_json_writes_one_object_per_realized_graph_and_a_summary() {
    // two inputs realized once, then one graph run 4 times by the loop
    let script =
        Script::new("let a = realize(rand([64, 64]))\nlet b = realize(rand([64]))\nfor i in 0..4 { let c = a + b }\n");
    let json = std::env::temp_dir().join(format!("arr-cli-test-{}-profile.json", std::process::id()));
    let json_path = json.to_str().expect("utf-8 temp path");
    let out = arr(&["--backend", "cpu", "run", script.path(), "--profile-json", json_path]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(&json).expect("the JSON file");
    let _ = std::fs::remove_file(&json);
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines.len(), 4, "{written}");
    assert!(lines[0].contains(r#""kind": "realize", "index": 1"#), "{written}");
    assert!(lines[0].contains(r#""runs": 1,"#), "{written}");
    // the CPU names its kernels: a fused map of one add
    assert!(lines[2].contains("map [add]"), "{written}");
    assert!(lines[2].contains(r#""runs": 4,"#), "{written}");
    assert!(
        lines[3].starts_with(r#"{"kind": "summary", "backend": "cpu"#),
        "{written}"
    );
    assert!(lines[3].contains(r#""graphs": 3,"#), "{written}");
}

#[test]
fn profile_json_under_auto_names_the_kernels_of_the_backend_that_ran() {
    // no --backend: CUDA where usable, else the CPU; the plan recorded per
    // realize is that backend's, never a reference GPU's plan
    let script = Script::new("let a = realize(rand([64, 64]))\nfor i in 0..2 { let c = exp(a) + 1.0 }\n");
    let json = std::env::temp_dir().join(format!("arr-cli-test-{}-auto-profile.json", std::process::id()));
    let json_path = json.to_str().expect("utf-8 temp path");
    let out = arr(&["run", script.path(), "--profile-json", json_path]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(&json).expect("the JSON file");
    let _ = std::fs::remove_file(&json);
    assert!(!written.contains("H100-like"), "{written}");
    let summary = written.lines().last().unwrap_or("");
    if summary.contains(r#""backend": "cpu"#) {
        let realizes: Vec<&str> = written.lines().filter(|l| l.contains(r#""kind": "realize""#)).collect();
        assert!(!realizes.is_empty(), "{written}");
        for line in realizes {
            assert!(line.contains("on cpu ("), "{written}");
        }
        assert!(written.contains("map [exp, add]"), "{written}");
    }
}

#[test]
fn profile_on_the_cpu_prints_a_median_per_kernel() {
    let script = Script::new("let a = realize(rand([8]))\nfor i in 0..3 { let c = a * 2.0 }\n");
    let out = arr(&["--backend", "cpu", "run", "--profile", script.path()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("median ms"), "{err}");
    assert!(err.contains("% copy"), "{err}");
    // rand once, then the loop's map three times
    assert!(err.contains("in 4 kernel runs"), "{err}");
    assert!(err.contains("copy ceiling: "), "{err}");
}

#[test]
fn time_prints_the_scripts_wall_time() {
    let script = Script::new("print(sum(ones([4])))\n");
    let out = arr(&["--backend", "cpu", "run", "--time", script.path()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let ms: f64 = err
        .trim()
        .strip_prefix("time: ")
        .and_then(|t| t.strip_suffix(" ms"))
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no time line in {err:?}"));
    assert!((0.0..10_000.0).contains(&ms), "{ms}");
    assert_eq!(text(&out.stdout), "4.0\n");
}

#[test]
fn runs_repeats_the_script_in_one_session_and_times_each_run() {
    // a function, a variable reassigned in a loop and a fresh `let` each run:
    // the second and third runs see the first's definitions and must not trip on them
    let script =
        Script::new("fn sq(x) { x * x }\nlet a = arange(4.0)\nfor i in 0..3 {\n    a = a + sq(a)\n}\nprint(sum(a))\n");
    let out = arr(&["--backend", "cpu", "run", "--time", "--runs", "3", script.path()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // each element of 0..4 goes through x + x^2 three times
    let step = |x: f64| x + x * x;
    let expected: f64 = (0..4).map(|i| step(step(step(i as f64)))).sum();
    assert_eq!(text(&out.stdout), format!("{expected:?}\n").repeat(3));
    let err = text(&out.stderr);
    assert_eq!(
        err.lines()
            .filter(|l| l.starts_with("time: ") && l.ends_with(" ms"))
            .count(),
        3,
        "{err}"
    );

    // a run that fails is reported once, and the later runs do not start
    let failing = Script::new("print(1)\nlet b = 7 // arange(3)\nprint(b)\n");
    let out = arr(&["--backend", "cpu", "run", "--runs", "3", failing.path()]);
    assert!(!out.status.success());
    assert_eq!(text(&out.stdout), "1\n");
    assert_eq!(text(&out.stderr).matches("E0400").count(), 1, "{}", text(&out.stderr));

    // a static error is found once, before anything runs
    let wrong = Script::new("print(1)\nprint(zeros([2]) + zeros([3]))\n");
    let out = arr(&["--backend", "cpu", "run", "--time", "--runs", "3", wrong.path()]);
    assert!(!out.status.success());
    assert_eq!(text(&out.stdout), "");
    let err = text(&out.stderr);
    assert_eq!(err.matches("E0200").count(), 1, "{err}");
    assert_eq!(err.matches("time: ").count(), 1, "{err}");
}

#[test]
fn explain_for_a_gpu_writes_each_modules_source_under_arr_dump_dir() {
    // no GPU needed: the sources a run would compile, for an offline NVRTC timing
    let script = Script::new("let x = rand([1000])\nprint(sum(exp(x) * 2.0))\nprint((x + 1.0)[0])\n");
    let dir = std::env::temp_dir().join(format!("arr-cli-dump-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_arr"))
        .args(["--backend", "cuda", "explain", script.path()])
        .env("ARR_DUMP_DIR", &dir)
        .output()
        .expect("start arr");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut sources: Vec<String> = std::fs::read_dir(&dir)
        .expect("the dump dir was made")
        .map(|e| std::fs::read_to_string(e.expect("entry").path()).expect("read"))
        .collect();
    sources.sort();
    let _ = std::fs::remove_dir_all(&dir);
    // two realizes, two kernels: the sum's reduction and the map
    assert_eq!(sources.len(), 2, "{sources:?}");
    for s in &sources {
        assert!(s.starts_with("// ") && s.contains("\n// module: specialised\n"), "{s}");
        assert!(s.contains("extern \"C\" __global__"), "{s}");
    }
    assert!(
        sources.iter().any(|s| s.contains("exp")),
        "the reduction's body is in its source"
    );
}
