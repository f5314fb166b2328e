//! Deterministic no-panic fuzzing: random token soup, mutations of the seed
//! programs (examples, test cases, the error corpus, benchmark programs, the
//! stdlib) and programs generated from a small grammar over the builtins go
//! through the parser, `is_incomplete` and the static checker; those that
//! check cleanly are also run on the CPU backend, bounded by a deadline (a
//! watchdog thread sets the interrupt flag) and an element cap. Any panic or
//! internal error (E0499) fails the test; the inputs are written to
//! `target/fuzz-failures/` to replay.
//!
//! The CI run is a few seconds. `ARR_FUZZ_PROGRAMS=N` (with `--ignored`) runs
//! the long mode: at least N programs through `check`, a fifth of them through
//! `run`, and a sample through the `arr` binary as a subprocess to count
//! signals and crash exit codes, which no in-process run can catch.

use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Mutants made from each seed program.
const MUTANTS_PER_SEED: usize = 30;
/// Programs generated from the grammar in the CI run.
const GENERATED_PROGRAMS: usize = 600;
/// Programs run (after checking cleanly) in the CI run.
const CI_RUNS: usize = 500;
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
    // Found by the long run: a `full_like` value that does not broadcast panicked or broke a view.
    "print(full_like(3, arange(0)))\nprint(full_like(rand([3, 5]), [1.0, 2.0, 3.0]))\nprint(full([2], [1, 2, 3]))\n",
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

/// Seed programs: every `.arr` of examples/, tests/cases/, tests/errors/,
/// bench/programs/ and stdlib/, sorted.
fn seed_files() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [
        root.join("examples"),
        root.join("tests").join("cases"),
        root.join("tests").join("errors"),
        root.join("bench").join("programs"),
        root.join("stdlib"),
    ] {
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

// ---- programs from a grammar ------------------------------------------------

const DTYPES: &[&str] = &["bool", "i32", "i64", "f32", "f64"];

/// A random small shape, as Arr source: `[2, 3]`, `[]`, `[0, 4]`.
fn gen_shape(rng: &mut Rng) -> String {
    let rank = rng.below(4);
    let dims: Vec<String> = (0..rank)
        .map(|_| rng.pick(&["0", "1", "2", "3", "4", "5", "7"]).to_string())
        .collect();
    format!("[{}]", dims.join(", "))
}

fn gen_literal(rng: &mut Rng) -> String {
    rng.pick(&[
        "0",
        "1",
        "2",
        "-1",
        "3",
        "7",
        "0.5",
        "-2.5",
        "0.0",
        "-0.0",
        "1e30",
        "1e-30",
        "1e308",
        "nan",
        "inf",
        "-inf",
        "true",
        "false",
        "2147483647",
        "3000000000000",
        "-9223372036854775807",
        "pi",
        "e",
    ])
    .to_string()
}

fn gen_list(rng: &mut Rng) -> String {
    let n = rng.below(4);
    let rows = 1 + rng.below(2);
    let row = |rng: &mut Rng| {
        let items: Vec<String> = (0..n).map(|_| gen_literal(rng)).collect();
        format!("[{}]", items.join(", "))
    };
    if rows == 1 {
        row(rng)
    } else {
        let n_rows = 1 + rng.below(3);
        let rs: Vec<String> = (0..n_rows).map(|_| row(rng)).collect();
        format!("[{}]", rs.join(", "))
    }
}

fn gen_axis(rng: &mut Rng) -> String {
    match rng.below(6) {
        0 => "none".to_string(),
        1 => format!("({}, {})", rng.below(3) as i64 - 1, rng.below(3)),
        _ => format!("{}", rng.below(5) as i64 - 2),
    }
}

/// A value for a static (compile-time) parameter, chosen by its name.
fn gen_static(rng: &mut Rng, name: &str, vars: usize) -> String {
    match name {
        "shape" => {
            if rng.one_in(6) {
                format!("shape({})", gen_var(rng, vars))
            } else if rng.one_in(8) {
                format!("{}", rng.below(6))
            } else {
                gen_shape(rng)
            }
        }
        "dtype" => rng.pick(DTYPES).to_string(),
        "axis" => gen_axis(rng),
        "axes" => rng
            .pick(&["(1, 0)", "(0,)", "(2, 0, 1)", "(0, 1, 2)", "(0, 0)", "()"])
            .to_string(),
        "keepdims" => rng.pick(&["true", "false"]).to_string(),
        "path" => rng
            .pick(&["\"fuzz.npy\"", "\"fuzz2.npy\"", "\"missing.npy\"", "\".\""])
            .to_string(),
        "num" | "n" | "m" => format!("{}", rng.below(7) as i64 - 1),
        "start" | "stop" | "step" => rng
            .pick(&["0", "1", "2", "5", "-3", "0.5", "2.5", "-1", "size(v0)"])
            .to_string(),
        _ => gen_literal(rng),
    }
}

fn gen_var(rng: &mut Rng, vars: usize) -> String {
    format!("v{}", rng.below(vars.max(1)))
}

/// A random expression over `v0..v{vars-1}`, at most `depth` levels deep.
fn gen_expr(rng: &mut Rng, vars: usize, depth: usize) -> String {
    if depth == 0 {
        return match rng.below(5) {
            0 => gen_literal(rng),
            1 => gen_list(rng),
            _ => gen_var(rng, vars),
        };
    }
    let sub = |rng: &mut Rng| gen_expr(rng, vars, depth - 1);
    match rng.below(14) {
        0..=3 => {
            let names = arr::check::builtins::names();
            let name = *rng.pick(&names);
            let b = arr::check::builtins::find(name).expect("a listed builtin");
            let mut args = Vec::new();
            let mut named = false;
            for p in b.params {
                if !p.required && !rng.one_in(3) {
                    named = true;
                    continue;
                }
                let value = match p.kind {
                    arr::check::builtins::ParamKind::Array if p.name == "arrays" => {
                        let items: Vec<String> = (0..1 + rng.below(3)).map(|_| sub(rng)).collect();
                        if rng.one_in(2) {
                            format!("[{}]", items.join(", "))
                        } else {
                            format!("({},)", items.join(", "))
                        }
                    }
                    arr::check::builtins::ParamKind::Array if matches!(p.name, "lengths" | "offsets") => rng
                        .pick(&["[1, 2]", "[0, 3, 0]", "[3]", "[-1, 4]", "arange(3)", "[0, 1, 5]"])
                        .to_string(),
                    arr::check::builtins::ParamKind::Array => sub(rng),
                    arr::check::builtins::ParamKind::ArrayOrNone if rng.one_in(3) => "none".to_string(),
                    arr::check::builtins::ParamKind::ArrayOrNone => sub(rng),
                    arr::check::builtins::ParamKind::Static => gen_static(rng, p.name, vars),
                    arr::check::builtins::ParamKind::Rest => {
                        let items: Vec<String> = (0..rng.below(3)).map(|_| sub(rng)).collect();
                        items.join(", ")
                    }
                };
                if named || (!p.required && rng.one_in(2)) {
                    named = true;
                    args.push(format!("{}={value}", p.name));
                } else {
                    args.push(value);
                }
            }
            if rng.one_in(20) {
                args.push(sub(rng));
            }
            format!("{name}({})", args.join(", "))
        }
        4 => {
            let f = rng.pick(&["var", "std", "softmax", "logsumexp", "norm"]);
            let mut call = format!("{f}({}", sub(rng));
            if rng.one_in(2) {
                call.push_str(&format!(", axis={}", gen_axis(rng)));
            }
            if *f == "var" && rng.one_in(2) {
                call.push_str(&format!(", ddof={}", rng.below(6)));
            }
            call.push(')');
            call
        }
        5..=7 => {
            let op = rng.pick(&[
                "+", "-", "*", "/", "%", "**", "@", "==", "!=", "<", "<=", ">", ">=", "and", "or",
            ]);
            format!("({} {op} {})", sub(rng), sub(rng))
        }
        8 => format!("({} as {})", sub(rng), rng.pick(DTYPES)),
        9 => format!("(-{})", sub(rng)),
        10 => format!("(not {})", sub(rng)),
        11 => {
            let idx = rng.pick(&[
                "0",
                "-1",
                "1:",
                ":-1",
                "::-1",
                "::2",
                "..., 0",
                "newaxis",
                "1, 2",
                ":, 0",
                "0:0",
                "5",
                "-9",
                "[0, 1]",
                "[true, false]",
                "[-1]",
            ]);
            format!("{}[{idx}]", sub(rng))
        }
        12 => format!("if {} {{ {} }} else {{ {} }}", sub(rng), sub(rng), sub(rng)),
        _ => gen_expr(rng, vars, 0),
    }
}

/// A whole program: a few arrays of random shapes and dtypes, then statements.
fn generate_program(rng: &mut Rng) -> String {
    let mut src = String::new();
    let vars = 1 + rng.below(4);
    for v in 0..vars {
        let init = match rng.below(6) {
            0 => format!("rand({}, dtype={})", gen_shape(rng), rng.pick(&["f32", "f64"])),
            1 => format!("arange({}) as {}", rng.below(8), rng.pick(DTYPES)),
            2 => format!(
                "reshape(arange({}), {})",
                rng.pick(&["6", "12", "0", "1"]),
                rng.pick(&["[2, 3]", "[3, -1]", "[0]", "[1]", "[-1]"])
            ),
            3 => gen_list(rng),
            4 => gen_literal(rng),
            _ => format!("ones({}, dtype={})", gen_shape(rng), rng.pick(DTYPES)),
        };
        src.push_str(&format!("let v{v} = {init}\n"));
    }
    for _ in 0..1 + rng.below(5) {
        let v = gen_var(rng, vars);
        let depth = 1 + rng.below(3);
        let e = gen_expr(rng, vars, depth);
        let stmt = match rng.below(8) {
            0 => format!("{v} = {e}"),
            1 => format!("{v}[{}] = {e}", rng.pick(&["0", "...", ":", "1:", "::-1", "0, 0"])),
            2 => format!("{v} {}= {e}", rng.pick(&["+", "-", "*", "/"])),
            3 => format!("for i in 0..{} {{ {v} = {e} }}", rng.below(4)),
            4 => format!("if any({e}) {{ print({v}) }}"),
            5 => format!("fn g{}(x) = {e}\nprint(g{}({v}))", rng.below(9), rng.below(9)),
            _ => format!("print({e})"),
        };
        src.push_str(&stmt);
        src.push('\n');
    }
    src
}

// ---- running inputs -----------------------------------------------------------

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

/// Sets the interrupt flag once the running program passes its deadline, so
/// a mutant that loops forever stops with a diagnostic.
struct Watchdog {
    start: std::time::Instant,
    /// Milliseconds since `start` at which to interrupt; 0 when idle. A mutex,
    /// not an atomic, so that no request made for one program lands after
    /// `disarm` (the watchdog checks and requests while holding it).
    deadline_ms: Arc<Mutex<u64>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    fn new() -> Watchdog {
        let start = std::time::Instant::now();
        let deadline_ms = Arc::new(Mutex::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (d, s) = (deadline_ms.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                {
                    let deadline = d.lock().unwrap_or_else(|e| e.into_inner());
                    if *deadline != 0 && start.elapsed().as_millis() as u64 >= *deadline {
                        arr::interrupt::request();
                    }
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        });
        Watchdog {
            start,
            deadline_ms,
            stop,
            thread: Some(thread),
        }
    }

    fn arm(&self, budget_ms: u64) {
        let mut deadline = self.deadline_ms.lock().unwrap_or_else(|e| e.into_inner());
        arr::interrupt::clear();
        *deadline = self.start.elapsed().as_millis() as u64 + budget_ms;
    }

    fn disarm(&self) {
        let mut deadline = self.deadline_ms.lock().unwrap_or_else(|e| e.into_inner());
        *deadline = 0;
        arr::interrupt::clear();
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A diagnostic that reports a bug in Arr rather than in the program.
fn is_internal(d: &arr::Diagnostic) -> bool {
    d.code == "E0499" || d.message.starts_with("internal")
}

/// Runs the front-end entry points on `src`; `Err` names the stage that
/// panicked and the panic. `Ok(true)` when the program checks cleanly.
fn exercise_front(src: &str) -> Result<bool, (&'static str, String)> {
    let clean = std::cell::Cell::new(false);
    let stages: [(&'static str, &dyn Fn()); 3] = [
        ("parse_program", &|| {
            let _ = arr::syntax::parse_program(src, 0);
        }),
        ("is_incomplete", &|| {
            let _ = arr::syntax::is_incomplete(src);
        }),
        ("Session::check", &|| {
            let diags = arr::Session::cpu().check("fuzz.arr", src);
            clean.set(diags.is_empty());
        }),
    ];
    for (stage, f) in stages {
        if catch_unwind(AssertUnwindSafe(f)).is_err() {
            let message = LAST_PANIC.with(|p| p.borrow().clone());
            return Err((stage, message));
        }
    }
    Ok(clean.get())
}

/// Runs `src` on a fresh CPU session within `budget_ms`.
fn exercise_run(src: &str, watchdog: &Watchdog, budget_ms: u64) -> Result<(), (&'static str, String)> {
    let result = catch_unwind(AssertUnwindSafe(|| {
        // The stdlib loads before the deadline starts.
        let mut session = arr::Session::cpu();
        session.set_output(Box::new(std::io::sink()));
        watchdog.arm(budget_ms);
        session.eval(src)
    }));
    watchdog.disarm();
    match result {
        Err(_) => Err(("Session::eval", LAST_PANIC.with(|p| p.borrow().clone()))),
        Ok(Err(diags)) => match diags.iter().find(|d| is_internal(d)) {
            Some(d) => Err(("Session::eval (internal error)", format!("{}: {}", d.code, d.message))),
            None => Ok(()),
        },
        Ok(Ok(_)) => Ok(()),
    }
}

fn all_inputs(mutants_per_seed: usize) -> Vec<(String, String)> {
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
        for i in 0..mutants_per_seed {
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

/// How much to do: the CI run, or the long run `ARR_FUZZ_PROGRAMS` asks for.
struct Plan {
    mutants_per_seed: usize,
    generated: usize,
    /// At most this many clean programs are run (the rest are only checked).
    max_runs: usize,
    run_budget_ms: u64,
    /// Every how many run programs one also goes through the `arr` binary (0: none).
    subprocess_every: usize,
}

fn failures_report(failed: usize, count: usize, failures: &[Failure]) -> String {
    let dir = failures_dir();
    let _ = std::fs::remove_dir_all(&dir);
    let wrote = std::fs::create_dir_all(&dir).is_ok();
    let mut report = format!(
        "{failed} of {count} fuzz inputs failed ({} distinct failures shown, first input of each):\n",
        failures.len()
    );
    for (i, f) in failures.iter().enumerate() {
        let file = dir.join(format!("{i:02}.arr"));
        let saved = wrote && std::fs::write(&file, &f.input).is_ok();
        let shown: String = f.input.chars().take(300).collect();
        report.push_str(&format!(
            "\n[{i}] {} failed in {}: {}\n    input ({} bytes{}): {:?}{}\n",
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
    report
}

/// What a fuzz run did.
#[derive(Default, Debug)]
struct Counts {
    checked: usize,
    clean: usize,
    ran: usize,
    subprocess: usize,
    subprocess_signals: usize,
    subprocess_crash_codes: usize,
    subprocess_timeouts: usize,
}

/// Runs one program through the `arr` binary; `Err` describes a signal or a
/// crash exit code (101 is Rust's panic exit). `Ok(false)` on a timeout.
fn exercise_binary(src: &str, dir: &Path, k: usize) -> Result<bool, String> {
    use std::os::unix::process::ExitStatusExt;
    let file = dir.join(format!("sub{}.arr", k % 8));
    std::fs::write(&file, src).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arr"))
        .args(["--backend", "cpu", "run"])
        .arg(&file)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start arr: {e}"))?;
    let start = std::time::Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                if let Some(sig) = status.signal() {
                    return Err(format!("killed by signal {sig}"));
                }
                return match status.code() {
                    Some(c) if c >= 101 => Err(format!("exit code {c}")),
                    _ => Ok(true),
                };
            }
            Ok(None) if start.elapsed() > std::time::Duration::from_secs(3) => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(false);
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(1)),
            Err(e) => return Err(format!("wait failed: {e}")),
        }
    }
}

fn run_fuzz(plan: &Plan) -> Result<Counts, String> {
    let mut inputs = all_inputs(plan.mutants_per_seed);
    let mut rng = Rng::new(0x6E4E_5EED);
    for i in 0..plan.generated {
        inputs.push((format!("generated {i}"), generate_program(&mut rng)));
    }
    let count = inputs.len();
    let mut failures: Vec<Failure> = Vec::new();
    let mut failed = 0usize;
    let mut distinct = std::collections::HashSet::new();
    let mut counts = Counts::default();

    // `save` in a mutant writes into the current directory: give it a scratch one.
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-run");
    let _ = std::fs::create_dir_all(&scratch);
    let scratch = scratch.canonicalize().unwrap_or(scratch);
    let previous_dir = std::env::current_dir().ok();
    let _ = std::env::set_current_dir(&scratch);
    arr::Session::set_element_limit(1 << 18);
    let watchdog = Watchdog::new();

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
    let mut record = |origin: &str, stage: &'static str, message: String, input: &str| {
        failed += 1;
        if failures.len() < KEEP_FAILURES && distinct.insert(message.clone()) {
            failures.push(Failure {
                origin: origin.to_string(),
                stage,
                message,
                input: input.to_string(),
            });
        }
    };
    for (origin, input) in &inputs {
        counts.checked += 1;
        let clean = match exercise_front(input) {
            Ok(clean) => clean,
            Err((stage, message)) => {
                record(origin, stage, message, input);
                continue;
            }
        };
        if !clean || counts.ran >= plan.max_runs {
            continue;
        }
        counts.clean += 1;
        counts.ran += 1;
        if let Err((stage, message)) = exercise_run(input, &watchdog, plan.run_budget_ms) {
            record(origin, stage, message, input);
        }
        if plan.subprocess_every > 0 && counts.ran % plan.subprocess_every == 0 {
            counts.subprocess += 1;
            match exercise_binary(input, &scratch, counts.subprocess) {
                Ok(true) => {}
                Ok(false) => counts.subprocess_timeouts += 1,
                Err(message) => {
                    if message.starts_with("killed") {
                        counts.subprocess_signals += 1;
                    } else {
                        counts.subprocess_crash_codes += 1;
                    }
                    record(origin, "arr run (subprocess)", message, input);
                }
            }
        }
    }
    std::panic::set_hook(previous_hook);
    drop(watchdog);
    arr::Session::set_element_limit(u64::MAX);
    if let Some(dir) = previous_dir {
        let _ = std::env::set_current_dir(dir);
    }

    if failed == 0 {
        Ok(counts)
    } else {
        Err(format!("{counts:?}\n{}", failures_report(failed, count, &failures)))
    }
}

/// The interrupt flag is process-wide: tests that set it take turns.
static INTERRUPT_FLAG: Mutex<()> = Mutex::new(());

fn fuzz_on_big_stack(plan: Plan) {
    let _turn = INTERRUPT_FLAG.lock().unwrap_or_else(|e| e.into_inner());
    // The checker may recurse on nesting; give it the stack a main thread has.
    let worker = std::thread::Builder::new()
        .name("fuzz".into())
        .stack_size(8 << 20)
        .spawn(move || run_fuzz(&plan))
        .expect("spawn the fuzz thread");
    let start = std::time::Instant::now();
    match worker.join() {
        Ok(Ok(counts)) => eprintln!("fuzz: {counts:?}, no panic, no internal error, {:.1?}", start.elapsed()),
        Ok(Err(report)) => panic!("{report}"),
        Err(_) => panic!("the fuzz driver itself panicked"),
    }
}

#[test]
fn programs_never_panic() {
    fuzz_on_big_stack(Plan {
        mutants_per_seed: MUTANTS_PER_SEED,
        generated: GENERATED_PROGRAMS,
        max_runs: CI_RUNS,
        run_budget_ms: 40,
        subprocess_every: 0,
    });
}

/// The long run: `ARR_FUZZ_PROGRAMS=100000 cargo test --release --test fuzz -- --ignored`.
#[test]
#[ignore]
fn programs_never_panic_long() {
    let n: usize = std::env::var("ARR_FUZZ_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let seeds = seed_files().len() + BUILTIN_SEEDS.len();
    // Half mutants, half generated programs (most of which check cleanly and run).
    fuzz_on_big_stack(Plan {
        mutants_per_seed: (n / 2).div_ceil(seeds.max(1)),
        generated: n / 2,
        max_runs: usize::MAX,
        run_budget_ms: 200,
        subprocess_every: 10,
    });
}

#[test]
fn a_deadline_stops_an_endless_loop_with_e0413() {
    let _turn = INTERRUPT_FLAG.lock().unwrap_or_else(|e| e.into_inner());
    let watchdog = Watchdog::new();
    let start = std::time::Instant::now();
    for src in [
        "let n = 0\nwhile true { n += 1 }\n",
        "while true {}\n",
        "fn f(x) = f(x) + f(x)\nprint(f(1))\n",
    ] {
        let mut session = arr::Session::cpu();
        watchdog.arm(50);
        let result = session.eval(src);
        watchdog.disarm();
        let diags = result.err().unwrap_or_default();
        let codes: Vec<&str> = diags.iter().map(|d| d.code).collect();
        // The recursion may reach the depth limit (E0405) before the deadline.
        assert!(codes == ["E0407"] || codes == ["E0405"], "{src:?} gave {codes:?}");
    }
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
    // With the flag cleared, a session runs normally again.
    assert!(arr::Session::cpu().eval("let x = 1\n").is_ok());
}

#[test]
fn mutations_stay_deterministic_and_utf8() {
    // The same seeds must give the same inputs on every run (so a failure
    // can be reproduced), and byte-level edits must be repaired to UTF-8.
    let a = all_inputs(MUTANTS_PER_SEED);
    let b = all_inputs(MUTANTS_PER_SEED);
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
    let (mut r1, mut r2) = (Rng::new(3), Rng::new(3));
    assert_eq!(generate_program(&mut r1), generate_program(&mut r2));
}
