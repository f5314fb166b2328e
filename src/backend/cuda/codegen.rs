//! CUDA C generation: specialises the templates in `kernels/*.cu` for one
//! `KernelPlan` (dtypes, collapsed shape and strides as constants, the fused
//! expression, vector width, block size). Pure string work, so it is tested
//! on machines without a GPU; buffer offsets and random keys are always
//! run-time parameters, so loops over sliding windows reuse one module.
//!
//! A kernel comes in two kinds (`Kind`): specialised, with sizes and strides
//! as constants, and shape-generic, with them as parameters (`Param::Dim`),
//! so that one module serves every shape of a class (same strategy, vector
//! width, rank, dtypes, 32-bit indexing and pattern of zero and unit strides).
//! `classes.rs` decides which kind a kernel gets.

use crate::check::dtype::DType;
use crate::graph::op::{BinaryOp, Distribution, ReduceOp, ScanOp, UnaryOp};
use crate::graph::view::contiguous_strides;
use crate::plan::{Inst, KernelPlan, Operand, Source, Step, Strategy, steps_raise};
use std::fmt::Write;

pub(super) const PRELUDE: &str = include_str!("../../../kernels/prelude.cu");
const ELEMENTWISE: &str = include_str!("../../../kernels/elementwise.cu");
const REDUCE: &str = include_str!("../../../kernels/reduce.cu");
const SPECIAL: &str = include_str!("../../../kernels/special.cu");
const SEGMENT: &str = include_str!("../../../kernels/segment.cu");

#[path = "codegen_multi.rs"]
mod multi;
#[path = "codegen_rows.rs"]
mod rows;
#[path = "codegen_tiles.rs"]
mod tiles;

/// One kernel parameter, in launch order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    Out,
    /// Output k > 0 of a multi-output kernel (`KernelPlan::extra_outputs`, k - 1).
    OutN(usize),
    /// Scratch for per-block partials (null when the strategy needs none).
    Part,
    /// Operand k's buffer (body operands first, then epilogue operands).
    Ptr(usize),
    /// Operand k's view offset, in elements.
    Off(usize),
    /// Operand k's random key.
    Key(usize),
    /// Index buffer k (`KernelPlan::aux`), already at its view's offset.
    Aux(usize),
    /// A size or stride of a shape-generic kernel, taken from each launch's
    /// plan (`Sizes`), so that one parameter list serves every shape of a class.
    Dim(Dim),
}

/// What a shape-generic module's dimension parameter is, in the kernel's
/// iteration space (`KernelPlan::shape`, operands in `all_operands` order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// Elements of the iteration space.
    Work,
    /// Product of the kept (leading) axes: a reduction's output count.
    Rows,
    /// Product of the reduced axes.
    ReducedLen,
    /// The size of an axis.
    Size(usize),
    /// Operand k's stride along an axis.
    Stride(usize, usize),
}

/// Where a launch finds the values of its module's `Dim` parameters.
pub trait Sizes {
    fn dim(&self, d: Dim) -> i64;
}

impl Sizes for KernelPlan {
    fn dim(&self, d: Dim) -> i64 {
        let n = match d {
            Dim::Work => self.work(),
            Dim::Rows => self.shape[..self.kept].iter().product(),
            Dim::ReducedLen => self.shape[self.kept..].iter().product(),
            Dim::Size(a) => self.shape[a],
            Dim::Stride(k, a) => {
                let n = self.operands.len();
                let o = if k < n {
                    &self.operands[k]
                } else {
                    &self.epi_operands[k - n]
                };
                return o.view.strides[a] as i64;
            }
        };
        n as i64
    }
}

/// A scatter's destination view: its own iteration space, operand 0.
impl Sizes for crate::graph::view::View {
    fn dim(&self, d: Dim) -> i64 {
        let n = match d {
            Dim::Work | Dim::Rows => self.size(),
            Dim::ReducedLen => 1,
            Dim::Size(a) => self.shape[a],
            Dim::Stride(_, a) => return self.strides[a] as i64,
        };
        n as i64
    }
}

/// Whether a module's sizes and strides are constants or parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Specialised,
    Generic,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Specialised => "specialised",
            Kind::Generic => "shape-generic",
        }
    }
}

/// A generated module.
#[derive(Clone, Debug)]
pub struct Generated {
    pub source: String,
    pub params: Vec<Param>,
    /// Whether the module has a second entry point `arr_finish` (run after `arr_main`).
    pub finish: bool,
    /// Bytes of partials scratch the kernel needs.
    pub part_bytes: usize,
    /// Whether the code can set the module's `arr_error` flag (integer modulo
    /// by zero, negative integer powers), so the launcher must read it back.
    pub raises: bool,
    /// What the source was made as: a generic request for a strategy with
    /// no generic form gives a specialised module.
    pub kind: Kind,
    /// Template holes given but not in their template, or left unfilled: a
    /// codegen bug, reported by the launcher as E0499 rather than compiled.
    pub problems: Vec<String>,
    /// The plan line the source is dumped under (`ARR_DUMP_DIR`); set by the caller.
    pub label: String,
}

impl Generated {
    /// A module with one entry point and no partials scratch; `generate_kind`
    /// sets `raises` from the kernel's steps, the caller the label.
    pub fn single(source: String, params: Vec<Param>, kind: Kind) -> Generated {
        Generated {
            source,
            params,
            finish: false,
            part_bytes: 0,
            raises: false,
            kind,
            problems: Vec::new(),
            label: String::new(),
        }
    }
}

/// The sizes and strides a kernel's source names: literals in a specialised
/// kernel, parameters `dim0, dim1, ...` (recorded with their values) in a
/// generic one.
pub struct Dims {
    kind: Kind,
    used: std::cell::RefCell<Vec<Dim>>,
}

impl Dims {
    pub fn new(kind: Kind) -> Dims {
        Dims {
            kind,
            used: Default::default(),
        }
    }

    /// `d`, whose value here is `v`, as the source names it. `v` must be
    /// what `Sizes::dim` gives for `d` wherever the module can be generic
    /// (`tests/shape_classes.rs` checks that a specialised source is its
    /// generic one with these values written in).
    pub fn c(&self, d: Dim, v: impl TryInto<i64>) -> String {
        match self.kind {
            Kind::Specialised => v.try_into().unwrap_or(i64::MAX).to_string(),
            Kind::Generic => {
                let mut used = self.used.borrow_mut();
                used.push(d);
                format!("dim{}", used.len() - 1)
            }
        }
    }

    /// Appends the dimension parameters to a kernel's parameter text and list.
    fn finish(&self, text: &mut String, list: &mut Vec<Param>) {
        for (i, d) in self.used.borrow().iter().enumerate() {
            let _ = write!(text, ", i64 dim{i}");
            list.push(Param::Dim(*d));
        }
    }
}

pub fn ctype(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::U8 => "unsigned char",
        DType::I8 => "signed char",
        DType::I16 => "short",
        DType::U16 => "unsigned short",
        DType::I32 => "int",
        DType::U32 => "unsigned int",
        DType::I64 => "i64",
        DType::F32 => "float",
        DType::F64 => "double",
        // 16-bit storage that computes in float and rounds where it is stored (kernels/prelude.cu)
        DType::F16 => "arr_f16",
        DType::BF16 => "arr_bf16",
    }
}

/// The C type a reduction of dtype `d` accumulates in: float for the half
/// floats (as the CPU backend's sums do), rounded once where it is stored.
pub fn acc_ctype(d: DType) -> &'static str {
    ctype(d.compute())
}

/// A template section (`//@@ name` up to the next marker).
fn section(file: &str, name: &str) -> String {
    let marker = format!("//@@ {name}\n");
    let start = file.find(&marker).map(|s| s + marker.len()).unwrap_or(file.len());
    let end = file[start..].find("//@@ ").map(|e| start + e).unwrap_or(file.len());
    file[start..end].to_string()
}

thread_local! {
    /// Problems `fill` found while generating the current module (see `Generated::problems`).
    static PROBLEMS: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Fills `@NAME@` holes; a hole given that `s` does not have is recorded as a problem.
fn fill(s: String, holes: &[(&str, String)]) -> String {
    for (k, _) in holes {
        if !s.contains(&format!("@{k}@")) {
            PROBLEMS.with(|p| p.borrow_mut().push(format!("hole @{k}@ given but not in the template")));
        }
    }
    fill_shared(s, holes)
}

/// Fills holes that some of the templates it serves do not have (the final
/// pass over a strategy's text: `@PARAMS@`, `@ACC@`, ...).
fn fill_shared(mut s: String, holes: &[(&str, String)]) -> String {
    for (k, v) in holes {
        s = s.replace(&format!("@{k}@"), v);
    }
    s
}

/// The `@NAME@` holes left in `s`.
pub fn leftover_holes(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'@' {
            let j = b[i + 1..]
                .iter()
                .position(|c| !(c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_'))
                .map(|p| i + 1 + p);
            if let Some(j) = j
                && j > i + 1
                && b[j] == b'@'
            {
                out.push(s[i..=j].to_string());
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

fn all_operands(kp: &KernelPlan) -> Vec<&Operand> {
    kp.operands.iter().chain(&kp.epi_operands).collect()
}

/// The kernel's parameter list; `part_t` is the C type of the partials scratch.
fn params(kp: &KernelPlan, part_t: &str) -> (String, Vec<Param>) {
    let mut text = format!("{}* __restrict__ out, {part_t}* __restrict__ part", ctype(kp.out_dtype));
    let mut list = vec![Param::Out, Param::Part];
    for (k, o) in all_operands(kp).into_iter().enumerate() {
        if o.source == Source::Buffer {
            let _ = write!(text, ", const {}* __restrict__ p{k}", ctype(o.dtype));
            list.push(Param::Ptr(k));
        }
        let _ = write!(text, ", i64 off{k}");
        list.push(Param::Off(k));
        if let Source::Random { .. } = o.source {
            let _ = write!(text, ", u64 key{k}");
            list.push(Param::Key(k));
        }
    }
    (text, list)
}

fn float_lit(x: f64) -> String {
    if x.is_finite() {
        format!("{x:?}")
    } else {
        format!("__longlong_as_double({}ULL)", x.to_bits())
    }
}

/// The value of operand `k` at element offset `o` (an IDX expression).
fn load(o: &Operand, k: usize, off: &str) -> String {
    let t = ctype(o.dtype);
    match &o.source {
        Source::Buffer => format!("p{k}[{off}]"),
        Source::Arange { start, step } => {
            let v = format!("({} + (double)({off}) * {})", float_lit(*start), float_lit(*step));
            // a half float's values are the f32 ones rounded, as on the CPU
            let wide = o.dtype.compute();
            cast_expr(wide, o.dtype, &cast_expr(DType::F64, wide, &v))
        }
        Source::Random {
            dist: Distribution::Uniform,
            ..
        } if o.dtype.is_half() => {
            format!(
                "arr_uniform_half<{}>(arr_uniform_f32(key{k}, (u64)({off})))",
                ctype(o.dtype)
            )
        }
        Source::Random { dist, .. } => {
            let v = match (dist, o.dtype) {
                (Distribution::Uniform, DType::F32) => format!("arr_uniform_f32(key{k}, (u64)({off}))"),
                (Distribution::Uniform, _) => format!("arr_uniform_f64(key{k}, (u64)({off}))"),
                (Distribution::Normal, _) => format!("arr_normal_f64(key{k}, (u64)({off}))"),
            };
            let from = if matches!((dist, o.dtype), (Distribution::Uniform, DType::F32)) {
                DType::F32
            } else {
                DType::F64
            };
            if from == o.dtype {
                v
            } else if o.dtype.is_half() {
                // the CPU's half normals are its f32 normals rounded
                cast_expr(DType::F32, o.dtype, &cast_expr(from, DType::F32, &v))
            } else {
                format!("({t})({})", cast_expr(from, o.dtype, &v))
            }
        }
    }
}

fn cast_expr(from: DType, to: DType, x: &str) -> String {
    if from == to {
        return x.to_string();
    }
    match to {
        DType::Bool => format!("(({x}) != 0)"),
        DType::I32 if from.is_float() => format!("arr_to_i32((double)({x}))"),
        DType::I64 if from.is_float() => format!("arr_to_i64((double)({x}))"),
        // saturating, as the CPU's `as`
        d if d.is_narrow_int() && from.is_float() => {
            let (lo, hi) = d.int_range().unwrap_or_default();
            format!("arr_ftoi<{}>((double)({x}), {lo}.0, {hi}.0)", ctype(d))
        }
        // one half float to the other through its (exact) float value
        DType::F16 | DType::BF16 if from.is_half() => format!("(({})(float)({x}))", ctype(to)),
        // a narrow integer through its exact double, which rounds once (the
        // half types take no unsigned int)
        DType::F16 | DType::BF16 if from.is_narrow_int() => format!("(({})(double)({x}))", ctype(to)),
        _ => format!("(({})({x}))", ctype(to)),
    }
}

/// Step `i`'s expression over the earlier steps (`s{j}`) and the operands
/// (`v{k}`); `acc` and `row(k)` stand for `Inst::Acc` and `Inst::Row(k)`.
pub(super) fn step_expr(steps: &[Step], i: usize, acc: &str, row: impl Fn(usize) -> String) -> String {
    let r = |j: usize| format!("s{j}");
    let st = &steps[i];
    match &st.inst {
        Inst::Load(k) => format!("v{k}"),
        Inst::Acc => acc.to_string(),
        Inst::Row(k) => row(*k),
        Inst::Cast(a) => cast_expr(steps[*a].dtype, st.dtype, &r(*a)),
        Inst::Unary(u, a) => wrap_narrow(st.dtype, &unary(*u, steps[*a].dtype, &r(*a))),
        Inst::Binary(b, a, c) => wrap_narrow(st.dtype, &binary(*b, steps[*a].dtype, &r(*a), &r(*c))),
        Inst::Where(c, a, b) => format!("({} ? {} : {})", r(*c), r(*a), r(*b)),
    }
}

/// A narrow integer's i64 result wrapped to its range by bit operations
/// rather than left to the conversion where it is stored: NVRTC (CUDA 12,
/// H100) folded `(i64)(short)(-(i64)x)` to `-(i64)x`, so `-x` of the i16
/// minimum came out as 32768 (bench/proto/nvrtc_neg.py).
fn wrap_narrow(d: DType, e: &str) -> String {
    match d {
        DType::U8 => format!("(({e}) & 0xFF)"),
        DType::U16 => format!("(({e}) & 0xFFFF)"),
        DType::U32 => format!("(({e}) & 0xFFFFFFFFll)"),
        DType::I8 => format!("(((({e}) & 0xFF) ^ 0x80) - 0x80)"),
        DType::I16 => format!("(((({e}) & 0xFFFF) ^ 0x8000) - 0x8000)"),
        _ => e.to_string(),
    }
}

/// A unary primitive's expression comes from its line in the primitive table (`check::prim`).
/// A narrow integer computes in i64 (its operands widened here), and the
/// result wraps (`wrap_narrow`), as on the CPU (`check::dtype`).
fn unary(u: UnaryOp, d: DType, x: &str) -> String {
    if d.is_narrow_int() {
        return crate::check::prim::cuda_unary(u, DType::I64, &format!("((i64)({x}))"));
    }
    crate::check::prim::cuda_unary(u, d, x)
}

fn binary(b: BinaryOp, d: DType, x: &str, y: &str) -> String {
    if d.is_narrow_int() {
        return binary(b, DType::I64, &format!("((i64)({x}))"), &format!("((i64)({y}))"));
    }
    // the half floats compute in float
    let f = d.compute() == DType::F32;
    match b {
        BinaryOp::Add if d == DType::Bool => format!("({x} || {y})"),
        BinaryOp::Mul if d == DType::Bool => format!("({x} && {y})"),
        BinaryOp::Add => format!("({x} + {y})"),
        BinaryOp::Sub => format!("({x} - {y})"),
        BinaryOp::Mul => format!("({x} * {y})"),
        BinaryOp::Div => format!("({x} / {y})"),
        BinaryOp::Rem if d.is_float() => format!("arr_mod({x}, {y})"),
        BinaryOp::Rem => format!("arr_imod({x}, {y})"),
        BinaryOp::FloorDiv if d.is_float() => format!("arr_floordiv({x}, {y})"),
        // raises the division-by-zero flag (`steps_raise` marks the module)
        BinaryOp::FloorDiv => format!("arr_ifloordiv({x}, {y})"),
        BinaryOp::Hypot => format!("{}({x}, {y})", if f { "hypotf" } else { "hypot" }),
        BinaryOp::Pow if d.is_float() => format!("{}({x}, {y})", if f { "powf" } else { "pow" }),
        BinaryOp::Pow => format!("arr_ipow({x}, {y})"),
        BinaryOp::Min => format!("arr_min({x}, {y})"),
        BinaryOp::Max => format!("arr_max({x}, {y})"),
        BinaryOp::Atan2 => format!("{}({x}, {y})", if f { "atan2f" } else { "atan2" }),
        BinaryOp::Eq => format!("({x} == {y})"),
        BinaryOp::Ne => format!("({x} != {y})"),
        BinaryOp::Lt => format!("({x} < {y})"),
        BinaryOp::Le => format!("({x} <= {y})"),
        BinaryOp::Gt => format!("({x} > {y})"),
        BinaryOp::Ge => format!("({x} >= {y})"),
        BinaryOp::And => format!("({x} && {y})"),
        BinaryOp::Or => format!("({x} || {y})"),
        // from the primitive table (`check::prim::for_each_binary!`); on bools `& | ^` of 0 and 1
        BinaryOp::Bit(bit) => crate::check::prim::cuda_binary(bit, x, y),
    }
}

/// `__device__ RT name(args...)` evaluating SSA `steps`; operand k arrives as `v{k}`.
fn expr_fn(name: &str, steps: &[Step], ops: &[&Operand], acc: Option<DType>) -> String {
    let rt = steps.last().map(|s| s.dtype).unwrap_or(DType::F32);
    let mut args: Vec<String> = Vec::new();
    if let Some(a) = acc {
        args.push(format!("{} acc", acc_ctype(a)));
    }
    for (k, o) in ops.iter().enumerate() {
        args.push(format!("{} v{k}", ctype(o.dtype)));
    }
    let mut s = format!(
        "__device__ __forceinline__ {} {name}({}) {{\n",
        ctype(rt),
        args.join(", ")
    );
    for (i, st) in steps.iter().enumerate() {
        let e = step_expr(steps, i, "acc", |k| format!("red{k}"));
        let _ = writeln!(s, "    const {} s{i} = {e};", ctype(st.dtype));
    }
    let _ = writeln!(s, "    return s{};\n}}", steps.len().saturating_sub(1));
    s
}

/// `const IDX c{first+d} = ...` for the coordinates of linear `var` over
/// `dims`, the sizes of axes `first..` of the iteration space (`Dim::Size`;
/// a strategy with no generic form may pass other sizes).
fn unravel(d_: &Dims, var: &str, dims: &[usize], first: usize, indent: &str) -> String {
    if dims.is_empty() {
        return String::new();
    }
    let mut s = format!("{indent}IDX rem_{var} = {var};\n");
    for d in (0..dims.len()).rev() {
        if d == 0 {
            let _ = writeln!(s, "{indent}const IDX c{} = rem_{var};", first + d);
        } else {
            let size = d_.c(Dim::Size(first + d), dims[d]);
            let _ = writeln!(s, "{indent}const IDX c{} = rem_{var} % (IDX){size};", first + d);
            let _ = writeln!(s, "{indent}rem_{var} /= (IDX){size};");
        }
    }
    s
}

/// `base + c{first}*s0 + ...` over `strides`, operand k's along axes
/// `first..` (`Dim::Stride`; a strategy with no generic form may pass other
/// strides); zero strides are skipped.
fn offset(d_: &Dims, base: &str, k: usize, strides: &[isize], first: usize) -> String {
    let mut s = base.to_string();
    for (d, &st) in strides.iter().enumerate() {
        match st {
            0 => {}
            1 => {
                let _ = write!(s, " + c{}", first + d);
            }
            _ => {
                let _ = write!(s, " + c{} * (IDX){}", first + d, d_.c(Dim::Stride(k, first + d), st));
            }
        }
    }
    s
}

/// Loads `vec` lanes of every operand at offsets `offs`, applies `f_body`, and
/// hands the lane values to `sink` (which writes or accumulates `r`).
fn lanes(ops: &[&Operand], offs: &[String], inner: &[isize], vec: u32, func: &str, rt: DType, indent: &str) -> String {
    let mut s = String::new();
    for (k, o) in ops.iter().enumerate() {
        let t = ctype(o.dtype);
        let off = &offs[k];
        if vec == 1 {
            let _ = writeln!(s, "{indent}const {t} v{k}_0 = {};", load(o, k, off));
            continue;
        }
        let _ = writeln!(s, "{indent}{t} v{k}[{vec}];");
        if inner[k] == 0 {
            let _ = writeln!(
                s,
                "{indent}{{ const {t} b = {}; for (int l = 0; l < {vec}; ++l) v{k}[l] = b; }}",
                load(o, k, off)
            );
        } else if o.source == Source::Buffer {
            let _ = writeln!(
                s,
                "{indent}{{ const Vec<{t}, {vec}> q = *reinterpret_cast<const Vec<{t}, {vec}>*>(p{k} + ({off})); for (int l = 0; l < {vec}; ++l) v{k}[l] = q.x[l]; }}"
            );
        } else {
            let _ = writeln!(
                s,
                "{indent}for (int l = 0; l < {vec}; ++l) v{k}[l] = {};",
                load(o, k, &format!("({off}) + l"))
            );
        }
    }
    let args: Vec<String> = (0..ops.len())
        .map(|k| {
            if vec == 1 {
                format!("v{k}_0")
            } else {
                format!("v{k}[l]")
            }
        })
        .collect();
    let _ = writeln!(s, "{indent}{} r[{vec}];", ctype(rt));
    let _ = writeln!(s, "{indent}#pragma unroll");
    let _ = writeln!(
        s,
        "{indent}for (int l = 0; l < {vec}; ++l) r[l] = {func}({});",
        args.join(", ")
    );
    s
}

fn store_out(out_t: &str, vec: u32, at: &str, indent: &str) -> String {
    if vec == 1 {
        format!("{indent}out[{at}] = r[0];\n")
    } else {
        format!(
            "{indent}{{ Vec<{out_t}, {vec}> w; for (int l = 0; l < {vec}; ++l) w.x[l] = r[l]; *reinterpret_cast<Vec<{out_t}, {vec}>*>(out + ({at})) = w; }}\n"
        )
    }
}

fn header(kp: &KernelPlan) -> String {
    header_idx(kp.index32)
}

fn header_idx(index32: bool) -> String {
    let mut s = String::from(PRELUDE);
    let _ = writeln!(s, "\ntypedef {} IDX;\n", if index32 { "int" } else { "long long" });
    s
}

/// A kernel writing a contiguous source (`p0` at `off0`) through `view` of
/// `out` (at run-time offset `off1`): slice assignment.
pub fn scatter(dtype: DType, view: &crate::graph::view::View, kind: Kind) -> Generated {
    PROBLEMS.with(|p| p.borrow_mut().clear());
    let dims = Dims::new(kind);
    let t = ctype(dtype);
    let ind = "        ";
    let mut dst = "(IDX)off1".to_string();
    for (d, &st) in view.strides.iter().enumerate() {
        if st != 0 {
            let _ = write!(dst, " + c{d} * (IDX){}", dims.c(Dim::Stride(0, d), st));
        }
    }
    let g = format!("{ind}out[{dst}] = p0[(IDX)off0 + i];\n");
    let mut params =
        format!("{t}* __restrict__ out, {t}* __restrict__ part, const {t}* __restrict__ p0, i64 off0, i64 off1");
    let mut list = vec![Param::Out, Param::Part, Param::Ptr(0), Param::Off(0), Param::Off(1)];
    let body = fill(
        section(SPECIAL, "gather"),
        &[
            ("N", dims.c(Dim::Work, view.size())),
            ("UNRAVEL", unravel(&dims, "i", &view.shape, 0, ind)),
            ("GATHER", g),
        ],
    );
    dims.finish(&mut params, &mut list);
    let mut s = header_idx(false);
    s.push_str(&fill(body, &[("PARAMS", params)]));
    checked(Generated::single(s, list, kind))
}

/// Adds the template problems `fill` recorded and any hole left unfilled.
fn checked(mut g: Generated) -> Generated {
    g.problems = PROBLEMS.with(|p| std::mem::take(&mut *p.borrow_mut()));
    g.problems.extend(
        leftover_holes(&g.source)
            .into_iter()
            .map(|h| format!("hole {h} left unfilled")),
    );
    g
}

pub fn reduce_ident(op: ReduceOp, d: DType) -> String {
    let d = d.compute();
    let max = match d {
        DType::F32 => "__int_as_float(0x7f800000)",
        DType::F64 => "__longlong_as_double(0x7ff0000000000000LL)",
        DType::I32 => "2147483647",
        DType::I64 => "0x7fffffffffffffffLL",
        DType::Bool => "true",
        crate::storage_only_dtype!() => unreachable!("storage-only dtypes accumulate wide"),
    };
    let min = match d {
        DType::F32 => "(-__int_as_float(0x7f800000))",
        DType::F64 => "(-__longlong_as_double(0x7ff0000000000000LL))",
        DType::I32 => "(-2147483647 - 1)",
        DType::I64 => "(-0x7fffffffffffffffLL - 1)",
        DType::Bool => "false",
        crate::storage_only_dtype!() => unreachable!("storage-only dtypes accumulate wide"),
    };
    match op {
        ReduceOp::Sum | ReduceOp::Any => format!("({})0", ctype(d)),
        ReduceOp::Prod | ReduceOp::All => format!("({})1", ctype(d)),
        ReduceOp::Min => max.to_string(),
        ReduceOp::Max => min.to_string(),
        ReduceOp::ArgMin | ReduceOp::ArgMax => "(i64)0".to_string(),
    }
}

fn comb_fn(op: ReduceOp, d: DType) -> String {
    let t = acc_ctype(d);
    let e = match op {
        ReduceOp::Sum if d == DType::Bool => "a || b",
        ReduceOp::Sum => "a + b",
        ReduceOp::Prod if d == DType::Bool => "a && b",
        ReduceOp::Prod => "a * b",
        ReduceOp::Min => "arr_min(a, b)",
        ReduceOp::Max => "arr_max(a, b)",
        ReduceOp::Any => "a || b",
        ReduceOp::All => "a && b",
        ReduceOp::ArgMin | ReduceOp::ArgMax => "a",
    };
    format!("__device__ __forceinline__ {t} arr_comb({t} a, {t} b) {{ return {e}; }}\n")
}

/// The (value, index) accumulator of argmin/argmax over values of dtype `d`:
/// a NaN beats every number (the first NaN wins), then the smaller (larger)
/// value, then the smaller index, as the CPU backend's first-occurrence scan.
/// Index -1 marks the identity. The order of combining does not matter.
fn arg_fns(op: ReduceOp, d: DType) -> String {
    let t = ctype(d);
    let better = if op == ReduceOp::ArgMin { "<" } else { ">" };
    format!(
        "struct ArgAcc {{ {t} v; i64 i; }};
__device__ __forceinline__ ArgAcc arr_arg({t} v, i64 i) {{ ArgAcc r; r.v = v; r.i = i; return r; }}
__device__ __forceinline__ ArgAcc arr_arg_ident() {{ return arr_arg(({t})0, -1); }}
__device__ __forceinline__ ArgAcc arr_comb(ArgAcc a, ArgAcc b) {{
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    const bool an = a.v != a.v, bn = b.v != b.v;
    if (an || bn) return (an && bn) ? (a.i < b.i ? a : b) : (an ? a : b);
    if (b.v {better} a.v) return b;
    if (a.v {better} b.v) return a;
    return a.i < b.i ? a : b;
}}
template <> __device__ __forceinline__ ArgAcc arr_shfl_xor<ArgAcc>(ArgAcc x, int m, int w) {{
    return arr_arg(arr_shfl_xor(x.v, m, w), arr_shfl_xor(x.i, m, w));
}}
"
    )
}

/// Generates the specialised module for one kernel plan.
pub fn generate(kp: &KernelPlan) -> Generated {
    generate_kind(kp, Kind::Specialised)
}

/// Everything a kernel's shape-generic module depends on besides its `Dim`
/// values: two kernels with equal keys get the same module, source and
/// parameter list, so `classes.rs` generates it once per key (a loop over
/// shrinking slices would otherwise generate the same text at every step).
/// Sizes enter only as the rank and, per stride, whether it is 0, 1 or
/// other (`offset` and `lanes` branch on that); offsets and random keys are
/// launch parameters. `None` for a kernel whose module is not known to
/// depend on these alone: strategies with no generic form, and those whose
/// scratch size depends on the shape. `tests/shape_classes.rs` checks the
/// key against generation over many shapes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GenericKey {
    /// The strategy and its parameters that reach the source.
    strategy: [u32; 3],
    out_dtype: DType,
    reduce: Option<ReduceOp>,
    rank: usize,
    kept: usize,
    vec: u32,
    index32: bool,
    body: Vec<Step>,
    epilogue: Vec<Step>,
    /// Body operands, then epilogue operands.
    operands: Vec<OperandClass>,
    epi_count: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct OperandClass {
    dtype: DType,
    /// 0 a buffer, 1 an arange (with its start and step's bits), 2 random.
    source: (u8, u64, u64),
    dist: Option<Distribution>,
    /// Per axis: 0, 1 or 2 for a stride of 0, 1 or anything else.
    strides: Vec<u8>,
}

pub fn generic_key(kp: &KernelPlan) -> Option<GenericKey> {
    let strategy = match kp.strategy {
        Strategy::Map => [1, 0, 0],
        Strategy::Broadcast => [2, 0, 0],
        Strategy::Sliding { rows } => [3, rows, 0],
        Strategy::ReduceAll { blocks } => [4, blocks, 0],
        Strategy::ReduceRows { lanes, split: 1 } => [5, lanes, 1],
        Strategy::ReduceCols { split: 1 } => [6, 1, 0],
        Strategy::ReduceGeneral => [7, 0, 0],
        _ => return None,
    };
    let operands = all_operands(kp)
        .into_iter()
        .map(|o| OperandClass {
            dtype: o.dtype,
            source: match o.source {
                Source::Buffer => (0, 0, 0),
                Source::Arange { start, step } => (1, start.to_bits(), step.to_bits()),
                Source::Random { .. } => (2, 0, 0),
            },
            dist: match o.source {
                Source::Random { dist, .. } => Some(dist),
                _ => None,
            },
            strides: o
                .view
                .strides
                .iter()
                .map(|&s| match s {
                    0 => 0,
                    1 => 1,
                    _ => 2,
                })
                .collect(),
        })
        .collect();
    Some(GenericKey {
        strategy,
        out_dtype: kp.out_dtype,
        reduce: kp.reduce,
        rank: kp.shape.len(),
        kept: kp.kept,
        vec: kp.vec,
        index32: kp.index32,
        body: kp.body.clone(),
        epilogue: kp.epilogue.clone(),
        operands,
        epi_count: kp.epi_operands.len(),
    })
}

/// Generates the module of the given kind for one kernel plan (strategies
/// with no generic form give a specialised module: see `Generated::kind`).
pub fn generate_kind(kp: &KernelPlan, kind: Kind) -> Generated {
    PROBLEMS.with(|p| p.borrow_mut().clear());
    let mut g = match &kp.strategy {
        Strategy::Map | Strategy::Broadcast | Strategy::Sliding { .. } => elementwise(kp, kind),
        Strategy::Scan { .. }
        | Strategy::ScanRows { .. }
        | Strategy::ScanLookback { .. }
        | Strategy::MatMul
        | Strategy::Concat { .. }
        | Strategy::Take { .. } => special(kp),
        Strategy::Segmented { .. } => segment(kp),
        Strategy::RowResident { .. } => rows::generate(kp),
        Strategy::TransposeTiled { axis, .. } => tiles::generate(kp, *axis),
        Strategy::ReduceAllMulti { .. } => multi::generate(kp),
        Strategy::MapMulti { .. } => {
            // the planner makes these for the CPU only (`plan::maps`)
            let g = elementwise(kp, kind);
            PROBLEMS.with(|p| p.borrow_mut().push("a multi-output map has no CUDA kernel".to_string()));
            g
        }
        _ => reduce(kp, kind),
    };
    g.raises = steps_raise(&kp.body)
        || steps_raise(&kp.epilogue)
        || match &kp.strategy {
            Strategy::ReduceAllMulti { outs, .. } => outs.iter().any(|o| steps_raise(&o.epilogue)),
            _ => false,
        };
    checked(g)
}

fn elementwise(kp: &KernelPlan, kind: Kind) -> Generated {
    let dims = Dims::new(kind);
    let (mut ptext, mut plist) = params(kp, ctype(kp.out_dtype));
    let ops = all_operands(kp);
    let rank = kp.shape.len();
    let mut src = header(kp);
    src.push_str(&expr_fn("f_body", &kp.body, &ops, None));
    let out_t = ctype(kp.out_dtype);
    let inner: Vec<isize> = ops
        .iter()
        .map(|o| if rank == 0 { 0 } else { o.view.strides[rank - 1] })
        .collect();
    let ind = "        ";
    let body = match &kp.strategy {
        Strategy::Map => {
            let offs: Vec<String> = ops
                .iter()
                .enumerate()
                .map(|(k, o)| {
                    if rank == 0 || o.view.strides[0] == 0 {
                        format!("(IDX)off{k}")
                    } else {
                        format!("(IDX)off{k} + i")
                    }
                })
                .collect();
            let unit =
                lanes(&ops, &offs, &inner, kp.vec, "f_body", kp.out_dtype, ind) + &store_out(out_t, kp.vec, "i", ind);
            let scalar = lanes(&ops, &offs, &inner, 1, "f_body", kp.out_dtype, ind) + &store_out(out_t, 1, "i", ind);
            fill(
                section(ELEMENTWISE, "map"),
                &[
                    ("N", dims.c(Dim::Work, kp.work())),
                    ("V", kp.vec.to_string()),
                    ("UNIT", unit),
                    ("SCALAR_UNIT", scalar),
                ],
            )
        }
        Strategy::Broadcast => {
            let unit = strided_unit(&dims, &ops, &inner, kp, out_t, ind);
            fill(
                section(ELEMENTWISE, "broadcast"),
                &[
                    ("N", dims.c(Dim::Work, kp.work())),
                    ("V", kp.vec.to_string()),
                    ("UNRAVEL", unravel(&dims, "i", &kp.shape, 0, ind)),
                    ("UNIT", unit),
                ],
            )
        }
        Strategy::Sliding { rows } => {
            let ind = "                ";
            let unit = strided_unit(&dims, &ops, &inner, kp, out_t, ind);
            fill(
                section(ELEMENTWISE, "sliding"),
                &[
                    ("N0", dims.c(Dim::Size(0), kp.shape[0])),
                    ("N1", dims.c(Dim::Size(1), kp.shape[1])),
                    ("V", kp.vec.to_string()),
                    ("ROWS", rows.to_string()),
                    ("UNIT", unit),
                ],
            )
        }
        _ => String::new(),
    };
    dims.finish(&mut ptext, &mut plist);
    src.push_str(&fill(body, &[("PARAMS", ptext)]));
    Generated::single(src, plist, kind)
}

fn reduce(kp: &KernelPlan, kind: Kind) -> Generated {
    // the split rows' arrival counters are a static array sized by the row count
    let kind = match kp.strategy {
        Strategy::ReduceRows { split, .. } if split > 1 => Kind::Specialised,
        _ => kind,
    };
    let dims = Dims::new(kind);
    let rop = kp.reduce.unwrap_or(ReduceOp::Sum);
    let arg = matches!(rop, ReduceOp::ArgMin | ReduceOp::ArgMax);
    let body_t = kp.body.last().map(|s| s.dtype).unwrap_or(kp.out_dtype);
    // the accumulator: the reduction's own output dtype
    let acc = if arg {
        DType::I64
    } else if kp.epilogue.is_empty() {
        kp.out_dtype
    } else {
        kp.epilogue
            .iter()
            .find(|s| s.inst == Inst::Acc)
            .map(|s| s.dtype)
            .unwrap_or(kp.out_dtype)
    };
    // argmin/argmax carry (value, index) pairs through the same templates
    let acc_t = if arg {
        "ArgAcc".to_string()
    } else {
        acc_ctype(acc).to_string()
    };
    let acc_bytes = if arg { 16 } else { acc.compute().size_bytes() };
    let (mut ptext, mut plist) = params(kp, &acc_t);
    let body_ops: Vec<&Operand> = kp.operands.iter().collect();
    let epi_ops: Vec<&Operand> = kp.epi_operands.iter().collect();
    let nb = body_ops.len();
    let kept = kp.kept;
    let rank = kp.shape.len();
    let mut src = header(kp);
    src.push_str(&expr_fn("f_body", &kp.body, &body_ops, None));
    if !kp.epilogue.is_empty() {
        src.push_str(&expr_fn("f_epi", &kp.epilogue, &epi_ops, Some(acc)));
    }
    let ident = if arg {
        src.push_str(&arg_fns(rop, body_t));
        "arr_arg_ident()".to_string()
    } else {
        src.push_str(&comb_fn(rop, acc));
        reduce_ident(rop, acc)
    };
    let result = if arg { "a.i" } else { "a" };
    let ind = "            ";
    // row bases: kept coordinates from `row`
    let mut row_base = unravel(&dims, "row", &kp.shape[..kept], 0, ind);
    for (k, o) in body_ops.iter().enumerate() {
        let _ = writeln!(
            row_base,
            "{ind}const IDX b{k} = {};",
            offset(&dims, &format!("(IDX)off{k}"), k, &o.view.strides[..kept], 0)
        );
    }
    // the store recomputes the kept coordinates in its own scope: in some
    // templates it sits outside the block that computed the row bases
    let store = if kp.epilogue.is_empty() {
        format!("{ind}out[row] = {result};\n")
    } else {
        let mut st = format!("{ind}{{\n");
        st.push_str(&unravel(&dims, "row", &kp.shape[..kept], 0, ind));
        for (e, o) in epi_ops.iter().enumerate() {
            let k = nb + e;
            let off = offset(&dims, &format!("(IDX)off{k}"), k, &o.view.strides[..kept], 0);
            let _ = writeln!(st, "{ind}const IDX e{k} = {off};");
        }
        let args: Vec<String> = epi_ops
            .iter()
            .enumerate()
            .map(|(e, o)| load(o, nb + e, &format!("e{}", nb + e)))
            .collect();
        let mut all = vec![result.to_string()];
        all.extend(args);
        let _ = writeln!(st, "{ind}out[row] = f_epi({});\n{ind}}}", all.join(", "));
        st
    };
    let red_strides = |o: &Operand| o.view.strides[kept..].to_vec();
    // offsets of the body operands at reduced index j
    let step_offs: Vec<String> = body_ops
        .iter()
        .enumerate()
        .map(|(k, o)| offset(&dims, &format!("b{k}"), k, &red_strides(o), kept))
        .collect();
    let red_dims = kp.shape[kept..].to_vec();
    let inner: Vec<isize> = body_ops
        .iter()
        .map(|o| if rank > kept { o.view.strides[rank - 1] } else { 0 })
        .collect();
    let step_with = |vec: u32| {
        let mut s = unravel(&dims, "j", &red_dims, kept, ind);
        s.push_str(&lanes(&body_ops, &step_offs, &inner, vec, "f_body", body_t, ind));
        let value = if arg {
            "arr_arg(r[l], (i64)(j + l))".to_string()
        } else {
            cast_expr(body_t, acc, "r[l]")
        };
        let _ = writeln!(s, "{ind}for (int l = 0; l < {vec}; ++l) a = arr_comb(a, {value});");
        s
    };
    let outs: usize = kp.shape[..kept].iter().product();
    let red: usize = red_dims.iter().product();
    let common = fill(
        section(REDUCE, "common"),
        &[("ACC", acc_t.clone()), ("IDENT", ident.clone())],
    );
    let mut finish = false;
    let mut part_bytes = 0;
    let text = match &kp.strategy {
        Strategy::ReduceRows { split, .. } if *split > 1 => {
            src.push_str(&common);
            part_bytes = *split as usize * outs * acc_bytes;
            fill(
                section(REDUCE, "rows_split"),
                &[
                    ("ROW_BASE", row_base),
                    ("STEP", step_with(kp.vec)),
                    ("STORE", store),
                    ("SPLIT", split.to_string()),
                ],
            )
        }
        Strategy::ReduceRows { lanes, .. } if *lanes <= 32 => fill(
            section(REDUCE, "rows_warp"),
            &[
                ("LANES", lanes.to_string()),
                ("ROW_BASE", row_base),
                ("STEP", step_with(kp.vec)),
                ("STORE", store),
            ],
        ),
        Strategy::ReduceRows { .. } => {
            src.push_str(&common);
            fill(
                section(REDUCE, "rows_block"),
                &[("ROW_BASE", row_base), ("STEP", step_with(kp.vec)), ("STORE", store)],
            )
        }
        Strategy::ReduceAll { blocks } => {
            src.push_str(&common);
            finish = true;
            part_bytes = *blocks as usize * acc_bytes;
            fill(
                section(REDUCE, "all"),
                &[
                    ("ROW_BASE", row_base),
                    ("STEP", step_with(kp.vec)),
                    ("SCALAR_STEP", step_with(1)),
                    ("STORE", store),
                    ("BLOCKS", blocks.to_string()),
                ],
            )
        }
        Strategy::ReduceCols { split } => {
            finish = *split > 1;
            part_bytes = if finish { *split as usize * outs * acc_bytes } else { 0 };
            fill(
                section(REDUCE, "cols"),
                &[
                    ("ROW_BASE", row_base),
                    ("SCALAR_STEP", step_with(1)),
                    ("STORE", store),
                    ("SPLIT", split.to_string()),
                ],
            )
        }
        _ => {
            let mut lp = format!("{ind}{acc_t} a = {ident};\n");
            let _ = writeln!(
                lp,
                "{ind}for (IDX j = 0; j < (IDX){}; ++j) {{",
                dims.c(Dim::ReducedLen, red)
            );
            lp.push_str(&unravel(&dims, "j", &red_dims, kept, ind));
            lp.push_str(&lanes(&body_ops, &step_offs, &inner, 1, "f_body", body_t, ind));
            let value = if arg {
                "arr_arg(r[0], (i64)j)".to_string()
            } else {
                cast_expr(body_t, acc, "r[0]")
            };
            let _ = writeln!(lp, "{ind}a = arr_comb(a, {value});");
            let _ = writeln!(lp, "{ind}}}");
            fill(
                section(REDUCE, "general"),
                &[("ROW_BASE", row_base), ("GENERAL_LOOP", lp), ("STORE", store)],
            )
        }
    };
    let (rows, len) = (dims.c(Dim::Rows, outs), dims.c(Dim::ReducedLen, red));
    dims.finish(&mut ptext, &mut plist);
    let text = fill_shared(
        text,
        &[
            ("PARAMS", ptext),
            ("ACC", acc_t),
            ("IDENT", ident),
            ("ROWS", rows),
            ("LEN", len),
            ("V", kp.vec.to_string()),
        ],
    );
    src.push_str(&text);
    Generated {
        source: src,
        params: plist,
        finish,
        part_bytes,
        raises: false,
        kind,
        problems: Vec::new(),
        label: String::new(),
    }
}

fn special(kp: &KernelPlan) -> Generated {
    let dims = Dims::new(Kind::Specialised);
    let (ptext, plist) = params(kp, ctype(kp.out_dtype));
    let mut src = header(kp);
    let t = ctype(kp.out_dtype);
    let ind = "        ";
    let mut finish = false;
    let mut part_bytes = 0;
    let text = match &kp.strategy {
        Strategy::ScanRows { op, axis } | Strategy::ScanLookback { op, axis, .. } => {
            contiguous_scan(kp, *op, *axis, &mut src)
        }
        Strategy::Scan { op, axis, chunks } => {
            let rop = scan_reduce_op(*op);
            src.push_str(&comb_fn(rop, kp.out_dtype));
            let (lb, lines) = scan_line_bases(kp, *axis, ind);
            let v = &kp.operands[0].view;
            let out_strides = contiguous_strides(&kp.out_shape);
            if *chunks > 1 {
                finish = true;
                part_bytes = lines * *chunks as usize * kp.out_dtype.size_bytes();
                let common = fill(
                    section(REDUCE, "common"),
                    &[("ACC", t.into()), ("IDENT", reduce_ident(rop, kp.out_dtype))],
                );
                src.push_str(&common);
            }
            let name = if *chunks > 1 { "scan_chunked" } else { "scan" };
            // the single-chunk scan has no chunk holes
            fill_shared(
                section(SPECIAL, name),
                &[
                    ("CHUNK", crate::plan::SCAN_CHUNK.to_string()),
                    ("CHUNKS", chunks.to_string()),
                    ("LINES", lines.to_string()),
                    ("LINE_BASE", lb),
                    ("LEN", v.shape[*axis].to_string()),
                    ("IN_STRIDE", v.strides[*axis].to_string()),
                    ("OUT_STRIDE", out_strides[*axis].to_string()),
                    ("IDENT", reduce_ident(rop, kp.out_dtype)),
                ],
            )
        }
        Strategy::MatMul => {
            let (a, b) = (&kp.operands[0].view, &kp.operands[1].view);
            // a rank-3 stack: its batch axis leads (see `Op::MatMul`)
            let (ba, bb) = (a.rank() - 2, b.rank() - 2);
            let batch = |v: &crate::graph::view::View| {
                if v.rank() == 3 {
                    (v.shape[0], v.strides[0])
                } else {
                    (1, 0)
                }
            };
            fill(
                section(SPECIAL, "matmul"),
                &[
                    ("B", batch(a).0.to_string()),
                    ("ASB", batch(a).1.to_string()),
                    ("BSB", batch(b).1.to_string()),
                    ("M", a.shape[ba].to_string()),
                    ("K", a.shape[ba + 1].to_string()),
                    ("N", b.shape[bb + 1].to_string()),
                    ("AS0", a.strides[ba].to_string()),
                    ("AS1", a.strides[ba + 1].to_string()),
                    ("BS0", b.strides[bb].to_string()),
                    ("BS1", b.strides[bb + 1].to_string()),
                ],
            )
        }
        Strategy::Concat { axis } => {
            let mut g = String::new();
            let mut start = 0usize;
            let mut first = true;
            for (k, o) in kp.operands.iter().enumerate() {
                let len = o.view.shape[*axis];
                if len == 0 {
                    continue;
                }
                let end = start + len;
                let mut off = format!("(IDX)off{k}");
                for (d, &st) in o.view.strides.iter().enumerate() {
                    if st == 0 {
                        continue;
                    }
                    if d == *axis {
                        let _ = write!(off, " + (c{d} - (IDX){start}) * (IDX){st}");
                    } else {
                        let _ = write!(off, " + c{d} * (IDX){st}");
                    }
                }
                let _ = writeln!(
                    g,
                    "{ind}{}if (c{axis} < (IDX){end}) out[i] = {};",
                    if first { "" } else { "else " },
                    cast_expr(o.dtype, kp.out_dtype, &format!("p{k}[{off}]"))
                );
                first = false;
                start = end;
            }
            fill(
                section(SPECIAL, "gather"),
                &[
                    ("N", kp.out_size().to_string()),
                    ("UNRAVEL", unravel(&dims, "i", &kp.out_shape, 0, ind)),
                    ("GATHER", g),
                ],
            )
        }
        Strategy::Take { axis } => {
            let (s, ix) = (&kp.operands[0].view, &kp.operands[1].view);
            let ir = ix.rank();
            let mut idx_off = "(IDX)off1".to_string();
            for (t2, &st) in ix.strides.iter().enumerate() {
                if st != 0 {
                    let _ = write!(idx_off, " + c{} * (IDX){st}", axis + t2);
                }
            }
            let mut src_off = "(IDX)off0".to_string();
            for (d, &st) in s.strides.iter().enumerate() {
                if st == 0 {
                    continue;
                }
                if d < *axis {
                    let _ = write!(src_off, " + c{d} * (IDX){st}");
                } else if d == *axis {
                    let _ = write!(src_off, " + (IDX)pos * (IDX){st}");
                } else {
                    let _ = write!(src_off, " + c{} * (IDX){st}", d + ir - 1);
                }
            }
            let g = format!("{ind}const i64 pos = p1[{idx_off}];\n{ind}out[i] = p0[{src_off}];\n");
            fill(
                section(SPECIAL, "gather"),
                &[
                    ("N", kp.out_size().to_string()),
                    ("UNRAVEL", unravel(&dims, "i", &kp.out_shape, 0, ind)),
                    ("GATHER", g),
                ],
            )
        }
        _ => String::new(),
    };
    src.push_str(&fill_shared(text, &[("PARAMS", ptext), ("T", t.into())]));
    Generated {
        source: src,
        params: plist,
        finish,
        part_bytes,
        raises: false,
        kind: Kind::Specialised,
        problems: Vec::new(),
        label: String::new(),
    }
}

fn scan_reduce_op(op: ScanOp) -> ReduceOp {
    match op {
        ScanOp::Sum => ReduceOp::Sum,
        ScanOp::Prod => ReduceOp::Prod,
        ScanOp::Min => ReduceOp::Min,
        ScanOp::Max => ReduceOp::Max,
    }
}

/// Source that sets `ib` and `ob`, the input and output offsets where scan
/// line `line` starts (from its coordinates on the axes other than `axis`),
/// and the number of lines.
fn scan_line_bases(kp: &KernelPlan, axis: usize, ind: &str) -> (String, usize) {
    let dims = Dims::new(Kind::Specialised);
    let v = &kp.operands[0].view;
    let others: Vec<usize> = (0..v.rank()).filter(|d| *d != axis).collect();
    let line_dims: Vec<usize> = others.iter().map(|&d| v.shape[d]).collect();
    let out_strides = contiguous_strides(&kp.out_shape);
    let mut lb = unravel(&dims, "line", &line_dims, 0, ind);
    let in_s: Vec<isize> = others.iter().map(|&d| v.strides[d]).collect();
    let out_s: Vec<isize> = others.iter().map(|&d| out_strides[d]).collect();
    let _ = writeln!(lb, "{ind}const IDX ib = {};", offset(&dims, "(IDX)off0", 0, &in_s, 0));
    let _ = writeln!(lb, "{ind}const IDX ob = {};", offset(&dims, "(IDX)0", 1, &out_s, 0));
    (lb, line_dims.iter().product())
}

/// The warp-per-line and look-back scans (`kernels/special.cu`): line bases
/// from the kept coordinates, the warp tile pieces, then the entry point.
fn contiguous_scan(kp: &KernelPlan, op: ScanOp, axis: usize, src: &mut String) -> String {
    let rop = scan_reduce_op(op);
    let t = kp.out_dtype;
    src.push_str(&comb_fn(rop, t));
    let ind = "        ";
    let (lb, lines) = scan_line_bases(kp, axis, ind);
    let v = &kp.operands[0].view;
    let (name, tiles, k) = match &kp.strategy {
        Strategy::ScanLookback { tiles, .. } => (
            "scan_lookback",
            *tiles as usize,
            crate::plan::scan_lookback_unroll(kp.vec, t.size_bytes()),
        ),
        _ => ("scan_rows", 1, crate::plan::scan_unroll(kp.vec, t.size_bytes())),
    };
    let holes = [
        ("T", ctype(t).to_string()),
        ("V", kp.vec.to_string()),
        ("K", k.to_string()),
        ("LEN", v.shape[axis].to_string()),
        ("LINES", lines.to_string()),
        ("TILES", tiles.to_string()),
        ("TOTAL", (lines * tiles).to_string()),
        ("TILE", crate::plan::scan_tile(kp.vec, t.size_bytes()).to_string()),
        ("IDENT", reduce_ident(rop, t)),
        ("LINE_BASE", lb),
        ("PACKED", u8::from(t.size_bytes() <= 4).to_string()),
    ];
    // one hole list serves the warp pieces and the entry point, which use different parts of it
    src.push_str(&fill_shared(section(SPECIAL, "scan_warp"), &holes));
    fill_shared(section(SPECIAL, name), &holes)
}

/// The entry points of a segmented reduction's module, in launch order, with
/// their grids (all with blocks of 256): the stream kernel alone when every
/// segment is short; otherwise short segments, a block per medium segment,
/// chunks of long ones, then the long segments' finishing pass.
pub fn segment_launches(kp: &KernelPlan) -> Vec<(&'static str, (u32, u32))> {
    let Strategy::Segmented {
        layout,
        tile,
        block_grid,
        split_grid,
        ..
    } = &kp.strategy
    else {
        return Vec::new();
    };
    if *tile > 0 {
        return vec![("arr_main", kp.grid)];
    }
    let mut v = Vec::new();
    if layout.short > 0 {
        v.push(("arr_main", kp.grid));
    }
    if layout.block > 0 {
        v.push(("arr_block", (*block_grid, 1)));
    }
    if layout.split > 0 {
        v.push(("arr_split", (*split_grid, 1)));
        v.push(("arr_finish", ((layout.split as u32).min(65535), 1)));
    }
    v
}

fn segment(kp: &KernelPlan) -> Generated {
    let Strategy::Segmented {
        layout, tile, lanes, ..
    } = &kp.strategy
    else {
        return special(kp);
    };
    let rop = kp.reduce.unwrap_or(ReduceOp::Sum);
    let acc = kp.out_dtype;
    let body_t = kp.body.last().map(|s| s.dtype).unwrap_or(acc);
    let (mut ptext, mut plist) = params(kp, acc_ctype(acc));
    let mut args = vec!["out".to_string(), "part".to_string()];
    for (k, o) in kp.operands.iter().enumerate() {
        if o.source == Source::Buffer {
            args.push(format!("p{k}"));
        }
        args.push(format!("off{k}"));
        if let Source::Random { .. } = o.source {
            args.push(format!("key{k}"));
        }
    }
    for (k, name) in ["offs", "lay"].iter().enumerate().take(kp.aux.len()) {
        let _ = write!(ptext, ", const i64* __restrict__ {name}");
        plist.push(Param::Aux(k));
        args.push(name.to_string());
    }
    let ops: Vec<&Operand> = kp.operands.iter().collect();
    let mut src = header(kp);
    src.push_str(&expr_fn("f_body", &kp.body, &ops, None));
    src.push_str(&comb_fn(rop, acc));
    let loads: Vec<String> = ops
        .iter()
        .enumerate()
        .map(|(k, o)| {
            let stride = o.view.strides.first().copied().unwrap_or(0);
            load(o, k, &format!("(IDX)off{k} + (IDX)(j) * (IDX){stride}"))
        })
        .collect();
    let _ = writeln!(
        src,
        "#define ARR_VAL(j) ({})\n",
        cast_expr(body_t, acc, &format!("f_body({})", loads.join(", ")))
    );
    src.push_str(&fill(
        section(REDUCE, "common"),
        &[("ACC", acc_ctype(acc).into()), ("IDENT", reduce_ident(rop, acc))],
    ));
    let text = if *tile > 0 {
        fill(
            section(SEGMENT, "stream"),
            &[
                ("PARAMS", ptext),
                ("ACC", acc_ctype(acc).into()),
                ("IDENT", reduce_ident(rop, acc)),
                ("TILE", tile.to_string()),
                ("TILES", layout.tiles.to_string()),
                ("N", kp.shape.iter().product::<usize>().to_string()),
                // shared memory for the longest overhang: a power of two, to share modules
                ("EXT", layout.max_len.max(1).next_power_of_two().to_string()),
                ("LONG", crate::graph::op::SEG_STREAM_LONG.to_string()),
            ],
        )
    } else {
        fill(
            section(SEGMENT, "classes"),
            &[
                ("PARAMS", ptext),
                ("ARGS", args.join(", ")),
                ("ACC", acc_ctype(acc).into()),
                ("IDENT", reduce_ident(rop, acc)),
                ("SHORT", layout.short.to_string()),
                ("BLOCK", layout.block.to_string()),
                ("SPLIT", layout.split.to_string()),
                ("CHUNKS", layout.chunks.to_string()),
                ("SEGS", layout.segments.to_string()),
                ("CHUNK", crate::graph::op::SEG_CHUNK.to_string()),
                ("LANES", lanes.to_string()),
                ("ORDERED", (layout.ordered() as u8).to_string()),
            ],
        )
    };
    src.push_str(&text);
    Generated {
        source: src,
        params: plist,
        finish: layout.split > 0,
        part_bytes: layout.chunks * acc.compute().size_bytes(),
        raises: false,
        kind: Kind::Specialised,
        problems: Vec::new(),
        label: String::new(),
    }
}

/// The loads, fused body and store of one element of a strided elementwise
/// kernel (broadcast and sliding share it).
fn strided_unit(dims: &Dims, ops: &[&Operand], inner: &[isize], kp: &KernelPlan, out_t: &str, ind: &str) -> String {
    let offs: Vec<String> = ops
        .iter()
        .enumerate()
        .map(|(k, o)| offset(dims, &format!("(IDX)off{k}"), k, &o.view.strides, 0))
        .collect();
    lanes(ops, &offs, inner, kp.vec, "f_body", kp.out_dtype, ind) + &store_out(out_t, kp.vec, "i", ind)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEMPLATES: &[(&str, &str)] = &[
        ("prelude", PRELUDE),
        ("elementwise", ELEMENTWISE),
        ("reduce", REDUCE),
        ("special", SPECIAL),
        ("segment", SEGMENT),
        ("multi", include_str!("../../../kernels/multi.cu")),
    ];

    /// The sections of a template file: `//@@ name` markers.
    fn sections(file: &str) -> Vec<String> {
        file.lines()
            .filter_map(|l| l.strip_prefix("//@@ "))
            .map(|s| s.trim().to_string())
            .collect()
    }

    #[test]
    fn every_template_section_fills_to_code_with_no_hole_left() {
        let mut count = 0;
        for (file, text) in TEMPLATES {
            for name in sections(text) {
                let body = section(text, &name);
                let holes = leftover_holes(&body);
                assert!(!body.trim().is_empty(), "{file}/{name} is empty");
                let names: Vec<String> = holes.iter().map(|h| h.trim_matches('@').to_string()).collect();
                let given: Vec<(&str, String)> = names.iter().map(|n| (n.as_str(), "1".to_string())).collect();
                PROBLEMS.with(|p| p.borrow_mut().clear());
                let filled = fill(body.clone(), &given);
                assert!(leftover_holes(&filled).is_empty(), "{file}/{name}: {filled}");
                assert!(PROBLEMS.with(|p| p.borrow().is_empty()), "{file}/{name}");
                // a hole left out is found; a hole the section lacks is reported
                if let Some(first) = names.first() {
                    let fewer: Vec<(&str, String)> = given.iter().filter(|(n, _)| n != first).cloned().collect();
                    assert!(!leftover_holes(&fill(body.clone(), &fewer)).is_empty(), "{file}/{name}");
                }
                let mut more = given.clone();
                more.push(("NOT_A_HOLE", "x".into()));
                fill(body, &more);
                let problems = PROBLEMS.with(|p| std::mem::take(&mut *p.borrow_mut()));
                assert_eq!(
                    problems,
                    vec!["hole @NOT_A_HOLE@ given but not in the template".to_string()]
                );
                count += 1;
            }
        }
        assert!(count >= 15, "only {count} template sections found");
    }

    #[test]
    fn leftover_holes_finds_names_between_at_signs_only() {
        assert_eq!(leftover_holes("a @N@ b @V1@ c"), vec!["@N@", "@V1@"]);
        assert!(leftover_holes("x @ y @@ z @lower@").is_empty());
    }

    #[test]
    fn scatter_is_generic_only_when_asked() {
        let v = crate::graph::view::View::contiguous(&[6, 6])
            .slice_axis(0, 1, 5, 1)
            .slice_axis(1, 1, 5, 1);
        let spec = scatter(DType::F64, &v, Kind::Specialised);
        let generic = scatter(DType::F64, &v, Kind::Generic);
        assert!(spec.problems.is_empty() && generic.problems.is_empty());
        assert!(spec.params.iter().all(|p| !matches!(p, Param::Dim(_))));
        // sizes 5x5 = 25, the row stride 6 and the column size 5 become parameters
        let dims: Vec<i64> = generic
            .params
            .iter()
            .filter_map(|p| if let Param::Dim(d) = p { Some(v.dim(*d)) } else { None })
            .collect();
        assert!(dims.contains(&25) && dims.contains(&6) && dims.contains(&5), "{dims:?}");
        let w = crate::graph::view::View::contiguous(&[9, 9])
            .slice_axis(0, 2, 7, 1)
            .slice_axis(1, 2, 7, 1);
        assert_eq!(scatter(DType::F64, &w, Kind::Generic).source, generic.source);
        assert_ne!(scatter(DType::F64, &w, Kind::Specialised).source, spec.source);
    }
}
