//! The embedding API and the state a REPL or a script run keeps: a `Session`.

use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;

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
        HostArray { data: HostData::F32(values), shape: shape.to_vec() }
    }

    pub fn f64(values: Vec<f64>, shape: &[usize]) -> HostArray {
        HostArray { data: HostData::F64(values), shape: shape.to_vec() }
    }

    pub fn i64(values: Vec<i64>, shape: &[usize]) -> HostArray {
        HostArray { data: HostData::I64(values), shape: shape.to_vec() }
    }

    pub fn dtype(&self) -> DType {
        self.data.dtype()
    }

    pub fn to_f64_vec(&self) -> Vec<f64> {
        (0..self.data.len()).map(|i| self.data.get_f64(i)).collect()
    }
}

pub struct Session {}

impl Session {
    /// A session on the CPU backend (never fails).
    pub fn cpu() -> Session {
        todo!()
    }

    /// A session on the chosen backend; `Cuda` fails with a diagnostic when no GPU is usable.
    pub fn new(choice: BackendChoice) -> Result<Session, Diagnostic> {
        let _ = choice;
        todo!()
    }

    /// "cpu (16 threads)" or "cuda: NVIDIA H200 (sm_90)".
    pub fn backend_name(&self) -> String {
        todo!()
    }

    /// Sends `print` output (and REPL echoes) somewhere other than stdout.
    pub fn set_output(&mut self, sink: Box<dyn std::io::Write>) {
        let _ = sink;
        todo!()
    }

    /// Parses, checks and runs `source` in this session's environment. On
    /// success returns the display text of a trailing bare expression (what
    /// the REPL echoes), if there is one.
    pub fn eval(&mut self, source: &str) -> Result<Option<String>, Vec<Diagnostic>> {
        let _ = source;
        todo!()
    }

    /// Runs a script file (its name appears in diagnostics).
    pub fn run_file(&mut self, path: &std::path::Path) -> Result<(), Vec<Diagnostic>> {
        let _ = path;
        todo!()
    }

    /// Every static error in `source`, without running anything.
    pub fn check(&mut self, name: &str, source: &str) -> Vec<Diagnostic> {
        let _ = (name, source);
        todo!()
    }

    /// `dtype[shape]` of an expression, without running it (`:type`).
    pub fn type_of(&mut self, source: &str) -> Result<String, Vec<Diagnostic>> {
        let _ = source;
        todo!()
    }

    /// Renders diagnostics from this session's sources (plain when `color` is false).
    pub fn render(&self, diags: &[Diagnostic], color: bool) -> String {
        let _ = (diags, color);
        todo!()
    }

    pub fn set(&mut self, name: &str, array: HostArray) -> Result<(), Diagnostic> {
        let _ = (name, array);
        todo!()
    }

    pub fn get(&mut self, name: &str) -> Result<HostArray, Diagnostic> {
        let _ = name;
        todo!()
    }

    /// Names of variables and functions in scope (for completion).
    pub fn names(&self) -> Vec<String> {
        todo!()
    }
}
