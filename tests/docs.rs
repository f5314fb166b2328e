//! The builtin table is the documentation: `docs/builtins.md` must be what the
//! table renders to, and every builtin's example must run.
//! `UPDATE_DOCS=1 cargo test --test docs` rewrites the file.

use arr::check::builtins::BUILTINS;

fn render() -> String {
    let mut out = String::from(
        "# Builtins\n\nMade from the table in `src/check/builtins.rs` (the same table drives the checker and \
         the REPL's `:help`); `tests/docs.rs` keeps this file current.\n",
    );
    let mut category = "";
    for b in BUILTINS.iter() {
        if b.category != category {
            category = b.category;
            out.push_str(&format!(
                "\n## {category}\n\n| builtin | what it does | example |\n| --- | --- | --- |\n"
            ));
        }
        out.push_str(&format!(
            "| `{}` | {} | `{}` |\n",
            b.signature,
            b.doc.replace('|', "\\|"),
            b.example
        ));
    }
    out
}

#[test]
fn builtins_md_is_current() {
    let path = format!("{}/docs/builtins.md", env!("CARGO_MANIFEST_DIR"));
    let expected = render();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &expected).expect("write docs/builtins.md");
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/builtins.md is stale: run `UPDATE_DOCS=1 cargo test --test docs`"
    );
}

#[test]
fn every_builtin_example_runs() {
    let mut failures = Vec::new();
    for b in BUILTINS.iter() {
        if b.name == "load" || b.name == "save" {
            continue; // they touch files; tests/errors covers them
        }
        let mut session = arr::Session::cpu();
        session.set_output(Box::new(std::io::sink()));
        if let Err(d) = session.eval(b.example) {
            failures.push(format!("{}: {}", b.example, session.render(&d, false)));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every `"E0..."` code literal in `src/`, with a file that emits it.
fn emitted_codes() -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("src/ is readable") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("source is utf-8");
            let bytes = text.as_bytes();
            // `"E0` then three digits then `"`: a code as written in a `Diagnostic::new`.
            for (i, _) in text.match_indices("\"E0") {
                let code = &bytes[i + 1..(i + 7).min(bytes.len())];
                if code.len() == 6 && code[2..5].iter().all(u8::is_ascii_digit) && code[5] == b'"' {
                    let code = String::from_utf8_lossy(&code[..5]).into_owned();
                    found.push((code, path.display().to_string()));
                }
            }
        }
    }
    found.sort();
    found.dedup_by(|a, b| a.0 == b.0);
    found
}

#[test]
fn every_emitted_code_is_documented() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/errors.md")).expect("docs/errors.md");
    let codes = emitted_codes();
    // The scan must find the codes it is about, or it checks nothing.
    for sure in ["E0001", "E0007", "E0400", "E0499"] {
        assert!(codes.iter().any(|(c, _)| c == sure), "the scan missed {sure}");
    }
    let missing: Vec<String> = codes
        .iter()
        .filter(|(code, _)| !docs.contains(&format!("### {code}:")))
        .map(|(code, file)| format!("{code} (emitted in {file})"))
        .collect();
    assert!(
        missing.is_empty(),
        "codes without a `### CODE:` entry in docs/errors.md: {}",
        missing.join(", ")
    );
}

#[test]
fn errors_md_lists_codes_in_order() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/errors.md")).expect("docs/errors.md");
    let headings: Vec<&str> = docs
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .map(|l| l.split(':').next().unwrap_or(""))
        .collect();
    let mut sorted = headings.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(headings, sorted, "docs/errors.md: one entry per code, in code order");
}
