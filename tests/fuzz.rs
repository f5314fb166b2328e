//! Deterministic no-panic fuzzing of the front end: random token soup and
//! mutations of the example and error-corpus programs go through the parser,
//! `is_incomplete` and the static checker. Any panic fails the test; the
//! inputs that panicked are written to `target/fuzz-failures/` to replay.
//! Programs are never run (a mutated program may loop forever).

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// Mutants made from each seed program.
const MUTANTS_PER_SEED: usize = 30;
/// Token-soup inputs.
const SOUP_INPUTS: usize = 1500;
/// Failures kept in full (message and file), one per distinct panic message
/// and place so that one bug does not hide another; the rest are only counted.
const KEEP_FAILURES: usize = 20;

/// xorshift64*: small, seedable, the same on every platform.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        // A zero state would stay zero forever.
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`); the modulo bias is irrelevant here.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

const KEYWORDS: &[&str] = &[
    "let", "fn", "for", "in", "while", "if", "else", "true", "false", "and", "or", "not", "as", "newaxis", "break",
    "continue",
];

const PUNCTUATION: &[&str] = &[
    "+", "-", "*", "/", "%", "**", "@", "==", "!=", "<", "<=", ">", ">=", "=", "+=", "-=", "*=", "/=", "(", ")", "[",
    "]", "{", "}", ",", ":", ";", "..", "...", "->",
];

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "-1",
    "123",
    "1_000",
    "1__0",
    "1_",
    "0.0",
    "1.5",
    "2.",
    "1e6",
    "1.5e-3",
    "1e",
    "1e+",
    "1e999",
    "1e-999",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551616",
    "99999999999999999999999999999999999999",
    "0.000000000000000000000000000000000000000000001",
    "0x10",
    "007",
];

const NAMES: &[&str] = &[
    "x",
    "y",
    "a",
    "b",
    "n",
    "m",
    "f",
    "g",
    "i",
    "_",
    "x1",
    "axis",
    "keepdims",
    "dtype",
    "f32",
    "f64",
    "i32",
    "i64",
    "bool",
    "f16",
    "zeros",
    "ones",
    "full",
    "arange",
    "linspace",
    "eye",
    "rand",
    "randn",
    "seed",
    "reshape",
    "transpose",
    "concat",
    "stack",
    "sum",
    "mean",
    "max",
    "argmax",
    "cumsum",
    "where",
    "clip",
    "exp",
    "sqrt",
    "shape",
    "size",
    "ndim",
    "print",
    "load",
    "save",
    "matmul",
    "softmax",
    "var",
    "norm",
    "meshgrid",
];

const STRINGS: &[&str] = &[
    "\"x.npy\"",
    "\"\"",
    "\"\\\"\"",
    "\"\\n\\t\\\\\"",
    "\"\\q\"",
    "\"unterminated",
    "\"Cargo.toml\"",
    "\"tests/errors\"",
    "\"é\"",
];

const LAYOUT: &[&str] = &["\n", "\n\n", " ", "\t", "# comment\n", ";", "\r\n"];

/// Odd text to splice in: non-ASCII letters and spaces, control characters,
/// a byte-order mark, bidi overrides, an emoji, NUL.
const STRANGE: &[&str] = &[
    "\0",
    "é",
    "λ",
    "ß",
    "\u{a0}",
    "\u{feff}",
    "\u{202e}",
    "\u{200b}",
    "😀",
    "日本",
    "\u{7f}",
    "\u{1b}[31m",
    "\r",
    "\\",
    "$",
    "^",
    "&",
    "|",
    "!",
    "?",
    "'",
    "`",
    "~",
];

/// Valid programs, so the mutations have something grammatical to break even
/// where `examples/` is empty.
const BUILTIN_SEEDS: &[&str] = &[
    "let x = zeros([2, 3])\nlet y = sum(x * 2, axis=1, keepdims=true)\nprint(y)\n",
    "fn f(a: f32[n, m], b: f32[m]) -> f32[n] {\n    let c = a * b\n    sum(c, axis=-1)\n}\nprint(f(ones([2, 3]), ones([3])))\n",
    "let a = arange(10)\na[1:-1] = a[::-1][1:-1] * 2\nlet b = a[newaxis, ..., 0:3]\nprint(b)\n",
    "let (p, (q, r)) = (1, (2.5, true))\nlet s = if q > 1.0 { p } else if r { 2 } else { 3 }\n",
    "for i in 0..5 {\n    if i % 2 == 0 { continue }\n    while false { break }\n    print(i)\n}\n",
    "let m = eye(3) @ rand([3, 4]) ** 2\nlet t = transpose(m, axes=(1, 0)) as f64\nsave(\"out.npy\", t)\n",
    "let x = -2 ** 2 + 2 ** -1\nlet y = not (x < 0 and x > -10 or true)\nx += 1; x -= 2; x *= 3; x /= 4\n",
    "fn scale(v, factor = 2.0) = v * factor\nlet w = { let z = scale(ones([4]), factor=0.5); z[0] }\n",
    "let c = concat((ones([2, 2]), zeros([1, 2])), axis=0)\nlet d = stack([c, c])\nprint(shape(d), dtype(d))\n",
    "let e = linspace(0.0, 1.0, num=5, dtype=f64)\nlet k = cumsum(e)\nprint(argmax(k), mean(k), any(k > 0.5))\n",
];

fn soup(rng: &mut Rng) -> String {
    let len = 1 + rng.below(60);
    let mut out = String::new();
    for _ in 0..len {
        let token = match rng.below(20) {
            0..=3 => *rng.pick(KEYWORDS),
            4..=9 => *rng.pick(PUNCTUATION),
            10..=11 => *rng.pick(NUMBERS),
            12..=15 => *rng.pick(NAMES),
            16 => *rng.pick(STRINGS),
            17..=18 => *rng.pick(LAYOUT),
            _ => *rng.pick(STRANGE),
        };
        out.push_str(token);
        // Mostly separated, sometimes glued (`1..2`, `a[:`, `x**-`).
        if !rng.one_in(4) {
            out.push(' ');
        }
    }
    out
}

/// Splits into rough tokens (runs of word characters, runs of punctuation,
/// single whitespace characters) for token-level mutations; any split is fine
/// as long as joining the pieces gives the text back.
fn rough_tokens(text: &str) -> Vec<String> {
    fn class(c: char) -> u8 {
        if c.is_alphanumeric() || c == '_' || c == '.' {
            0
        } else if c.is_whitespace() {
            1
        } else {
            2
        }
    }
    let mut tokens: Vec<String> = Vec::new();
    let mut last = None;
    for c in text.chars() {
        let k = class(c);
        match tokens.last_mut() {
            Some(tok) if last == Some(k) && k != 1 => tok.push(c),
            _ => tokens.push(c.to_string()),
        }
        last = Some(k);
    }
    tokens
}

/// A random byte range of `bytes` (possibly empty).
fn range(rng: &mut Rng, len: usize) -> std::ops::Range<usize> {
    let start = rng.below(len + 1);
    let max = (len - start).min(1 + rng.below(24));
    start..start + rng.below(max + 1)
}

/// One random edit. Byte-level edits may cut a character in half; the caller
/// repairs that with a lossy conversion so the input stays valid UTF-8.
fn mutate_once(rng: &mut Rng, text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let len = bytes.len();
    match rng.below(10) {
        0 => {
            bytes.drain(range(rng, len));
        }
        1 => {
            let r = range(rng, len);
            let copy = bytes[r.clone()].to_vec();
            let at = rng.below(len + 1);
            bytes.splice(at..at, copy);
        }
        2 => {
            // Swap two non-overlapping ranges.
            let a = range(rng, len);
            let b = range(rng, len);
            let (first, second) = if a.start <= b.start { (a, b) } else { (b, a) };
            if first.end <= second.start {
                let mut out = bytes[..first.start].to_vec();
                out.extend_from_slice(&bytes[second.clone()]);
                out.extend_from_slice(&bytes[first.end..second.start]);
                out.extend_from_slice(&bytes[first.clone()]);
                out.extend_from_slice(&bytes[second.end..]);
                bytes = out;
            }
        }
        3 => {
            let at = rng.below(len + 1);
            let what = if rng.one_in(2) {
                *rng.pick(PUNCTUATION)
            } else {
                *rng.pick(KEYWORDS)
            };
            bytes.splice(at..at, what.bytes());
        }
        4 => {
            let at = rng.below(len + 1);
            bytes.splice(at..at, rng.pick(STRANGE).bytes());
        }
        5 => {
            bytes.truncate(rng.below(len + 1));
        }
        6 => {
            let at = rng.below(len + 1);
            let what = if rng.one_in(2) {
                *rng.pick(NUMBERS)
            } else {
                *rng.pick(NAMES)
            };
            bytes.splice(at..at, what.bytes());
        }
        _ => {
            let mut tokens = rough_tokens(text);
            if tokens.is_empty() {
                return soup(rng);
            }
            let n = tokens.len();
            let i = rng.below(n);
            let j = rng.below(n);
            match rng.below(4) {
                0 => {
                    tokens.remove(i);
                }
                1 => {
                    let t = tokens[i].clone();
                    tokens.insert(j, t);
                }
                2 => tokens.swap(i, j),
                _ => tokens[i] = rng.pick(PUNCTUATION).to_string(),
            }
            return tokens.concat();
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn mutate(rng: &mut Rng, seed: &str) -> String {
    let mut text = seed.to_string();
    for _ in 0..1 + rng.below(4) {
        text = mutate_once(rng, &text);
    }
    text
}

/// Inputs at the edges: empty, blank, deep nesting, long chains, lone openers.
fn edge_cases() -> Vec<String> {
    let mut cases: Vec<String> = [
        "",
        "\n",
        ";;;",
        "#",
        "# only a comment",
        "\"",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "\0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    cases.push(format!("let x = {}1{}", "(".repeat(100), ")".repeat(100)));
    cases.push(format!("let x = {}1{}", "[".repeat(100), "]".repeat(100)));
    cases.push(format!("let x = {}", "(".repeat(100)));
    cases.push(format!("let x = {}1", "-".repeat(100)));
    cases.push(format!("let x = {}true", "not ".repeat(100)));
    cases.push(format!("let x = 1{}", " + 1".repeat(500)));
    cases.push(format!("let x = 2{}", " ** 2".repeat(100)));
    cases.push(format!("let x = {}1{}", "{ ".repeat(50), " }".repeat(50)));
    cases.push(format!("let x = {}1{}", "if true { ".repeat(50), " }".repeat(50)));
    cases.push("let x = ones([2])\nx = x".to_string() + &"[0]".repeat(50));
    cases.push("x".repeat(10_000));
    cases.push("9".repeat(5_000));
    cases.push(format!("\"{}\"", "a".repeat(10_000)));
    cases
}

/// Seed programs: every `examples/*.arr` and `tests/errors/*.arr`, sorted.
fn seed_files() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [root.join("examples"), root.join("tests").join("errors")] {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|ext| ext == "arr"))
            .collect();
        paths.sort();
        for path in paths {
            if let Ok(text) = std::fs::read_to_string(&path) {
                out.push((path, text));
            }
        }
    }
    out
}

thread_local! {
    /// The message and place of the last panic on this thread, recorded by
    /// the quiet panic hook so thousands of expected-looking panics do not
    /// flood the output.
    static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

struct Failure {
    origin: String,
    stage: &'static str,
    message: String,
    input: String,
}

/// Runs the three front-end entry points on `src`; `Err` names the stage
/// that panicked and the panic.
fn exercise(src: &str) -> Result<(), (&'static str, String)> {
    let stages: [(&'static str, &dyn Fn()); 3] = [
        ("parse_program", &|| {
            let _ = arr::syntax::parse_program(src, 0);
        }),
        ("is_incomplete", &|| {
            let _ = arr::syntax::is_incomplete(src);
        }),
        ("Session::check", &|| {
            let _ = arr::Session::cpu().check("fuzz.arr", src);
        }),
    ];
    for (stage, f) in stages {
        if catch_unwind(AssertUnwindSafe(f)).is_err() {
            let message = LAST_PANIC.with(|p| p.borrow().clone());
            return Err((stage, message));
        }
    }
    Ok(())
}

fn all_inputs() -> Vec<(String, String)> {
    let mut inputs = Vec::new();
    for (i, case) in edge_cases().into_iter().enumerate() {
        inputs.push((format!("edge case {i}"), case));
    }
    let mut rng = Rng::new(0xA77A_5EED);
    for i in 0..SOUP_INPUTS {
        inputs.push((format!("soup {i}"), soup(&mut rng)));
    }
    let mut seeds: Vec<(String, String)> = BUILTIN_SEEDS
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("built-in seed {i}"), s.to_string()))
        .collect();
    for (path, text) in seed_files() {
        let name = path
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap_or(&path)
            .display()
            .to_string();
        seeds.push((name, text));
    }
    for (k, (name, text)) in seeds.iter().enumerate() {
        // A seed of its own per program, so adding a file does not change the others' mutants.
        let mut rng = Rng::new(0x5EED_0000 + k as u64 + fnv(name));
        inputs.push((format!("{name} (unmutated)"), text.clone()));
        // Comment lines are a large part of the corpus files; half the mutants
        // start without them so the edits land in code.
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect();
        for i in 0..MUTANTS_PER_SEED {
            let base = if i % 2 == 0 { text } else { &code };
            inputs.push((format!("{name} mutant {i}"), mutate(&mut rng, base)));
        }
    }
    inputs
}

fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

fn failures_dir() -> PathBuf {
    // CARGO_TARGET_TMPDIR is <target>/tmp; the failures go next to it.
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).join("fuzz-failures")
}

fn run_fuzz() -> Result<usize, String> {
    let inputs = all_inputs();
    let count = inputs.len();
    let mut failures: Vec<Failure> = Vec::new();
    let mut failed = 0usize;
    let mut distinct = std::collections::HashSet::new();

    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let payload = info.payload();
        let text = if let Some(s) = payload.downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "non-string panic payload".to_string()
        };
        LAST_PANIC.with(|p| *p.borrow_mut() = format!("{text}{place}"));
    }));
    for (origin, input) in inputs {
        if let Err((stage, message)) = exercise(&input) {
            failed += 1;
            if failures.len() < KEEP_FAILURES && distinct.insert(message.clone()) {
                failures.push(Failure {
                    origin,
                    stage,
                    message,
                    input,
                });
            }
        }
    }
    std::panic::set_hook(previous_hook);

    if failed == 0 {
        return Ok(count);
    }
    let dir = failures_dir();
    let _ = std::fs::remove_dir_all(&dir);
    let wrote = std::fs::create_dir_all(&dir).is_ok();
    let mut report = format!(
        "{failed} of {count} fuzz inputs panicked ({} distinct panics shown, first input of each):\n",
        failures.len()
    );
    for (i, f) in failures.iter().enumerate() {
        let file = dir.join(format!("{i:02}.arr"));
        let saved = wrote && std::fs::write(&file, &f.input).is_ok();
        let shown: String = f.input.chars().take(160).collect();
        report.push_str(&format!(
            "\n[{i}] {} panicked in {}: {}\n    input ({} bytes{}): {:?}{}\n",
            f.origin,
            f.stage,
            f.message,
            f.input.len(),
            if saved {
                format!(", saved as {}", file.display())
            } else {
                String::new()
            },
            shown,
            if shown.len() < f.input.len() { " ..." } else { "" },
        ));
    }
    Err(report)
}

#[test]
fn front_end_never_panics() {
    // The checker may recurse on nesting; give it the stack a main thread has.
    let worker = std::thread::Builder::new()
        .name("fuzz".into())
        .stack_size(8 << 20)
        .spawn(run_fuzz)
        .expect("spawn the fuzz thread");
    let start = std::time::Instant::now();
    match worker.join() {
        Ok(Ok(count)) => eprintln!("fuzz: {count} inputs, no panic, {:.1?}", start.elapsed()),
        Ok(Err(report)) => panic!("{report}"),
        Err(_) => panic!("the fuzz driver itself panicked"),
    }
}

#[test]
fn mutations_stay_deterministic_and_utf8() {
    // The same seeds must give the same inputs on every run (so a failure
    // can be reproduced), and byte-level edits must be repaired to UTF-8.
    let a = all_inputs();
    let b = all_inputs();
    assert_eq!(a.len(), b.len());
    assert!(
        a.iter().zip(&b).all(|(x, y)| x == y),
        "fuzz inputs differ between two runs"
    );
    assert!(a.len() >= 2000, "only {} fuzz inputs", a.len());
    let mut rng = Rng::new(7);
    for _ in 0..200 {
        let m = mutate(&mut rng, "let λ = \"é\" + 😀\n");
        assert!(std::str::from_utf8(m.as_bytes()).is_ok());
    }
    assert_eq!(rough_tokens("let x1 = a[1:-1]\n").concat(), "let x1 = a[1:-1]\n");
}
