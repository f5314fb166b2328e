//! `explain` and `--profile` for any backend: a wrapper that records what
//! each realize runs (the backend's own plan text, or the kernel planner's
//! plan for a chosen device) and how long it takes, while delegating the work
//! itself.

use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::view::View;
use crate::graph::{Array, Backend, Buffer, Node};
use crate::plan::DeviceInfo;
use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

/// One distinct graph that was realized, and the wall time of every run of it.
struct Entry {
    plan: String,
    times: Vec<Duration>,
}

impl Entry {
    fn total(&self) -> Duration {
        self.times.iter().sum()
    }

    fn median_ms(&self) -> f64 {
        median(self.times.iter().map(|t| t.as_secs_f64() * 1e3).collect())
    }
}

/// The median (the mean of the two middle values for an even count); 0 when empty.
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// `s` as a JSON string literal.
pub fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A number for JSON: NaN and infinities (which JSON lacks) become null.
pub fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".to_string()
    }
}

pub struct Traced {
    inner: Rc<dyn Backend>,
    entries: RefCell<Vec<Entry>>,
    /// Entry by its plan text without node ids: a loop whose every step has
    /// new shapes (LU) records thousands of distinct plans, and comparing
    /// each new one with every entry made `--profile` and `explain` quadratic
    /// (LU of 1000 took seconds to explain).
    by_text: RefCell<HashMap<String, usize>>,
    /// When set, the plan recorded is the planner's for this device rather
    /// than the inner backend's own text (`arr --backend cuda explain` on a
    /// machine that runs the program on the CPU).
    target: Option<DeviceInfo>,
    /// For a GPU target: the shape classes the CUDA backend would have met,
    /// so that each kernel's line says which module it gets.
    classes: RefCell<crate::backend::cuda::classes::ShapeClasses>,
}

impl Traced {
    /// One more run of a plan: node ids differ between loop iterations, so
    /// the plan text without them is what repeats.
    fn record(&self, plan: String, elapsed: std::time::Duration) {
        let key = strip_ids(&plan);
        let mut entries = self.entries.borrow_mut();
        let mut by_text = self.by_text.borrow_mut();
        match by_text.get(&key) {
            Some(&k) => entries[k].times.push(elapsed),
            None => {
                by_text.insert(key, entries.len());
                entries.push(Entry {
                    plan,
                    times: vec![elapsed],
                });
            }
        }
    }

    pub fn new(inner: Rc<dyn Backend>) -> Traced {
        Traced {
            inner,
            entries: RefCell::new(Vec::new()),
            by_text: RefCell::new(HashMap::default()),
            target: None,
            classes: Default::default(),
        }
    }

    /// Records the kernel plan for `device` while `inner` does the work.
    pub fn planning_for(inner: Rc<dyn Backend>, device: DeviceInfo) -> Traced {
        Traced {
            target: Some(device),
            ..Traced::new(inner)
        }
    }

    /// Every distinct plan, in the order first seen, with how often it ran.
    pub fn explain_report(&self) -> String {
        let entries = self.entries.borrow();
        let mut out = String::new();
        for (k, e) in entries.iter().enumerate() {
            let times = if e.times.len() == 1 {
                String::new()
            } else {
                format!(" (ran {} times)", e.times.len())
            };
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
        let mut out = String::from("realize  runs   total ms  median ms  first ms  first kernel\n");
        let mut sum = Duration::ZERO;
        for (k, e) in entries.iter().enumerate() {
            sum += e.total();
            let first = e.plan.lines().next().unwrap_or("");
            out.push_str(&format!(
                "{:>7} {:>5} {:>10.3} {:>10.3} {:>9.3}  {}\n",
                k + 1,
                e.times.len(),
                e.total().as_secs_f64() * 1e3,
                e.median_ms(),
                e.times.first().map_or(0.0, |t| t.as_secs_f64() * 1e3),
                first
            ));
        }
        out.push_str(&format!(
            "total: {:.3} ms in {} distinct graphs\n",
            sum.as_secs_f64() * 1e3,
            entries.len()
        ));
        out
    }

    /// The same as `time_report`, one JSON object a line: a `realize` object per
    /// distinct graph, then a `summary`.
    pub fn time_json(&self) -> String {
        let entries = self.entries.borrow();
        let mut out = String::new();
        let mut sum = Duration::ZERO;
        for (k, e) in entries.iter().enumerate() {
            sum += e.total();
            let ms = |t: &Duration| t.as_secs_f64() * 1e3;
            out.push_str(&format!(
                "{{\"kind\": \"realize\", \"index\": {}, \"plan\": {}, \"steps\": {}, \"runs\": {}, \"median_ms\": {}, \"first_ms\": {}, \"total_ms\": {}}}\n",
                k + 1,
                json_str(e.plan.lines().next().unwrap_or("")),
                e.plan.lines().count(),
                e.times.len(),
                json_num(e.median_ms()),
                json_num(e.times.first().map_or(0.0, ms)),
                json_num(ms(&e.total())),
            ));
        }
        out.push_str(&format!(
            "{{\"kind\": \"summary\", \"backend\": {}, \"graphs\": {}, \"total_ms\": {}}}\n",
            json_str(&self.inner.describe()),
            entries.len(),
            json_num(sum.as_secs_f64() * 1e3)
        ));
        out
    }
}

impl Backend for Traced {
    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn execute(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Result<(), Diagnostic> {
        let plan = self.explain(nodes, outputs);
        let start = Instant::now();
        let result = self.inner.execute(nodes, outputs);
        self.record(plan, start.elapsed());
        result
    }

    fn read(&self, buffer: &Buffer, view: &View, dtype: DType) -> Result<HostData, Diagnostic> {
        self.inner.read(buffer, view, dtype)
    }

    fn write(&self, dst: &Buffer, dst_view: &View, src: &Array) -> Result<(), Diagnostic> {
        self.inner.write(dst, dst_view, src)
    }

    fn write_pending(&self, dst: &Buffer, dst_view: &View, src: &Array) -> Result<bool, Diagnostic> {
        if self.target.is_some() {
            // explaining for a GPU, whose slice assignment realizes and then
            // copies: the source is planned as a realize of its own
            return Ok(false);
        }
        let start = Instant::now();
        let done = self.inner.write_pending(dst, dst_view, src)?;
        let elapsed = start.elapsed();
        if done {
            // the source's nodes are still pending (they went into the destination);
            // its plan is recorded as any realize's, marked as written in place
            let order = crate::graph::pending_in_order(std::slice::from_ref(&src.node));
            let plan = format!("into {}", self.inner.explain(&order, std::slice::from_ref(&src.node)));
            self.record(plan, elapsed);
        }
        Ok(done)
    }

    fn adopt(&self, data: HostData) -> Result<Buffer, Diagnostic> {
        self.inner.adopt(data)
    }

    fn explain(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> String {
        match &self.target {
            Some(device) if device.gpu_kernels => self
                .classes
                .borrow_mut()
                .explain(&crate::plan::plan(nodes, outputs, device)),
            Some(device) => crate::plan::plan(nodes, outputs, device).to_string(),
            None => self.inner.explain(nodes, outputs),
        }
    }

    fn start_profiling(&self) {
        self.inner.start_profiling()
    }

    fn start_up_time(&self) -> std::time::Duration {
        self.inner.start_up_time()
    }

    fn profile_report(&self) -> Option<String> {
        self.inner.profile_report()
    }

    fn profile_json(&self) -> Option<String> {
        self.inner.profile_json()
    }

    fn profiling(&self) -> bool {
        self.inner.profiling()
    }

    fn record_host(&self, name: &str, label: &str, elapsed: Duration, bytes: u64) {
        self.inner.record_host(name, label, elapsed, bytes)
    }

    fn lu(&self, job: crate::graph::linalg::LuJob, a: &Array, b: Option<&Array>) -> Option<Result<Array, Diagnostic>> {
        self.inner.lu(job, a, b)
    }

    fn bincount(&self, x: &Array, weights: Option<&Array>, minlength: usize) -> Option<Result<Array, Diagnostic>> {
        self.inner.bincount(x, weights, minlength)
    }

    fn sort(&self, x: &Array, argsort: bool) -> Option<Result<Array, Diagnostic>> {
        self.inner.sort(x, argsort)
    }

    fn compress(&self, x: Option<&Array>, mask: &Array) -> Option<Result<Array, Diagnostic>> {
        self.inner.compress(x, mask)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_plans_are_grouped_by_their_text_without_ids() {
        let t = Traced::new(Rc::new(crate::backend::cpu::CpuBackend::new()));
        let ms = Duration::from_millis;
        t.record("map #1 -> #2".into(), ms(1));
        t.record("sum #3".into(), ms(2));
        t.record("map #7 -> #19".into(), ms(3));
        t.record("map #7 -> t19".into(), ms(4));
        let entries = t.entries.borrow();
        let seen: Vec<(&str, usize)> = entries.iter().map(|e| (e.plan.as_str(), e.times.len())).collect();
        assert_eq!(seen, vec![("map #1 -> #2", 2), ("sum #3", 1), ("map #7 -> t19", 1)]);
        assert_eq!(entries[0].times, vec![ms(1), ms(3)]);
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(vec![5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(vec![]), 0.0);
    }

    #[test]
    fn json_strings_and_numbers_are_valid_json() {
        assert_eq!(json_str("a\"b\\c\nd\u{1}"), r#""a\"b\\c\nd\u0001""#);
        assert_eq!(json_num(1.5), "1.5");
        assert_eq!(json_num(f64::NAN), "null");
        assert_eq!(json_num(f64::INFINITY), "null");
    }
}
