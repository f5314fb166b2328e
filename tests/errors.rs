//! The corpus of bad programs in `tests/errors/*.arr`: each file's first line
//! (`# expect: E0200 E0100`) names the codes of the diagnostics it must give,
//! in order. Every diagnostic must point at the source (file and backend
//! errors excepted), and the plain rendering is snapshotted for review
//! (`tests/snapshots/errors__<file stem>.snap`; accept with `cargo insta review`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// Every code the implementation documents in `docs/errors.md`.
const ALL_CODES: &[&str] = &[
    "E0001", "E0002", "E0003", "E0004", "E0005", "E0006", "E0008", //
    "E0100", "E0101", "E0102", "E0103", "E0104", "E0105", "E0106", //
    "E0200", "E0201", "E0202", "E0203", "E0204", "E0205", "E0206", "E0207", "E0208", "E0209", "E0210", "E0211",
    "E0212", "E0220", "E0221", //
    "E0300", "E0301", "E0302", "E0303", "E0304", "E0305", "E0306", "E0307", "E0308", //
    "E0400", "E0401", "E0402", "E0403", "E0404", "E0405", "E0406", "E0407", "E0410", "E0411", "E0412", "E0413",
    "E0420", "E0421",
];

/// Codes that cannot come from a program run on `Session::cpu()`; each has its own test below.
const NOT_IN_CORPUS: &[&str] = &["E0404", "E0407"];

/// Errors about a file or a device may have no source position.
fn may_be_spanless(code: &str) -> bool {
    matches!(code, "E0404" | "E0407" | "E0410" | "E0411" | "E0412")
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("errors")
}

/// The `.arr` files of the corpus, sorted by name so the run order is stable.
fn corpus() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/errors/ exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "arr"))
        .collect();
    files.sort();
    files
}

/// The codes listed on the `# expect:` first line, or why the header is bad.
fn expected_codes(source: &str) -> Result<Vec<String>, String> {
    let first = source.lines().next().unwrap_or("");
    let rest = first
        .strip_prefix("# expect:")
        .ok_or_else(|| format!("first line must be `# expect: E....`, found {first:?}"))?;
    let codes: Vec<String> = rest.split_whitespace().map(str::to_string).collect();
    if codes.is_empty() {
        return Err("`# expect:` lists no code".to_string());
    }
    for code in &codes {
        let well_formed = code.len() == 5 && code.starts_with('E') && code[1..].bytes().all(|b| b.is_ascii_digit());
        if !well_formed || !ALL_CODES.contains(&code.as_str()) {
            return Err(format!("`{code}` in the header is not a documented code"));
        }
    }
    Ok(codes)
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

/// Runs one corpus file; `Err` says what is wrong with it.
fn check_file(path: &Path) -> Result<(), String> {
    let name = stem(path);
    let source = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let expected = expected_codes(&source)?;

    let mut session = arr::Session::cpu();
    let diags = match session.eval(&source) {
        Ok(_) => vec![],
        Err(diags) => diags,
    };
    let actual: Vec<&str> = diags.iter().map(|d| d.code).collect();
    if actual != expected {
        let messages: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
        return Err(format!("expected codes {expected:?}, got {actual:?}: {messages:#?}"));
    }
    for diag in &diags {
        if diag.span.is_none() && !may_be_spanless(diag.code) {
            return Err(format!("diagnostic has no span: {diag}"));
        }
    }

    let rendered = redact_available_memory(&session.render(&diags, false));
    let description = format!("tests/errors/{name}.arr:\n{source}");
    insta::with_settings!({description => description, omit_expression => true}, {
        insta::assert_snapshot!(name.as_str(), rendered);
    });
    Ok(())
}

#[test]
fn corpus_gives_expected_diagnostics() {
    let files = corpus();
    assert!(!files.is_empty(), "no .arr files in {}", corpus_dir().display());
    let mut failures = Vec::new();
    for path in &files {
        let file = format!("tests/errors/{}.arr", stem(path));
        // One broken file must not hide the results of the others.
        match catch_unwind(AssertUnwindSafe(|| check_file(path))) {
            Ok(Ok(())) => {}
            Ok(Err(why)) => failures.push(format!("{file}: {why}")),
            Err(payload) => failures.push(format!("{file}: panicked: {}", panic_text(payload.as_ref()))),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus files failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// The corpus itself is well-formed and exercises every documented code;
/// this does not need the implementation.
#[test]
fn corpus_covers_every_code() {
    let mut seen = std::collections::BTreeSet::new();
    let mut bad = Vec::new();
    for path in corpus() {
        let source = std::fs::read_to_string(&path).expect("corpus file is UTF-8");
        match expected_codes(&source) {
            Ok(codes) => seen.extend(codes),
            Err(why) => bad.push(format!("tests/errors/{}.arr: {why}", stem(&path))),
        }
    }
    assert!(bad.is_empty(), "bad headers:\n{}", bad.join("\n"));
    let missing: Vec<&str> = ALL_CODES
        .iter()
        .copied()
        .filter(|code| !seen.contains(*code) && !NOT_IN_CORPUS.contains(code))
        .collect();
    assert!(missing.is_empty(), "no corpus file expects {missing:?}");
}

/// E0404 cannot come from a program: it is how asking for a GPU fails where
/// there is none. On a machine with a usable GPU this test has nothing to check.
#[test]
fn cuda_unavailable_is_e0404() {
    match arr::Session::new(arr::BackendChoice::Cuda) {
        Ok(_) => {}
        Err(diag) => {
            assert_eq!(
                diag.code, "E0404",
                "Session::new(Cuda) failed with the wrong code: {diag}"
            );
            assert!(!diag.message.is_empty());
        }
    }
}

/// The memory a machine has free differs between machines: keep it out of snapshots.
fn redact_available_memory(text: &str) -> String {
    text.lines()
        .map(|line| match (line.find(" and "), line.find(" GiB are available")) {
            (Some(a), Some(b)) if a < b => format!("{} and [N]{}", &line[..a], &line[b..]),
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if text.ends_with('\n') { "\n" } else { "" }
}

/// Codes whose errors never depend on data: `arr check` must find them.
const STATIC_CODES: &[&str] = &[
    "E0001", "E0002", "E0003", "E0004", "E0005", "E0006", //
    "E0100", "E0101", "E0102", "E0103", "E0104", "E0105", "E0106", //
    "E0200", "E0201", "E0202", "E0203", "E0204", "E0205", "E0206", "E0207", "E0209", "E0210", "E0220", "E0221", //
    "E0300", "E0301", "E0302", "E0303", "E0304", "E0305", "E0306", "E0307", "E0406",
];

/// One program per static code (the cases of issue 12 among them), each
/// with the code both `check` and `run` must report.
const STATIC_PROGRAMS: &[(&str, &str)] = &[
    ("E0001", "let = 3"),
    ("E0002", "print((1 + 2"),
    ("E0003", "let x = 3 $ 4"),
    ("E0004", "let x = 1e"),
    ("E0005", "3 = 4"),
    ("E0006", "print(\"abc)"),
    ("E0100", "print(y)\nlet y = 1"),
    ("E0100", "print(nope)"),
    ("E0101", "print(f(1))\nfn f(x) { x + 1 }"),
    ("E0101", "print(nosuchfn(1))"),
    ("E0102", "print(exp(1.0, 2.0))"),
    ("E0103", "print(sum(ones([2]), axes=0))"),
    ("E0104", "print(sum(ones([2]), axis=0, axis=0))"),
    ("E0105", "print(hypot(1.0))"),
    ("E0106", "let a = 3\nprint(a(1))"),
    ("E0200", "print(minimum(zeros([3]), zeros([4])))"),
    ("E0200", "print(isclose(zeros([3]), zeros([4])))"),
    ("E0200", "print(zeros([3]) // zeros([2]))"),
    ("E0200", "print(add(zeros([3]), zeros([4])))"),
    ("E0300", "print(add(arange(3) > 1, true) and true)"),
    ("E0206", "print(concatenate([zeros([2, 3]), zeros([2, 4])]))"),
    ("E0305", "print(amax(ones([4]), 0.5))"),
    ("E0201", "print(nansum(ones([2]), axis=1))"),
    ("E0201", "let z = zeros([])\nprint(len(z))"),
    ("E0201", "print(roll(ones([3]), 1, axis=2))"),
    ("E0201", "print(cumsum(ones([3]), axis=1))"),
    ("E0201", "print(argmax(ones([2, 3]), axis=-3))"),
    ("E0201", "print(split(arange(6), [1, 2], axis=1))"),
    ("E0201", "print(diag(ones([2, 2, 2])))"),
    ("E0201", "print(trace(ones([3])))"),
    ("E0202", "print(ones([2, 3]) @ ones([2, 3]))"),
    ("E0221", "print(inv(ones([2, 3])))"),
    ("E0221", "print(det(ones([3])))"),
    ("E0203", "print(reshape(ones([2, 3]), [4, 2]))"),
    ("E0204", "let a = zeros([3])\nprint(a[3])"),
    ("E0205", "print(zeros([3])[1, 2])"),
    ("E0206", "print(concat([zeros([2, 3]), zeros([2, 4])]))"),
    (
        "E0207",
        "fn det2(m: f32[2, 2]) = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]\nprint(det2(zeros([3, 3])))",
    ),
    (
        "E0207",
        "fn row_sums(m: f32[n, k]) = sum(m, axis=1)\nprint(row_sums(ones([5])))",
    ),
    ("E0206", "print(stack([zeros([2]), zeros([3])]))"),
    ("E0209", "print(arange(10)[::0])"),
    ("E0210", "print(zeros([3, -2]))"),
    ("E0210", "print(split(arange(7), 3))"),
    ("E0210", "print(hsplit(ones([2, 6]), 4))"),
    ("E0300", "print(not arange(3))"),
    ("E0300", "print(rand([3]) & 1)"),
    ("E0300", "let m = arange(4) > 1\nm += 1"),
    ("E0300", "let m = arange(4) > 1\nm &= 2"),
    ("E0300", "print(~1.5)"),
    ("E0300", "print(arange(3) << 0.5)"),
    ("E0300", "print(abs(arange(3) > 1))"),
    ("E0301", "if 3 { print(1) }"),
    ("E0302", "print(ones([2]) as f17)"),
    ("E0303", "print(\"a\" + 1)"),
    ("E0304", "fn f(x) -> f32 { x > 2 }\nprint(f(3))"),
    (
        "E0304",
        "fn norm3(v: f32[3]) = sqrt(sum(v * v))\nprint(norm3(arange(3)))",
    ),
    ("E0305", "print(max(ones([4]), 0.5))"),
    ("E0306", "let (a, b) = (1, 2, 3)"),
    ("E0307", "let c = arange(3) as i32\nc[0] = 3000000000000"),
    ("E0406", "break"),
    ("E0201", "print(squeeze(zeros([2, 3]), axis=0))"),
    ("E0210", "print(eye(-2))"),
    ("E0210", "print(linspace(0.0, 1.0, -4))"),
    ("E0210", "print(arange(0.0, 1.0, 0.0))"),
    // a basic index's shape is known to `check`: a slice too short for its value, and its sum
    ("E0208", "let a = zeros([5])\na[0:2] = zeros([3])"),
    ("E0208", "let a = zeros([3])\na += ones([2, 3])"),
    ("E0300", "let a = arange(3)\na += 0.5"),
    ("E0212", "print(float(ones([3])))"),
    ("E0102", "print(int(1, 2))"),
    ("E0200", "let m = zeros([4, 3])\nprint(m[1:, ::2] + zeros([3]))"),
    ("E0303", "print(sin(\"abc\"))"),
    ("E0303", "print(maximum(ones([2]), dtype(ones([2]))))"),
    // constant counts, sections, axes and indices against known shapes, by the run's own rules
    ("E0210", "print(split(arange(10), 0))"),
    ("E0210", "print(array_split(arange(10), -1))"),
    ("E0201", "print(vsplit(arange(6), 2))"),
    ("E0210", "print(repeat(arange(3), [1, 2]))"),
    ("E0210", "print(repeat(ones([2, 3]), [1, 2], axis=1))"),
    ("E0210", "print(repeat(arange(3), -1))"),
    ("E0210", "print(tile(ones([2]), -1))"),
    ("E0204", "print(take(arange(5), 7))"),
    ("E0204", "print(take(arange(5), -6))"),
    ("E0204", "print(take(ones([2, 3]), [0, 3], axis=1))"),
    ("E0201", "print(expand_dims(ones([2, 3]), 5))"),
    ("E0201", "print(transpose(ones([2, 3]), [0, 0]))"),
    ("E0201", "print(transpose(ones([2, 3]), [0, 2]))"),
    ("E0201", "print(transpose(ones([2, 3, 4]), [1, 0]))"),
    ("E0200", "print(broadcast_to(ones([3]), [2, 4]))"),
    ("E0200", "print(broadcast_to(ones([2, 3]), [3]))"),
    ("E0221", "print(cross(ones([4]), ones([4])))"),
    ("E0221", "print(cross(ones([3, 4]), ones([3, 3]), axis=1))"),
    ("E0206", "print([[1, 2], [3]])"),
    // shapes the checker now knows: linspace's, expand_dims', a permutation's, broadcast_to's
    ("E0202", "print(linspace(0, 1, 5, dtype=f64) @ ones([3]))"),
    ("E0200", "print(expand_dims(ones([3]), 0) + ones([2, 1, 4]))"),
    ("E0200", "print(transpose(ones([2, 3]), [1, 0]) + ones([2, 3]))"),
    ("E0200", "print(broadcast_to(ones([3]), [2, 3]) + ones([3, 3]))"),
    // the index functions and NumPy's keyword names
    ("E0300", "print(unravel_index([1.5], (2, 3)))"),
    ("E0210", "print(ix_([0, 1], ones([2, 2])))"),
    ("E0104", "print(clip(arange(3), 0, 2, a_min=1))"),
    ("E0103", "print(diff(arange(3), apend=1))"),
    ("E0103", "print(full(2, fill=3))"),
    // reductions' `where=` and `initial=`, and the extreme of an empty axis
    ("E0105", "print(max(ones([2, 3]), where=ones([3]) > 0.0))"),
    ("E0200", "print(sum(ones([2, 3]), axis=0, where=ones([3, 3]) > 0.0))"),
    ("E0212", "print(min(ones([3]), initial=ones([2])))"),
    ("E0402", "print(max(zeros([0, 3]), axis=0))"),
    ("E0402", "print(nanmin(ones([2, 0]), axis=1))"),
    ("E0402", "print(argmax(zeros([0])))"),
    ("E0402", "print(argmin(ones([3, 0]), axis=1))"),
    // integer-list indices written as literals, read and assigned
    ("E0204", "let a = arange(6)\nprint(a[[1, 9]])"),
    ("E0204", "let a = zeros([3, 4])\nprint(a[:, [0, -5]])"),
    ("E0204", "let a = zeros([3, 4])\na[[0, 2], [1, 4]] = 7"),
    // pad widths, a system's right-hand side and histogram's bins and range, by the run's own rules
    ("E0210", "print(pad(zeros([3]), -1))"),
    ("E0210", "print(pad(zeros([3, 3]), (1, 2, 3)))"),
    ("E0221", "print(solve(zeros([2, 2]), zeros([3])))"),
    ("E0221", "print(solve(ones([2, 3, 3]), ones([3, 2, 1])))"),
    ("E0200", "print(solve(ones([4, 3, 3]), ones([2, 3, 1])))"),
    ("E0413", "print(histogram(arange(4), bins=0))"),
    ("E0413", "print(histogram(arange(4), bins=3, range=(2, 1)))"),
    ("E0212", "print(histogram(arange(4), bins=ones([2, 2])))"),
    // einsum's subscripts against its operands' shapes (`check::einsum::spec`)
    ("E0220", "print(einsum(\"ij,jk->ik\", ones([2, 3])))"),
    ("E0220", "print(einsum(\"ij,jk->ik\", ones([2, 3, 4]), ones([3, 4])))"),
    ("E0220", "print(einsum(\"ii->i\", ones([2, 3])))"),
    ("E0220", "print(einsum(\"ij->ii\", ones([2, 3])))"),
    ("E0220", "print(einsum(\"ij->k\", ones([2, 3])))"),
    ("E0220", "print(einsum(\"i1->i\", ones([2, 3])))"),
    ("E0220", "print(einsum(\"...ij->ij\", ones([5, 2, 3])))"),
    ("E0200", "print(einsum(\"ij,jk->ik\", ones([2, 3]), ones([4, 5])))"),
    // diff's order and operand, identity's size, dot as a matrix product
    ("E0210", "print(diff(arange(5), n=-1))"),
    ("E0201", "print(diff(ones([]), n=1))"),
    ("E0210", "print(identity(-1))"),
    ("E0202", "print(dot(ones([2, 3]), ones([4])))"),
    ("E0202", "print(dot(ones([4]), ones([3, 2])))"),
    // the shapes of eye, identity and ravel
    ("E0204", "print(eye(3)[5])"),
    ("E0200", "print(eye(3, 4) + ones([3]))"),
    ("E0200", "print(identity(3) + ones([4]))"),
    ("E0200", "print(ravel(ones([2, 3])) + ones([5]))"),
    // an index list held in a variable, read and assigned
    ("E0204", "let i = [0, 5]\nlet a = zeros([3])\nprint(a[i])"),
    ("E0204", "let i = [0, 5]\nlet a = zeros([3])\na[i] = 1"),
    // a library function's body walked with its arguments (`Checker::instance`)
    ("E0201", "print(std(ones([3, 2]), axis=(0, 0)))"),
    ("E0201", "print(var(ones([3, 2]), axis=2))"),
    ("E0413", "print(average(ones([2, 3]), weights=ones([2])))"),
    ("E0413", "print(norm(ones([3]), ord=\"fro\"))"),
    ("E0210", "print(logspace(0, 1, -2))"),
    ("E0200", "print(atleast_1d(ones([2])) + ones([3]))"),
    ("E0202", "print(atleast_2d(ones([2])) @ ones([3]))"),
    ("E0200", "print(atleast_3d(ones([2, 2])) + ones([3, 2, 1]))"),
    // builtins' argument rules, shared with the run
    ("E0212", "print(bincount([0, 1, 2], weights=ones([2])))"),
    ("E0221", "print(lstsq(ones([3, 2]), ones([4])))"),
    ("E0200", "print(full([2, 3], ones([2])))"),
    ("E0305", "print(matrix_power(ones([2, 2]), -1.5))"),
    ("E0305", "print(linspace(0, 1, 5, endpoint=2))"),
    ("E0305", "print(sum(ones([2]), keepdims=1))"),
    // a user function's body walked with its arguments, as the library's
    ("E0200", "fn f(x) = x + ones([3])\nprint(f(ones([4])))"),
    (
        "E0413",
        "fn f(n) = if n < 0 { error(\"n must not be negative\") } else { n }\nprint(f(-1))",
    ),
    ("E0413", "print(nanquantile(ones([3]), 1.5))"),
    ("E0305", "print(around(ones([3]), decimals=1.5))"),
    ("E0305", "print(linspace(0, 1, 2.5))"),
    ("E0305", "print(eye(3, k=0.5))"),
    // floats where integers are known to be wanted: an index, a shape, counts, widths
    ("E0305", "print(arange(5)[1.0])"),
    ("E0305", "print(zeros([2.5]))"),
    ("E0305", "print(ones((2, 3.0)))"),
    ("E0305", "print(tile(ones([2]), 2.5))"),
    ("E0305", "print(roll(arange(4), 1.5))"),
    ("E0305", "print(pad(ones([2]), [1.0, 2.0]))"),
    ("E0302", "print(full([2], 1, dtype=\"flaot32\"))"),
    ("E0302", "print(astype(ones([2]), \"float128\"))"),
    ("E0303", "let t = (1, 2)\nt[0] = 5"),
    ("E0201", "print(size(ones([2, 3]), axis=2))"),
    // shapes the checker now knows: outer's, flip's, the *_like functions'
    ("E0200", "print(outer(ones([2]), ones([3])) + ones([3, 3]))"),
    ("E0200", "print(flip(ones([2, 3]), axis=0) + ones([3, 2]))"),
    ("E0200", "print(zeros_like(ones([2, 3])) + ones([4]))"),
    // a tuple's index and slice step, an array unpacked, one axis where several are given
    ("E0204", "let t = (1, 2)\nprint(t[5])"),
    ("E0209", "print(shape(ones([2, 3]))[::0])"),
    ("E0306", "let (a, b) = zeros([3, 2])"),
    ("E0306", "let (a, b) = sum(ones([3]))"),
    ("E0305", "print(argmax(ones([2, 3]), axis=(0, 1)))"),
    ("E0305", "print(cumsum(ones([2, 3]), axis=(0, 1)))"),
    ("E0305", "print(sort(arange(6), axis=[0]))"),
    // library functions' refusals with messages made by f-strings, and `prod` of a known size
    ("E0413", "print(tensordot(ones([2, 3]), ones([4, 5]), axes=1))"),
    ("E0413", "print(choice(3, size=5, replace=false))"),
    ("E0204", "print(unravel_index(7, (2, 3)))"),
    // integer `//` and `%` by a constant zero, `**` a constant negative power
    ("E0400", "print(arange(5) // 0)"),
    ("E0400", "let a = arange(5)\na %= 0"),
    ("E0401", "print(arange(3) ** -1)"),
    ("E0104", "fn f(a, a) = a\nprint(f(1, 2))"),
    ("E0201", "print(unique(ones([2, 2]), axis=2))"),
    // the library's axes by `normalize_axis_index`, never modulo the rank (issue 12)
    ("E0201", "print(shape(swapaxes(zeros([2, 3]), 0, 4)))"),
    ("E0201", "print(shape(moveaxis(zeros([2, 3, 4]), 0, 3)))"),
    ("E0201", "print(shape(moveaxis(zeros([2, 3]), 0, 5)))"),
    ("E0201", "print(rot90(reshape(arange(6), [2, 3]), axes=(0, 2)))"),
    ("E0413", "print(rot90(reshape(arange(6), [2, 3]), axes=(0, 0)))"),
    ("E0413", "print(rot90(reshape(arange(6), [2, 3]), axes=(1, -1)))"),
    ("E0201", "print(gradient(arange(5) * 1.0, axis=3))"),
    ("E0201", "print(take_along_axis(arange(4), [2, 0], axis=1))"),
    ("E0201", "print(average(arange(6), axis=1, weights=[1, 2]))"),
    ("E0201", "print(average(ones([2, 3]), axis=-3, weights=[1, 2, 3]))"),
    ("E0201", "print(delete(ones([2, 3]), 0, axis=2))"),
    ("E0201", "print(normalize_axis_index(2, 2))"),
    ("E0210", "print(normalize_axis_index(0, -1))"),
    ("E0305", "print(normalize_axis_index(1.0, 2))"),
    // convolve's and correlate's modes
    (
        "E0413",
        "print(convolve(arange(3) * 1.0, arange(2) * 1.0, mode=\"bogus\"))",
    ),
    ("E0413", "print(correlate([1.0, 2.0], [1.0], mode=\"vaild\"))"),
    // a list literal written into a slice, a constant index list's selection, two `...`,
    // a string written into an array
    ("E0208", "let a = arange(6)\na[2:4] = [1, 2, 3]"),
    ("E0208", "let a = zeros([3, 4])\na[[0, 1]] = ones([3, 4])"),
    (
        "E0208",
        "let i = [0, 2]\nlet a = zeros([3, 4])\na[i, 1:] = ones([2, 4])",
    ),
    ("E0200", "let a = zeros([3, 4])\nprint(a[:, [0, 1, 3]] + ones([3, 4]))"),
    ("E0205", "print(zeros([2, 3])[..., ...])"),
    ("E0303", "let x = zeros(3)\nx[0] = \"a\""),
    // choice from an empty population, as NumPy refuses it
    ("E0413", "print(choice(0, 3))"),
    ("E0413", "print(choice(arange(0), size=(2, 1)))"),
];

fn static_codes(diags: &[arr::Diagnostic]) -> Vec<String> {
    diags.iter().map(|d| d.code.to_string()).collect()
}

#[test]
fn check_finds_every_static_error_before_running() {
    let mut failures = Vec::new();
    for code in STATIC_CODES {
        assert!(ALL_CODES.contains(code), "{code} is not documented");
        assert!(
            STATIC_PROGRAMS.iter().any(|(c, _)| c == code),
            "no program for the static code {code}"
        );
    }
    for (code, src) in STATIC_PROGRAMS {
        let mut session = arr::Session::cpu();
        session.set_output(Box::new(std::io::sink()));
        let checked = static_codes(&session.check("t.arr", src));
        if checked.first().map(String::as_str) != Some(*code) {
            failures.push(format!("check of {src:?}: {checked:?}, want {code}"));
        }
        let mut session = arr::Session::cpu();
        session.set_output(Box::new(std::io::sink()));
        let ran = match session.run_source("t.arr", src) {
            Ok(()) => vec![],
            Err(d) => static_codes(&d),
        };
        if !ran.iter().any(|c| c == code) {
            failures.push(format!("run of {src:?}: {ran:?}, want {code}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
