//! Language tests written in Arr: each `tests/cases/*.arr` prints values and
//! states the expected output, worked out by hand, in `# out:` lines.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

/// A `Write` that the test can read back after the session has written to it.
#[derive(Clone, Default)]
struct Captured(Rc<RefCell<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn run_case(name: &str) {
    let path = format!("{}/tests/cases/{name}.arr", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("case file");
    let expected: Vec<&str> = source
        .lines()
        .filter_map(|l| l.strip_prefix("# out: ").or_else(|| (l == "# out:").then_some("")))
        .collect();
    assert!(!expected.is_empty(), "{name}: no `# out:` lines");
    let mut session = arr::Session::cpu();
    let out = Captured::default();
    session.set_output(Box::new(out.clone()));
    if let Err(diags) = session.eval(&source) {
        panic!("{name} failed:\n{}", session.render(&diags, false));
    }
    let printed = String::from_utf8(out.0.borrow().clone()).expect("utf-8 output");
    let printed: Vec<&str> = printed.lines().collect();
    for (k, (got, want)) in printed.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "{name}: output line {} differs", k + 1);
    }
    assert_eq!(
        printed.len(),
        expected.len(),
        "{name}: {} lines printed, {} expected",
        printed.len(),
        expected.len()
    );
}

macro_rules! cases {
    ($($name:ident),*) => { $( #[test] fn $name() { run_case(stringify!($name)); } )* };
}

cases!(
    arithmetic, views, reductions, functions, control, builtins, stdlib, segments
);
