//! The embedding API and the state a REPL or a script run keeps: a `Session`.

use crate::backend::cpu::CpuBackend;
use crate::backend::cuda::lazy::LazyCuda;
use crate::check::checker::{self, Ty, TypeEnv};
use crate::check::dtype::DType;
use crate::check::shape::{describe, dims};
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::{self, Array, Backend};
use crate::interp::Interp;
use crate::interp::value::Value;
use crate::plan::DeviceInfo;
use crate::syntax::ast::{Program, StmtKind};
use crate::syntax::parse_program;
use crate::trace::Traced;
use std::path::Path;
use std::rc::Rc;

/// Which backend runs the programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    Cpu,
    Cuda,
    /// CUDA when a GPU is usable, else the CPU.
    Auto,
}

/// An array on the host: row-major elements and a shape.
#[derive(Clone, Debug, PartialEq)]
pub struct HostArray {
    pub data: HostData,
    pub shape: Vec<usize>,
}

impl HostArray {
    pub fn f32(values: Vec<f32>, shape: &[usize]) -> HostArray {
        HostArray {
            data: HostData::F32(values),
            shape: shape.to_vec(),
        }
    }

    pub fn f64(values: Vec<f64>, shape: &[usize]) -> HostArray {
        HostArray {
            data: HostData::F64(values),
            shape: shape.to_vec(),
        }
    }

    pub fn i64(values: Vec<i64>, shape: &[usize]) -> HostArray {
        HostArray {
            data: HostData::I64(values),
            shape: shape.to_vec(),
        }
    }

    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    pub fn to_f64_vec(&self) -> Vec<f64> {
        (0..self.data.len()).map(|i| self.data.get_f64(i)).collect()
    }
}

/// One source text the session has seen; spans of all of them share one space.
struct SourceChunk {
    name: String,
    text: String,
    base: usize,
}

/// The state of a REPL or a script run: variables, functions, the backend.
pub struct Session {
    interp: Interp,
    sources: Vec<SourceChunk>,
    next_base: usize,
    /// Set by `start_tracing`: records every realize for `explain` and `--profile`.
    tracer: Option<Rc<Traced>>,
    /// The device `:explain` plans for instead of asking the backend: the
    /// reference device on the CPU, whose own explain is one line per node.
    plan_device: Option<DeviceInfo>,
}

const STDLIB: &[(&str, &str)] = &[("stdlib/core.arr", include_str!("../stdlib/core.arr"))];

impl Session {
    /// A session on the CPU backend (never fails).
    pub fn cpu() -> Session {
        let mut session = Session::with_backend(Rc::new(CpuBackend::new()));
        session.plan_device = Some(DeviceInfo::reference());
        session
    }

    /// A session on the chosen backend. CUDA starts at the first computation:
    /// with `Cuda` and no usable GPU, that computation fails with E0404; with
    /// `Auto`, it runs on the CPU.
    pub fn new(choice: BackendChoice) -> Result<Session, Diagnostic> {
        match choice {
            BackendChoice::Cpu => Ok(Session::cpu()),
            // CUDA starts at the first computation (`LazyCuda`): a prompt, a
            // syntax error or a script that computes nothing never waits for it
            BackendChoice::Cuda => Ok(Session::with_backend(Rc::new(LazyCuda::new(false)))),
            BackendChoice::Auto => Ok(Session::with_backend(Rc::new(LazyCuda::new(true)))),
        }
    }

    pub fn with_backend(backend: Rc<dyn Backend>) -> Session {
        let mut session = Session::without_library(backend);
        for (name, text) in STDLIB {
            if let Err(diags) = session.load_library(name, text) {
                // The stdlib is part of the binary: failing to load it is a bug, shown rather than hidden.
                eprintln!("{}", session.render(&diags, false));
            }
        }
        session.interp.seal_library(0..session.next_base);
        session
    }

    /// A session with the builtins and constants only.
    fn without_library(backend: Rc<dyn Backend>) -> Session {
        Session {
            interp: Interp::new(backend),
            sources: Vec::new(),
            next_base: 0,
            tracer: None,
            plan_device: None,
        }
    }

    /// "cpu (16 threads)" or "cuda: NVIDIA H200 (sm_90)".
    pub fn backend_name(&self) -> String {
        self.interp.backend.describe()
    }

    pub fn backend(&self) -> Rc<dyn Backend> {
        self.interp.backend.clone()
    }

    /// From now on, records what every realize runs and how long it takes
    /// (see `explain_report` and `profile_report`).
    pub fn start_tracing(&mut self) {
        if self.tracer.is_none() {
            let traced = Rc::new(Traced::new(self.interp.backend.clone()));
            traced.start_profiling();
            self.interp.backend = traced.clone();
            self.tracer = Some(traced);
        }
    }

    /// `arr explain`: from now on, `print` writes nothing, `save` writes no
    /// file, and every realize records the kernel plan for `device` (while
    /// this session's backend still computes the values control flow reads),
    /// or, with no device, the kernels this session's own backend runs (the
    /// fused CPU executor's strategies, as its `--profile` names them).
    pub fn start_explaining(&mut self, device: Option<DeviceInfo>) {
        self.interp.out = Box::new(std::io::sink());
        self.interp.dry_run = true;
        let backend = self.interp.backend.clone();
        let traced = Rc::new(match device {
            Some(device) => Traced::planning_for(backend, device),
            None => Traced::new(backend),
        });
        self.interp.backend = traced.clone();
        self.tracer = Some(traced);
    }

    /// The plans recorded since `start_tracing`: every distinct realized graph.
    pub fn explain_report(&self) -> String {
        self.tracer.as_ref().map(|t| t.explain_report()).unwrap_or_default()
    }

    /// Timings recorded since `start_tracing`: the backend's per-kernel table
    /// where it has one, else wall time per realized graph.
    pub fn profile_report(&self) -> String {
        match &self.tracer {
            Some(t) => t.profile_report().unwrap_or_else(|| t.time_report()),
            None => String::new(),
        }
    }

    /// The same timings as JSON lines (`--profile-json`): the backend's
    /// per-kernel objects where it has them, else one per realized graph;
    /// a `summary` object last.
    pub fn profile_json(&self) -> String {
        match &self.tracer {
            Some(t) => t.profile_json().unwrap_or_else(|| t.time_json()),
            None => String::new(),
        }
    }

    /// What evaluating one expression would run, without running it.
    pub fn explain(&mut self, source: &str) -> Result<String, Vec<Diagnostic>> {
        let value = self.eval_lazily(source)?;
        let arrays: Vec<Array> = match value {
            Value::Array(a) => vec![a],
            Value::Tuple(items) => items
                .into_iter()
                .filter_map(|v| if let Value::Array(a) = v { Some(a) } else { None })
                .collect(),
            _ => vec![],
        };
        let outputs: Vec<Rc<graph::Node>> = arrays
            .iter()
            .filter(|a| !a.is_ready())
            .map(|a| a.node.clone())
            .collect();
        if outputs.is_empty() {
            return Ok("nothing to compute: the value is already there".to_string());
        }
        let nodes = graph::pending_in_order(&outputs);
        Ok(match &self.plan_device {
            Some(device) => crate::plan::plan(&nodes, &outputs, device).to_string(),
            None => self.interp.backend.explain(&nodes, &outputs),
        })
    }

    /// Sends `print` output somewhere other than stdout.
    pub fn set_output(&mut self, sink: Box<dyn std::io::Write>) {
        self.interp.out = sink;
    }

    /// Caps every array at `n` elements (E0403 beyond) for every session of
    /// this process: a fuzzer or a sandbox bounds the memory a program takes.
    pub fn set_element_limit(n: u64) {
        crate::check::shape::set_max_elements(n);
    }

    /// Sets the random seed (as `seed(n)` does).
    pub fn set_seed(&mut self, seed: u64) {
        self.interp.set_seed(seed);
    }

    fn add_source(&mut self, name: &str, text: &str) -> usize {
        let base = self.next_base;
        self.sources.push(SourceChunk {
            name: name.to_string(),
            text: text.to_string(),
            base,
        });
        // a gap of one byte keeps an end-of-input span inside its own chunk
        self.next_base += text.len() + 1;
        base
    }

    /// Parses, checks and runs `source` in this session's environment. On
    /// success returns the display text of a trailing bare expression (what
    /// the REPL echoes), if there is one.
    pub fn eval(&mut self, source: &str) -> Result<Option<String>, Vec<Diagnostic>> {
        let n = self.sources.len();
        self.eval_named(&format!("<input {n}>"), source)
    }

    /// Defines the standard library's functions. It is not checked here: it
    /// is part of the binary, a test checks it (`stdlib_passes_check`), and
    /// checking it was a sixth of every start-up.
    fn load_library(&mut self, name: &str, source: &str) -> Result<(), Vec<Diagnostic>> {
        let base = self.add_source(name, source);
        let program = parse_program(source, base)?;
        self.interp.run(&program).map(|_| ()).map_err(|d| vec![d])
    }

    fn eval_named(&mut self, name: &str, source: &str) -> Result<Option<String>, Vec<Diagnostic>> {
        let program = self.compile(name, source)?;
        let value = self.interp.run(&program).map_err(|d| vec![d])?;
        match value {
            Value::Unit => Ok(None),
            v => self.describe_value(&v).map(Some).map_err(|d| vec![d]),
        }
    }

    /// The REPL's echo of a value: its text, and its dtype and shape.
    fn describe_value(&mut self, v: &Value) -> Result<String, Diagnostic> {
        let text = self.interp.display(v)?;
        Ok(match v {
            Value::Array(a) if a.rank() == 0 => format!("{text}  ({})", a.dtype()),
            Value::Array(a) => format!("{text}\n{}", describe(Some(a.dtype()), &dims(a.shape()))),
            _ => text,
        })
    }

    /// Parses and checks a script (`name` stands for it in diagnostics)
    /// against this session's names, without running it.
    pub fn compile(&mut self, name: &str, source: &str) -> Result<Program, Vec<Diagnostic>> {
        let base = self.add_source(name, source);
        let program = parse_program(source, base)?;
        let errors = checker::check_program_with_library(&program, &self.type_env(), self.library_env());
        if errors.is_empty() { Ok(program) } else { Err(errors) }
    }

    /// Runs a script `compile` returned, in this session; again, as often as
    /// asked (`arr run --runs`), as a Python user times a compiled statement.
    pub fn run_compiled(&mut self, program: &Program) -> Result<(), Vec<Diagnostic>> {
        self.interp.run(program).map(|_| ()).map_err(|d| vec![d])
    }

    /// Runs a script given as text; `name` stands for it in diagnostics.
    pub fn run_source(&mut self, name: &str, text: &str) -> Result<(), Vec<Diagnostic>> {
        self.eval_named(name, text).map(|_| ())
    }

    /// Runs a script file (its name appears in diagnostics).
    pub fn run_file(&mut self, path: &Path) -> Result<(), Vec<Diagnostic>> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            vec![Diagnostic::spanless(
                "E0410",
                format!("cannot read `{}`: {e}", path.display()),
            )]
        })?;
        self.eval_named(&path.display().to_string(), &text).map(|_| ())
    }

    /// Every static error in `source`, without running anything.
    pub fn check(&mut self, name: &str, source: &str) -> Vec<Diagnostic> {
        let base = self.add_source(name, source);
        match parse_program(source, base) {
            Ok(program) => checker::check_program_with_library(&program, &self.type_env(), self.library_env()),
            Err(diags) => diags,
        }
    }

    /// `dtype[shape]` of an expression, without running it (`:type`).
    pub fn type_of(&mut self, source: &str) -> Result<String, Vec<Diagnostic>> {
        let value = self.eval_lazily(source)?;
        Ok(match &value {
            Value::Array(a) => describe(Some(a.dtype()), &dims(a.shape())),
            Value::Tuple(items) => format!("a tuple of {}", items.len()),
            other => other.kind_name().to_string(),
        })
    }

    /// Builds the graph of one expression without running it.
    pub fn eval_lazily(&mut self, source: &str) -> Result<Value, Vec<Diagnostic>> {
        let n = self.sources.len();
        let base = self.add_source(&format!("<input {n}>"), source);
        let program = parse_program(source, base)?;
        let [stmt] = program.stmts.as_slice() else {
            return Err(vec![Diagnostic::new(
                "E0001",
                "expected one expression",
                base..base + source.len(),
            )]);
        };
        let StmtKind::Expr(expr) = &stmt.kind else {
            return Err(vec![Diagnostic::new(
                "E0001",
                "expected an expression, not a statement",
                stmt.span.clone(),
            )]);
        };
        let errors = checker::check_program_with_library(&program, &self.type_env(), self.library_env());
        if !errors.is_empty() {
            return Err(errors);
        }
        self.interp.eval_lazy(expr).map_err(|d| vec![d])
    }

    /// What the checker may assume about the standard library's names, and
    /// the offsets of its source (`Interp::seal_library`).
    fn library_env(&self) -> Option<(TypeEnv, std::ops::Range<usize>)> {
        let (scope, span) = self.interp.library()?;
        let mut env = TypeEnv::new();
        for (name, v) in scope {
            env.insert(name.clone(), ty_of(v, &*self.interp.backend));
        }
        Some((env, span))
    }

    /// What the checker may assume about the session's variables.
    fn type_env(&self) -> TypeEnv {
        let mut env = TypeEnv::new();
        for (name, v) in &self.interp.globals {
            env.insert(name.clone(), ty_of(v, &*self.interp.backend));
        }
        env
    }

    /// Renders diagnostics from this session's sources (plain when `color` is false).
    pub fn render(&self, diags: &[Diagnostic], color: bool) -> String {
        let mut out = String::new();
        let chunk_of = |s: &std::ops::Range<usize>| {
            self.sources
                .iter()
                .rev()
                .find(|c| c.base <= s.start && s.start <= c.base + c.text.len())
        };
        let in_library =
            |s: &std::ops::Range<usize>| chunk_of(s).is_some_and(|c| STDLIB.iter().any(|(n, _)| *n == c.name));
        for d in diags {
            // An error inside the standard library (a library function refusing its
            // arguments) is shown at the user's call, the one place they can change.
            // The labels of the calls further out stay ("in this call of `f`").
            let user_call = d
                .span
                .as_ref()
                .filter(|s| in_library(s))
                .and_then(|_| d.labels.iter().position(|(s, _)| !in_library(s)));
            let moved;
            let d = match user_call {
                Some(k) => {
                    let mut m = d.clone();
                    m.span = Some(d.labels[k].0.clone());
                    m.labels = d.labels[k + 1..]
                        .iter()
                        .filter(|(s, _)| !in_library(s))
                        .cloned()
                        .collect();
                    moved = m;
                    &moved
                }
                None => d,
            };
            let chunk = d.span.as_ref().and_then(chunk_of);
            match chunk {
                None => {
                    let mut plain = d.clone();
                    plain.span = None;
                    out.push_str(&plain.render("", "", color));
                }
                Some(c) => {
                    let local =
                        |s: &std::ops::Range<usize>| s.start.saturating_sub(c.base)..s.end.saturating_sub(c.base);
                    let mut shifted = d.clone();
                    shifted.span = d.span.as_ref().map(local);
                    let end = c.base + c.text.len();
                    shifted.labels = d
                        .labels
                        .iter()
                        .filter(|(s, _)| s.start >= c.base && s.end <= end + 1)
                        .map(|(s, t)| (local(s), t.clone()))
                        .collect();
                    out.push_str(&shifted.render(&c.name, &c.text, color));
                }
            }
        }
        out
    }

    pub fn set(&mut self, name: &str, array: HostArray) -> Result<(), Diagnostic> {
        let expected: usize = array.shape.iter().product();
        if array.data.len() != expected {
            return Err(Diagnostic::spanless(
                "E0210",
                format!(
                    "`{name}`: {} elements do not fill the shape {:?}",
                    array.data.len(),
                    array.shape
                ),
            ));
        }
        let dtype = array.data.dtype();
        let buffer = self.interp.backend.adopt(array.data)?;
        self.interp.globals.insert(
            name.to_string(),
            Value::Array(Array::from_buffer(buffer, dtype, &array.shape)),
        );
        Ok(())
    }

    pub fn get(&mut self, name: &str) -> Result<HostArray, Diagnostic> {
        match self.interp.globals.get(name) {
            Some(Value::Array(a)) => {
                let a = a.clone();
                let data = graph::to_host(&*self.interp.backend, &a)?;
                Ok(HostArray {
                    data,
                    shape: a.shape().to_vec(),
                })
            }
            Some(other) => Err(Diagnostic::spanless(
                "E0303",
                format!("`{name}` is {}, not an array", other.kind_name()),
            )),
            None => Err(Diagnostic::spanless("E0100", format!("unknown name `{name}`"))),
        }
    }

    /// Names of variables and functions in scope (for completion).
    pub fn names(&self) -> Vec<String> {
        self.interp.names()
    }
}

fn ty_of(v: &Value, backend: &dyn Backend) -> Ty {
    match v {
        Value::Array(a) => {
            // Known scalar values let the checker follow shapes like `zeros([n, n])`.
            let value = if a.rank() == 0 && a.is_ready() {
                a.node
                    .buffer()
                    .and_then(|b| backend.read(&b, &a.view, a.dtype()).ok())
                    .map(|h| h.get_f64(0))
            } else {
                None
            };
            Ty::Array {
                dtype: Some(a.dtype()),
                shape: Some(dims(a.shape())),
                weak: a.weak,
                value,
            }
        }
        Value::Tuple(items) => Ty::Tuple(items.iter().map(|i| ty_of(i, backend)).collect()),
        Value::Str(text) => Ty::Str(Some(text.clone())),
        Value::DType(d) => Ty::DType(Some(*d)),
        Value::Func(f) => Ty::Func(f.clone()),
        Value::None => Ty::None,
        Value::Unit => Ty::Unit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The library is loaded unchecked at start-up (`load_library`), so it is checked here.
    #[test]
    fn stdlib_passes_check() {
        let mut session = Session::without_library(Rc::new(CpuBackend::new()));
        for (name, text) in STDLIB {
            let errors = session.check(name, text);
            assert!(errors.is_empty(), "{name}: {errors:?}");
        }
        // and the check finds what a broken library would hold
        let broken = session.check("broken", "fn f(x) { x + undefined_name }");
        assert_eq!(broken.iter().map(|d| d.code).collect::<Vec<_>>(), ["E0100"]);
    }
}
