//! `explain` and `--profile` for any backend: a wrapper that records what
//! each realize runs (the backend's own plan text) and how long it takes,
//! while delegating the work itself.

use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::view::View;
use crate::graph::{Array, Backend, Buffer, Node};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// One distinct graph that was realized, how often, and the time it took.
struct Entry {
    plan: String,
    count: usize,
    total: Duration,
}

pub struct Traced {
    inner: Rc<dyn Backend>,
    entries: RefCell<Vec<Entry>>,
}

impl Traced {
    pub fn new(inner: Rc<dyn Backend>) -> Traced {
        Traced { inner, entries: RefCell::new(Vec::new()) }
    }

    /// Every distinct plan, in the order first seen, with how often it ran.
    pub fn explain_report(&self) -> String {
        let entries = self.entries.borrow();
        let mut out = String::new();
        for (k, e) in entries.iter().enumerate() {
            let times = if e.count == 1 { String::new() } else { format!(" (ran {} times)", e.count) };
            out.push_str(&format!("realize {}{times}:\n", k + 1));
            for line in e.plan.lines() {
                out.push_str(&format!("  {line}\n"));
            }
        }
        if out.is_empty() {
            out.push_str("nothing was computed\n");
        }
        out
    }

    /// Wall time per distinct realized graph (what `--profile` shows on the CPU).
    pub fn time_report(&self) -> String {
        let entries = self.entries.borrow();
        let mut out = String::from("realize  runs   total ms   mean ms  first kernel\n");
        let mut sum = Duration::ZERO;
        for (k, e) in entries.iter().enumerate() {
            sum += e.total;
            let first = e.plan.lines().next().unwrap_or("");
            out.push_str(&format!(
                "{:>7} {:>5} {:>10.3} {:>9.3}  {}\n",
                k + 1,
                e.count,
                e.total.as_secs_f64() * 1e3,
                e.total.as_secs_f64() * 1e3 / e.count as f64,
                first
            ));
        }
        out.push_str(&format!("total: {:.3} ms in {} distinct graphs\n", sum.as_secs_f64() * 1e3, entries.len()));
        out
    }
}

impl Backend for Traced {
    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn execute(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Result<(), Diagnostic> {
        // Node ids differ between loop iterations; the plan text without them is what repeats.
        let plan = self.inner.explain(nodes, outputs);
        let start = Instant::now();
        let result = self.inner.execute(nodes, outputs);
        let elapsed = start.elapsed();
        let key = strip_ids(&plan);
        let mut entries = self.entries.borrow_mut();
        match entries.iter_mut().find(|e| strip_ids(&e.plan) == key) {
            Some(e) => {
                e.count += 1;
                e.total += elapsed;
            }
            None => entries.push(Entry { plan, count: 1, total: elapsed }),
        }
        result
    }

    fn read(&self, buffer: &Buffer, view: &View, dtype: DType) -> Result<HostData, Diagnostic> {
        self.inner.read(buffer, view, dtype)
    }

    fn write(&self, dst: &Buffer, dst_view: &View, src: &Array) -> Result<(), Diagnostic> {
        self.inner.write(dst, dst_view, src)
    }

    fn adopt(&self, data: HostData) -> Result<Buffer, Diagnostic> {
        self.inner.adopt(data)
    }

    fn explain(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> String {
        self.inner.explain(nodes, outputs)
    }

    fn start_profiling(&self) {
        self.inner.start_profiling()
    }

    fn profile_report(&self) -> Option<String> {
        self.inner.profile_report()
    }
}

/// The plan text with `#123` node numbers replaced, so repeated graphs compare equal.
fn strip_ids(plan: &str) -> String {
    let mut out = String::with_capacity(plan.len());
    let mut chars = plan.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '#' {
            while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars.next();
            }
        }
    }
    out
}
