//! The fused CPU executor against the reference (node-by-node) executor: every
//! program in `tests/cases`, `examples` and the error corpus `tests/errors`,
//! plus targeted programs for each kernel shape (maps over strided and
//! broadcast views, reductions of every op and layout with their epilogues,
//! generators), run on both; what they print must agree.
//!
//! Tolerance: words, integers and booleans must be equal; floats must agree
//! within a relative 1e-5 (absolute 1e-9 near zero), because a fused reduction
//! adds in lanes and chunks where the reference adds in one sequence, and the
//! vectorised transcendentals (`vmath`) may differ by a few ulps. Error
//! diagnostics must render identically.

mod common;
use arr::backend::cpu::{CpuBackend, CpuMode};
use common::Captured;
use std::path::{Path, PathBuf};
use std::rc::Rc;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What a program (a file, or source text) prints on one executor, followed by its rendered errors.
fn run(mode: CpuMode, file: Option<&Path>, source: &str) -> String {
    let out = Captured::default();
    let mut text = {
        let mut session = arr::Session::with_backend(Rc::new(CpuBackend::with_mode(mode)));
        session.set_output(Box::new(out.clone()));
        let result = match file {
            Some(path) => session.run_file(path).map(|_| None),
            None => session.eval(source),
        };
        match result {
            Ok(value) => value.unwrap_or_default(),
            Err(diags) => format!("\nERRORS:\n{}", session.render(&diags, false)),
        }
    };
    text.insert_str(0, &out.text());
    text
}

fn tokens(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || matches!(c, '[' | ']' | '(' | ')' | ',' | ';' | ':' | '='))
        .filter(|t| !t.is_empty())
        .collect()
}

/// A float token's value; integers and words are compared as text.
fn float_token(t: &str) -> Option<f64> {
    let body = t.trim_start_matches(['-', '+']);
    let numeric = body.starts_with(|c: char| c.is_ascii_digit() || c == '.');
    let is_float = body.contains(['.', 'e', 'E']);
    match body {
        "nan" => Some(f64::NAN),
        "inf" => Some(if t.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }),
        _ if numeric && is_float => t.parse().ok(),
        _ => None,
    }
}

fn close(a: f64, b: f64) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    if a == b {
        return true;
    }
    (a - b).abs() <= 1e-5 * a.abs().max(b.abs()) || (a - b).abs() <= 1e-9
}

/// Compares the two outputs token by token; the first difference, if any.
fn differ(fused: &str, reference: &str) -> Option<String> {
    let (f, r) = (tokens(fused), tokens(reference));
    if f.len() != r.len() {
        return Some(format!("{} tokens vs {}", f.len(), r.len()));
    }
    for (k, (a, b)) in f.iter().zip(&r).enumerate() {
        let same = match (float_token(a), float_token(b)) {
            (Some(x), Some(y)) => close(x, y),
            _ => a == b,
        };
        if !same {
            return Some(format!("token {k}: fused {a:?}, reference {b:?}"));
        }
    }
    None
}

fn programs_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "arr"))
        .collect();
    files.sort();
    files
}

fn compare_dir(dir: &str) {
    let files = programs_in(&root().join(dir));
    assert!(!files.is_empty(), "no programs in {dir}");
    let mut bad = Vec::new();
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let fused = run(CpuMode::Fused, Some(&path), "");
        let reference = run(CpuMode::Reference, Some(&path), "");
        if let Some(why) = differ(&fused, &reference) {
            bad.push(format!(
                "{dir}/{name}: {why}\n--- fused\n{fused}\n--- reference\n{reference}"
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "fused and reference CPU executors differ:\n{}",
        bad.join("\n")
    );
}

#[test]
fn cases_agree() {
    compare_dir("tests/cases");
}

#[test]
fn examples_agree() {
    compare_dir("examples");
}

#[test]
fn error_corpus_agrees() {
    compare_dir("tests/errors");
}

/// Kernels of every shape the fused executor distinguishes, on sizes that
/// cross its block (2048) and parallel (32768) thresholds.
const TARGETED: &[(&str, &str)] = &[
    (
        "a copy of a pending value: the value's own buffer is a tap on the copy's last step",
        "let a = arange(4.0)\nlet p = copy(a)\nlet b = zeros([4])\nb[0] = 1.0\nprint(a, p)\n\
         let c = arange(6.0, dtype=f64) * 2.0\nlet q = array(c)\nlet r = flatten(c)\nfor i in 0..1 {}\nprint(c, q, r)\n\
         let u = linspace(0.0, 1.0, 5000)\nlet v = copy(u)\nfor i in 0..3 { v = v + u }\nprint(sum(u), sum(v), u[4999])",
    ),
    (
        "sizes that change every iteration (plans served by their shape-generic key)",
        "let n = 37\nlet a = rand([n, n], dtype=f64) + n * eye(n, dtype=f64)\n\
         for k in 0..n-1 {\n    a[k+1:, k] = a[k+1:, k] / a[k, k]\n\
             a[k+1:, k+1:] = a[k+1:, k+1:] - a[k+1:, k:k+1] * a[k:k+1, k+1:]\n\
             if k % 5 == 0 { print(k, sum(a), a[n-1, n-1]) }\n}\n\
         let g = arange(4096) as f32\nlet m = reshape(rand([64, 64]), [64, 64])\n\
         for w in 1..66 {\n    let s = g[:w * 60] * 2.0 + g[4095 - w * 60 + 1:]\n\
             let t = m[:w % 64 + 1, ::-1][:, :w % 64 + 1] * 3.0 - transpose(m)[:w % 64 + 1, :w % 64 + 1]\n\
             let u = where(m[:, :w % 64 + 1] > 0.5, m[:, :w % 64 + 1], -1.0) + (arange(w % 64 + 1) as f32)\n\
             let i = (arange(w * 3) * 7) % 5\n\
             print(w, sum(s), sum(t), t[0, 0], sum(u), sum(i), max(i))\n}\n\
         let b = zeros([50, 50]) as i32\nfor k in 0..49 {\n    b[k:, k] = b[k:, k] + k\n    b[k, k+1:] = b[k, k+1:] - 1\n}\nprint(sum(b), b[49, 48], b[3, 40])",
    ),
    (
        "map and broadcasts",
        "let a = rand([300, 517])\nlet b = rand([517])\nlet c = rand([300, 1])\n\
         let d = (a + b) * c - exp(a) / (1 + tanh(b))\nprint(sum(d), d[7, 9], d[299, 516])\n\
         let t = transpose(a) * 2\nprint(sum(t), t[500, 299])\n\
         let s = a[::3, ::-2] + 1\nprint(sum(s), s[5, 5])",
    ),
    (
        "reductions of every layout",
        "let a = rand([123, 4567])\nprint(sum(a), sum(a, axis=0)[17], sum(a, axis=1)[99])\n\
         print(max(a, axis=0)[3], min(a, axis=1)[5], prod(a[:4, :9] + 0.5, axis=1))\n\
         let m = rand([17, 33, 65])\nlet r = sum(m, axis=1)\nprint(r[3, 7], sum(r), sum(m, axis=0)[4, 5], sum(m, axis=2)[16, 32])\n\
         let tiny = rand([70000, 8])\nprint(sum(tiny, axis=1)[69999], mean(tiny))\n\
         print(argmax(a, axis=1)[7], argmin(a, axis=0)[9])",
    ),
    (
        "cols reductions over several panels",
        "let w = rand([40, 40000])\nlet c = sum(w, axis=0)\nprint(sum(c), c[0], c[16383], c[16384], c[39999])\n\
         let m = rand([300, 20, 70])\nlet r = sum(m * 2 - 1, axis=1)\nprint(sum(r), r[234, 3], r[234, 4], r[299, 69])\n\
         let g = rand([40000, 32])\nlet q = max(g, axis=1)\nprint(sum(q), q[2047], q[2048], q[39999])",
    ),
    (
        // concat copies each part's view into its slab: contiguous, strided,
        // reversed, broadcast and transposed parts, every axis, every dtype,
        // an empty part, small and past the parallel threshold
        "concat of every view",
        "let a = rand([300, 517])\nlet w = reshape(arange(300 * 1034) % 13, [300, 1034])\n\
         let c1 = concat([a, a[::-1, :]], axis=1)\nprint(sum(c1 * w), c1[299, 1033], c1[0, 517])\n\
         let c0 = concat([a[:, -1:], a[:, :-1]], axis=1)\nprint(sum(c0 * w[:, :517]), c0[5, 0], c0[5, 1])\n\
         let c2 = concat([a[1:, :], a[:1, :], transpose(rand([517, 3]))], axis=0)\nprint(sum(c2 * reshape(arange(303 * 517) % 11, [303, 517])), c2[302, 516], c2[299, 0])\n\
         let d = concat([a[::2, ::3], broadcast_to(arange(173)[newaxis, :] as f32, [4, 173])], axis=0)\nprint(sum(d * (arange(173) % 7)), d[153, 172])\n\
         let m = rand([6, 7, 8])\nlet e = concat([m, m[:, ::-1, :], m[:, :0, :]], axis=1)\nprint(sum(e * reshape(arange(6 * 14 * 8) % 5, [6, 14, 8])), e[5, 13, 7])\n\
         let i = reshape(arange(120) % 9 - 4, [10, 12])\nlet j = concat([i, i[::-1, ::-1], (i > 0) as i64], axis=0)\nprint(sum(j * reshape(arange(360) % 7, [30, 12])), j[29, 11])\n\
         let b = concat([i > 0, i[:, :2] < 0], axis=1)\nprint(sum(b), b[9, 13], b[0, 0])\n\
         let h = concat([i as f64 * 0.5, (i as f64)[:, ::2]], axis=1)\nprint(sum(h * (arange(18) % 4)), h[9, 17])",
    ),
    (
        "epilogues and integer/bool reductions",
        "let a = rand([257, 1031])\nlet z = a - mean(a, axis=1, keepdims=true)\nprint(sum(z * z), z[3, 4])\n\
         let s = sqrt(sum(a * a, axis=1)) + 1\nprint(s[5], sum(s))\n\
         let i = arange(100000) % 7\nprint(sum(i), max(i), min(i - 3), sum(i == 3), any(i > 5), all(i >= 0))\n\
         let k = reshape(arange(60000), [300, 200])\nprint(sum(k, axis=0)[199], sum(k, axis=1)[299], prod(k[:3, 1:4], axis=1))",
    ),
    (
        "generators, casts, where",
        "let x = arange(50000) as f32 * 0.001\nlet y = where(x > 20, sin(x), cos(x) * 2)\nprint(sum(y), y[49999], y[100])\n\
         let r = randn([40000])\nprint(sum(r > 0), sum(abs(r)))\n\
         let n = (arange(70000) as f64 / 3) as i32\nprint(sum(n), n[69999], sum(n % 5), sum(-n ** 2 % 11))",
    ),
    (
        // every row length from 1 to 300: many short rows to a block in maps
        // (strided, reversed, broadcast views) and in row reductions of every
        // dtype, with position weights so a row in the wrong place shows
        "short rows, many to a block",
        r#"let w = arange(37) % 13 - 6
for L in 1..301 {
    let a = rand([37, L])
    let k = reshape(arange(37 * L) % 11 - 5, [37, L])
    let j = k as i32
    let b = k as f64 * 0.5
    let c = rand([5, 3, L])
    let s = sum(a, axis=1)
    let m = max(a[::-1, :] * 2, axis=1)
    let r = sum(a + rand([L]), axis=1)
    let e = sum(a[:, :1] + zeros([37, L]), axis=1)
    let v = a[1:, ::2] * 3 - a[:-1, ::2]
    let g = c[:, 1:, :] + c[:, :-1, ::-1]
    print(L, sum(s * w), m[3], sum(r * w), sum(e * w), sum(v * (arange(36) % 7)[:, newaxis]), sum(v[:, -1] * (arange(36) % 5)))
    print(sum(sum(k, axis=1) * w), sum(sum(j, axis=1) * w), prod(j[:, :3] % 3 + 1, axis=1)[1], min(b, axis=1)[36], max(j, axis=1)[4])
    print(any(k > 4, axis=1)[2], all(k > -5, axis=1)[2], sum(k > 0, axis=1)[5], sum(sum(c * 2 - 1, axis=2) * reshape(arange(15) % 5, [5, 3])), sum(g * reshape(arange(10 * L) % 9, [5, 2, L])))
}
print(sum(rand([0, 5]), axis=1), sum(rand([5, 0]), axis=1), max(rand([3, 1]), axis=1))
"#,
    ),
    (
        // row-resident kernels (softmax, log-softmax, layer norm, var/std,
        // norms): rows of every length 1..=300 and past a block, f32 and f64,
        // integer rows, strided, transposed and broadcast operands, NaN rows
        "row-resident normalisations",
        r#"fn lnorm(x, g, b) {
    let m = mean(x, axis=-1, keepdims=true)
    let d = x - m
    d / sqrt(mean(d * d, axis=-1, keepdims=true) + 1e-5) * g + b
}
fn lsm(x) = x - logsumexp(x, axis=-1, keepdims=true)
for L in 1..301 {
    let a = rand([7, L]) * 4 - 2
    let w = (arange(L) % 5) as f32
    let s = softmax(a, axis=1)
    let l = lsm(a)
    let n = lnorm(a, rand([L]), w)
    let d = a as f64
    print(L, sum(s * w), s[6, L - 1], sum(l * w), l[0, 0], sum(n * w), sum(var(a, axis=1)), std(d, axis=1)[3], sum(softmax(d, axis=1) * w))
    print(sum(norm(a, axis=1)), sum(softmax(a[::-1, ::2], axis=1)), sum(var(reshape(arange(7 * L) % 9, [7, L]), axis=1)))
}
for n in [1, 3, 8, 2047, 2048, 2049, 4096, 5000] {
    let x = rand([13, n]) * 10
    let t = transpose(rand([n, 13]))
    print(n, sum(softmax(x, axis=1) * x), sum(lsm(x)), sum(var(x, axis=1)), sum(softmax(t, axis=1) * t), sum(var(t, axis=-1, ddof=1)), max(logsumexp(x, axis=1)))
}
let big = rand([600, 700])
print(sum(softmax(big, axis=1) * big), sum(var(big, axis=1)), sum(lnorm(big, rand([700]), 1.0) * big))
let z = rand([3, 5])
z[1, 2] = nan
print(softmax(z, axis=1)[1], var(z, axis=1), softmax(zeros([4, 0]), axis=1), var(rand([0, 3]), axis=1))
"#,
    ),
    (
        // a reduction of a middle axis: several short kept rows to a block
        "middle-axis reductions",
        r#"for n in [1, 2, 5, 31, 64, 65, 130, 513] {
    let m = rand([9, n, n + 3])
    let r = sum(m, axis=1)
    let i = reshape(arange(9 * n * 7) % 13 - 6, [9, n, 7])
    print(n, sum(r * reshape(arange(9 * (n + 3)) % 7, [9, n + 3])), r[8, n + 2], max(m, axis=1)[4, 0], sum(sum(i, axis=1) * reshape(arange(63) % 5, [9, 7])), prod(i[:, :3, :] % 3 + 1, axis=1)[2, 6], any(i > 5, axis=1)[3, 3])
    let t = sum(m[:, ::-1, ::2] * 2, axis=1)
    print(sum(t), sum(t[:, 0] * (arange(9) % 4)), sum(sum(m as f64, axis=1)), min(m + rand([n + 3]), axis=1)[0, 1])
}
let big = rand([64, 64, 64])
let q = sum(big, axis=1)
print(sum(q * reshape(arange(4096) % 11, [64, 64])), q[63, 63], sum(big, axis=0)[5, 5])
"#,
    ),
    (
        // sibling row reductions that share their rows (n-body's three force
        // sums, `mean` beside `var`): one row-resident kernel writing its
        // per-row values too for long rows, separate kernels for short ones;
        // a row of every kind (f32, f64, strided, reversed) around 512
        "sibling row reductions",
        r#"fn forces(x, y, m) {
    let dx = x[newaxis, :] - x[:, newaxis]
    let dy = y[newaxis, :] - y[:, newaxis]
    let r2 = dx * dx + dy * dy + 0.01
    let w = m[newaxis, :] / (r2 * sqrt(r2))
    (sum(dx * w, axis=1), sum(dy * w, axis=1))
}
for n in [3, 200, 511, 512, 513, 700, 1500, 2049, 2300] {
    let x = rand([n])
    let y = rand([n], dtype=f64)
    let m = rand([n]) + 0.5
    let (fx, fy) = forces(x, y as f32, m)
    let (gx, gy) = forces(y, x as f64, m as f64)
    let (hx, hy) = forces(x[::-1], y[::-1] as f32 * 2, m)
    let w = arange(n) % 7 - 3
    print(n, sum(fx * w), fy[n - 1], sum(gx * w), gy[0], sum(hx * w), sum(hy))
    let a = rand([9, n]) * 3
    let mu = mean(a, axis=1)
    let v = var(a, axis=1)
    print(sum(mu * (arange(9) % 4)), sum(v * (arange(9) % 5)), sum(a - mu[:, newaxis]))
}
"#,
    ),
    (
        // n-body steps with rows longer than a block: the pairwise terms,
        // their three sums and the updates are one row-resident kernel whose
        // rows go through in blocks (`plan::rows_stream`); f32 and f64, and
        // positions read through a reversed view
        "streamed long rows",
        r#"fn step(x, y, z, vx, vy, vz, m, dt, soft) {
    let dx = x[newaxis, :] - x[:, newaxis]
    let dy = y[newaxis, :] - y[:, newaxis]
    let dz = z[newaxis, :] - z[:, newaxis]
    let r2 = dx * dx + dy * dy + dz * dz + soft
    let w = m[newaxis, :] / (r2 * sqrt(r2))
    let vx2 = vx + dt * sum(dx * w, axis=1)
    let vy2 = vy + dt * sum(dy * w, axis=1)
    let vz2 = vz + dt * sum(dz * w, axis=1)
    (x + dt * vx2, y + dt * vy2, z + dt * vz2, vx2, vy2, vz2)
}
fn two_steps(n, x, y, z, m) {
    let v = x * 0
    let (x1, y1, z1, vx, vy, vz) = step(x, y, z, v, v, v, m, 0.001, 0.01)
    let (x2, y2, z2, vx2, vy2, vz2) = step(x1, y1, z1, vx, vy, vz, m, 0.001, 0.01)
    print(n, sum(m * (vx2 * vx2 + vy2 * vy2 + vz2 * vz2)), x2[0], vy2[n - 1], sum(vz2 * (arange(n) % 5)))
}
for n in [2049, 2300] {
    let x = rand([n])
    let y = rand([n])
    let z = rand([2 * n])[::-2]
    let m = rand([n]) / n
    two_steps(n, x, y, z, m)
    two_steps(n, x as f64, y as f64, z as f64, m as f64)
}
"#,
    ),
    (
        // broadcast scalars folded once per block inside wider expressions
        "block-wide scalar steps",
        r#"let a = rand([202, 202])
let g = 9.8
let dt = 0.02
let n = 7
let u = a[1:-1, 1:-1] * (g / 2) + dt / (2 * 1.0) * (a[2:, 1:-1] - a[:-2, 1:-1]) + (n // 2) + sqrt(g) * (n % 3)
print(sum(u), u[0, 0], u[199, 199])
let i = reshape(arange(40000), [200, 200])
let k = i[::2, 1:] * (n * 3) - (n - 10) ** 2 + where(n > 3, 1, 2)
print(sum(k), k[99, 198], sum(i % (n + 1)))
"#,
    ),
    (
        // shifted views of one buffer, whose rows are not adjacent: several
        // rows to a block read in place as one span with the gaps between
        // them (`RowWalk::for_map`), up to rows of 1000 (two a block), in a
        // map and in a slice assignment written through its view; a row
        // of 1200 one a block; an integer division whose gaps hold zeros
        // (no span: a gap's quotient would raise an error the program does
        // not have)
        "stencils over both row layouts",
        r#"for n in [6, 64, 202, 500, 1002, 1202] {
    let g = rand([n, n])
    let s = 0.2 * (g[1:-1, 1:-1] + g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:])
    print(n, sum(s), s[0, 0], s[n - 3, n - 3])
    let h = rand([n, n])
    h[1:-1, 1:-1] -= 0.1 * (g[2:, 1:-1] - g[:-2, 1:-1]) + 0.3 * h[1:-1, 1:-1]
    print(sum(h), h[1, 1], h[n - 2, n - 2], h[0, 5])
}
let z = reshape(arange(30 * 32, dtype=i32), [30, 32]) % 5 + 1
z[:, 0] = 0
z[:, 31] = 0
let q = (z[1:-1, 1:-1] * 7) // z[1:-1, 1:-1] + z[:-2, 1:-1] % z[2:, 1:-1]
print(sum(q), q[0, 0], q[27, 29])
"#,
    ),
    (
        // short rows several to a block (`block::eval_rows`) from outer
        // products (a row broadcast down the block, a column broadcast along
        // it), rows of a larger array and reversed rows, through every loop
        // kind (maps, comparisons, where, casts, vector math, float and
        // integer powers and remainders) and into reductions over the rows,
        // over everything and over axis pairs, for row lengths around 1, a
        // vector, and a quarter block (512: the longest rows several to a
        // block)
        "outer products and shifted rows",
        r#"for L in [1, 2, 3, 7, 8, 9, 64, 200, 511, 512, 513, 700] {
    let x = rand([L]) + 0.5
    let c = rand([37]) + 0.5
    let p = x[newaxis, :] * 3 - c[:, newaxis]
    let q = where(x[newaxis, :] > c[:, newaxis], sqrt(x[newaxis, :] / c[:, newaxis]), exp(-c[:, newaxis]) ** x[newaxis, :])
    let w = arange(37) % 7 - 3
    print(L, sum(p * w[:, newaxis]), p[36, L - 1], sum(q * w[:, newaxis]), sum(q, axis=1)[5], sum(p * q), sum(q, axis=0)[L - 1], max(p, axis=1)[3])
    let d = x[newaxis, :] - x[:, newaxis]
    let r2 = d * d + 0.01
    let f = (x[newaxis, :] / (r2 * sqrt(r2)))
    print(sum(f), sum(sum(d * f, axis=1) * (arange(L) % 5)), atan2(d, r2)[L - 1, 0], sum(hypot(d, c[0])))
    let i = reshape(arange(37 * L) % 11 - 5, [37, L])
    let k = arange(L) % 4 + 1
    let j = i[0, :][newaxis, :] * 3 + i[:, 0][:, newaxis] % k[newaxis, :] - (i[:, 1 % L][:, newaxis] // k[newaxis, :])
    print(sum(j * w[:, newaxis]), j[36, L - 1], sum(j > 0, axis=1)[7], sum((j as f32) * 0.5), sum((k[newaxis, :] ** (i[:, 0][:, newaxis] % 3)) * w[:, newaxis]))
    let g = rand([40, L + 2], dtype=f64)
    let s = g[1:-1, 1:-1] + g[:-2, 2:] - g[2:, :-2] * 0.5 + g[::-1, :][1:-1, 1:-1] % 0.3
    print(sum(s * (arange(38) % 7 - 3)[:, newaxis]), s[37, L - 1], min(s, axis=1)[9], sum(s, axis=0)[L - 1], any(g[1:-1, 1:-1] > g[:-2, 2:], axis=1)[3])
    let b = x[newaxis, :] > 0.9
    let e = b or (c[:, newaxis] < 0.7)
    print(sum(e), sum(e, axis=1)[2], sum(where(e, x[newaxis, :], c[:, newaxis])))
    g[1:-1, 1:-1] = g[:-2, 2:] * 2 - x[newaxis, :]
    print(sum(g * (arange(L + 2) % 3)), g[38, L])
    let t = rand([3, 41, L]) - x
    print(sum(t * c[4]), sum(t[:, ::-1, :] * x, axis=(1, 2)), max(t - c[:3][:, newaxis, newaxis], axis=(1, 2)), sum(t[1:, 2:, :] * 2, axis=(0, 1))[L - 1])
}
"#,
    ),
    (
        // operands read down their columns (transposed views): tiled maps
        "transposed operands",
        r#"for n in [15, 16, 17, 64, 65, 256, 300, 1000] {
    let a = rand([n, n])
    let t = transpose(a) + a
    let w = arange(n) % 7
    print(n, sum(t * w), t[n - 1, 0], t[0, n - 1], sum(transpose(a[:, ::2]) * 3 - 1), sum((transpose(a as f64) - a) * w))
    let k = reshape(arange(n * 70) % 9, [n, 70])
    let q = transpose(k)[:, ::-1] * 2 + 1
    print(sum(q * (arange(n) % 5)), q[69, 0])
}
let c = rand([5, 70, 70])
let p = transpose(c, [0, 2, 1]) * 2 - c
print(sum(p * reshape(arange(70 * 70) % 3, [70, 70])), p[4, 69, 1], p[3, 1, 69])
"#,
    ),
    (
        // the vectorised fills of `arange` and uniform `rand`: unit, stepped,
        // siblings over one output shape that become one multi-output map:
        // shifted reads of shared arrays, a value read by another member at
        // the same position, bool, i32, f32 and f64 outputs, short rows (several
        // to a block) and long ones, in a loop that writes back into its input
        "sibling maps",
        r#"let n = 300
let x = rand([n + 2, n + 1])
let y = rand([n + 2, n + 1], dtype=f64)
for t in 0..3 {
    let xc = x[:, 1:]
    let a = (xc[1:, :] + xc[:-1, :]) / 2 - 0.1 * (x[1:, :-1] - x[:-1, :-1])
    let b = xc[1:, :] * xc[:-1, :] / (1 + xc[1:, :])
    let c = a * b + sqrt(a * a + 1)
    let m = a > b
    let yc = y[1:, 1:] * 2.0 + a
    let q = (arange(n + 1, dtype=i32)[:, newaxis] * (t + 3) + arange(n, dtype=i32)) % 7
    x[1:-1, 1:] = c[1:, :] - c[:-1, :] + where(m[1:, :], 0.01, -0.01)
    print(sum(c), sum(yc), count_nonzero(m), sum(q), c[0, 0], yc[n, n - 1], q[n, n - 1])
}
let w = rand([40, 3001])
let u = w[:, 1:] - w[:, :-1]
let v = w[:, 1:] * w[:, :-1]
let s = u / (v + 1)
print(sum(u), sum(v), sum(s), s[39, 2999], u[0, 0], v[17, 1234])
"#,
    ),
    (
        // a source that reads the region it writes: computed into a fresh
        // buffer, the rest of the old one copied beside it (`map_into_fresh`)
        "stencils into a fresh buffer",
        r#"let g = rand([61, 67])
let edge = g[0]
let middle = g[30]
for t in 0..4 {
    g[1:-1, 1:-1] = 0.2 * (g[1:-1, 1:-1] + g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:])
}
# a view taken before sees the buffer that replaced the old one
print(sum(g), g[30, 33], g[0, 5], g[60, 66], edge[7], sum(edge), middle[33] == g[30, 33], sum(middle))
let c = rand([9, 10, 11], dtype=f64)
c[1:-1, 1:, :-1] = c[1:-1, 1:, :-1] + 0.5 * c[:-2, 1:, 1:] - c[2:, :-1, :-1]
print(sum(c), c[4, 5, 6], c[0, 3, 3], c[8, 0, 10], c[4, 0, 2])
let k = reshape(arange(900, dtype=i32), [30, 30])
k[:, 3:] = k[:, 3:] + k[:, :-3] % 7
let b = k % 3 == 0
b[2:, :] = b[2:, :] != b[:-2, :]
print(sum(k), k[29, 29], k[5, 1], count_nonzero(b), b[29, 0])
let r = rand([4000])
r[1:] = r[1:] - r[:-1] * 0.5
print(sum(r), r[0], r[3999])
"#,
    ),
    (
        // reversed and transposed reads, integer and float steps, each dtype
        "generators through views",
        r#"let a = rand([3000, 7], dtype=f64)
print((transpose(a) * 2)[:, ::301], sum(transpose(a) * 2), (a[::-1, 3] * 1.5)[::250])
let b = rand([5000])
print((b[::-3] * 2)[::400], sum(b[::7] * b[::7]), sum(transpose(reshape(b, [50, 100])) * 3))
let i = arange(3, 100003, 7)
print((i[::-2] * 3)[::1000], sum(i[::5] % 11), sum(transpose(reshape(i[:14000], [140, 100])) % 13))
let j = arange(70000, dtype=i32) * 3
print(j[::9999], sum(transpose(reshape(arange(60000, dtype=i32), [200, 300]))[:, ::7] % 5))
let f = arange(0.5, 9000.5, 0.25)
print((f[::-1] * 2)[::4000], sum(transpose(reshape(f, [120, 300])) * 1.5))
let d = arange(-2.0, 2.0, 0.001, dtype=f64)
print((d * d)[::999], sum(transpose(reshape(d[::-1], [40, 100])) * 2))
"#,
    ),
];

#[test]
fn targeted_kernels_agree() {
    programs_agree(TARGETED);
}

/// Each (name, source) prints the same on the fused and the reference executor.
fn programs_agree(programs: &[(&str, &str)]) {
    let mut bad = Vec::new();
    for (name, source) in programs {
        let fused = run(CpuMode::Fused, None, source);
        let reference = run(CpuMode::Reference, None, source);
        assert!(
            !reference.contains("ERRORS"),
            "{name} failed on the reference:\n{reference}"
        );
        if let Some(why) = differ(&fused, &reference) {
            bad.push(format!("{name}: {why}\n--- fused\n{fused}\n--- reference\n{reference}"));
        }
    }
    assert!(
        bad.is_empty(),
        "fused and reference CPU executors differ:\n{}",
        bad.join("\n")
    );
}

/// The comparison can fail: a perturbed value is caught.
#[test]
fn comparison_catches_a_difference() {
    assert!(differ("x 1.0 [2, 3]", "x 1.0 [2, 3]").is_none());
    assert!(differ("x 1.0001", "x 1.0").is_some());
    assert!(differ("x 2", "x 3").is_some());
    assert!(differ("x 1.0000000001", "x 1.0").is_none());
}

// ---- scans, segmented reductions and the reduction layouts of issue 11 ----

/// Scans (tiled lines, a few long lines in three passes, many lines a line
/// per task, scans down columns), segmented reductions (values read in
/// place, strided, fused) and reductions of every dtype and view, each on
/// both executors: sizes straddle the tile (1024), group (4096) and
/// parallel (2^17) boundaries.
const SCANS_AND_SEGMENTS: &[(&str, &str)] = &[
    (
        "scans along a line",
        r#"for n in [1, 2, 7, 1023, 1024, 1025, 4095, 4096, 4097, 8193, 20000, 300001] {
    let a = rand([n])
    let c = cumsum(a)
    let w = arange(n) % 7 - 3
    print(n, c[n - 1], c[n // 2], sum(c * w), cumprod(a * 0.1 + 0.95)[n - 1], cummax(a)[n - 1], sum(cummin(a[::-1]) * w))
    let k = arange(n) % 13 - 6
    print(sum(cumsum(k) * w), cumsum(k as i32)[n - 1], max(cumprod(k % 3 + 1)), sum(cumsum(k as f64) * w), cumsum(k > 0)[n - 1], sum(cummax(k as i32) * w), sum(cummin(k as f64)))
    let b = k > 2
    print(sum(cummax(b)), sum(cummin(b)), sum(cumprod(b)), sum(cumsum(a as f64) * w), sum(cumsum(a[::2]) * (arange((n + 1) // 2) % 5)))
}
"#,
    ),
    (
        "scans of matrices and views",
        r#"let m = rand([37, 5000])
let w = reshape(arange(37 * 5000) % 9 - 4, [37, 5000])
print(sum(cumsum(m, axis=1) * w), cumsum(m, axis=1)[36, 4999], sum(cumsum(m, axis=0) * w), cumsum(m, axis=0)[36, 4999])
let t = transpose(rand([3000, 9]))
print(sum(cumsum(t, axis=1) * (arange(3000) % 4)), cumsum(t, axis=1)[8, 2999], sum(cumsum(t, axis=0) * (arange(3000) % 3)))
let s = rand([6, 9000])[:, ::-3]
print(sum(cumsum(s, axis=1) * (arange(3000) % 5)), cumsum(s, axis=1)[5, 2999], cummax(s, axis=1)[2, 1000])
let long = rand([3, 200000])
let lc = cumsum(long, axis=1)
print(lc[0, 199999], lc[2, 123456], sum(lc * (arange(200000) % 3)), cumprod(long * 0.01 + 0.995, axis=1)[1, 199999])
let many = rand([400, 3000])
print(sum(cumsum(many, axis=1) * (arange(3000) % 7)), cumsum(many, axis=1)[399, 2999], sum(cummin(many, axis=0)))
let b3 = rand([4, 300, 70])
let ww = reshape(arange(4 * 300 * 70) % 11 - 5, [4, 300, 70])
print(sum(cumsum(b3, axis=1) * ww), sum(cumsum(b3, axis=0) * ww), sum(cumsum(b3, axis=2) * ww), sum(cumsum(b3[:, :, ::2], axis=1) * ww[:, :, ::2]))
let big3 = rand([2, 3000, 100])
print(sum(cumsum(big3, axis=1) * (arange(100) % 3)), cumsum(big3, axis=1)[1, 2999, 99], sum(cummax(transpose(big3, [0, 2, 1]), axis=2)))
let ki = reshape(arange(600 * 70) % 17 - 8, [600, 70]) as i32
print(sum(cumsum(ki, axis=0)), cumsum(ki, axis=0)[599, 69], sum(cumprod(ki % 2 + 1, axis=0) % 1000), sum(cumsum(ki > 0, axis=0)))
print(cumsum(rand([0, 5]), axis=1), cumsum(rand([3, 0]), axis=1), cumsum(ones([5, 1]), axis=1), cumsum(ones([1, 5]), axis=0), cumsum(ones([4, 1]), axis=0))
"#,
    ),
    (
        "segmented reductions",
        r#"for nseg in [1, 3, 100, 5000, 60000] {
    let lens = floor(rand([nseg]) * 40) as i64
    let x = rand([sum(lens)])
    let w = arange(nseg) % 7 - 3
    let s = segsum(x, lens)
    print(nseg, sum(s * w), s[nseg - 1], sum(where(lens > 0, segmax(x, lens), 0) * w), sum(where(lens > 0, segmin(x, lens), 0)), sum(segprod(x * 0.1 + 0.95, lens) * w))
    let k = arange(sum(lens)) % 11 - 5
    print(sum(segsum(k, lens) * w), sum(segsum(k as i32, lens) * w), sum(segsum(k as f64, lens) * w), sum(segmax(k, lens) % 1000), sum(segsum(x * 2 - 1, lens) * w), sum(segmean(x, lens) > 0.5))
    let y = rand([2 * sum(lens)])
    print(sum(segsum(y[::2], lens) * w), sum(segsum(y[1:1 + sum(lens)], lens) * w), sum(segsum(x as f64, lens) * w), sum(segsum(k > 0, lens) * w))
}
print(segsum(rand([100000]), [100000]) > 0, segsum(arange(300000) % 3, [300000]), segmax(rand([0]), [0, 0]))
"#,
    ),
];

#[test]
fn scans_and_segments_agree() {
    programs_agree(SCANS_AND_SEGMENTS);
}

/// The fused reductions, scans and segmented reductions give the same bits
/// on one thread as on three: their decompositions depend only on the shape.
#[test]
fn reductions_do_not_depend_on_the_thread_count() {
    let source = r#"let a = rand([300001])
let c = cumsum(a)
let m = rand([3, 200000])
let lens = floor(rand([60000]) * 40) as i64
let x = rand([sum(lens)])
let s = segsum(x, lens)
let w = rand([256, 16384])
let t = rand([262144, 8])
let q = rand([64, 64, 64])
print(c[300000], c[150000], sum(c), cumsum(m, axis=1)[2, 199999], sum(cumsum(m, axis=0)))
print(sum(s), s[59999], sum(segmax(x * 2, lens)), sum(w), sum(w, axis=0)[16383], sum(sum(w, axis=0)))
print(sum(t, axis=1)[262143], sum(sum(t, axis=1)), sum(sum(q, axis=1)), sum(q, axis=1)[63, 63], max(w, axis=0)[7])
"#;
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        pool.install(|| run(CpuMode::Fused, None, source))
    };
    let (one, three) = (on(1), on(3));
    assert!(!one.contains("ERRORS"), "{one}");
    assert_eq!(one, three, "the result depends on the thread count");
}

/// A loop of kernels big enough to go parallel, on a pool of three threads
/// whose other workers spin between kernels (`backend::cpu::warm`), prints
/// the same as the reference executor; once the loop is over the spinners
/// stop by themselves.
#[test]
fn kernels_agree_with_workers_kept_warm() {
    let source = r#"let n = 300
let a = rand([n, n])
let b = rand([n, n], dtype=f64)
let acc = 0.0
for t in 0..40 {
    a[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    let s = sum(a * a, axis=1)
    let m = b - mean(b, axis=1, keepdims=true)
    acc = acc + sum(s) + sum(m * m) + max(exp(a) * 2.0)
}
print(acc, sum(a), a[7, 9])
"#;
    let reference = run(CpuMode::Reference, None, source);
    assert!(!reference.contains("ERRORS"), "{reference}");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .expect("a thread pool");
    let (fused, spun, left) = pool.install(|| {
        // counted, not read as the spinners running now: those stop 2 ms after
        // the last big kernel, which on a loaded machine may pass before the
        // program returns
        let before = arr::backend::cpu::warm::spinners_started();
        let fused = run(CpuMode::Fused, None, source);
        let spun = arr::backend::cpu::warm::spinners_started() - before;
        std::thread::sleep(std::time::Duration::from_millis(50));
        (fused, spun, arr::backend::cpu::warm::spinners())
    });
    if let Some(why) = differ(&fused, &reference) {
        panic!("fused on a warm pool and reference differ: {why}\n--- fused\n{fused}\n--- reference\n{reference}");
    }
    assert!(spun > 0, "no worker was kept warm during the loop");
    assert_eq!(left, 0, "workers still spinning 50 ms after the last kernel");
}
