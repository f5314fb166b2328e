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
    for b in BUILTINS {
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
    for b in BUILTINS {
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
