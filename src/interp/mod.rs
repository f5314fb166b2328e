//! The interpreter: statements, control flow, environments, calls of
//! builtins and user functions. It builds the lazy graph and realizes it
//! where a value must exist (printing, conditions, static arguments, the end
//! of a loop iteration, slice assignment).

mod builtins;
mod decomp;
mod fstring;
mod index;
mod npfuncs;
mod shape_linalg;
mod statics;
pub mod value;

use crate::backend::cpu::kernels::Num;
use crate::check::builtins::{CallArg, bind};
use crate::check::checker::unknown_dtype;
use crate::check::dtype::DType;
use crate::check::shape::{self, Dim, describe, dims};
use crate::diag::{Diagnostic, closest};
use crate::graph::build;
use crate::graph::data::HostData;
use crate::graph::op::UnaryOp;
use crate::graph::segment_index::SegmentIndexCache;
use crate::graph::{self, Array, Backend};
use crate::syntax::ast::*;
use rustc_hash::FxHashSet;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;
use std::rc::Rc;
use value::Value;

pub type R<T> = Result<T, Diagnostic>;

/// How deep user functions may call each other before E0405.
const MAX_CALL_DEPTH: usize = 200;
/// Pending chains longer than this are realized after a statement, so that
/// long straight-line programs keep small graphs.
const MAX_PENDING_DEPTH: usize = 48;

/// How a statement list ended.
enum Flow {
    Normal(Value),
    Break(Span),
    Continue(Span),
}

pub struct Interp {
    pub backend: Rc<dyn Backend>,
    pub globals: Scope,
    /// The global names that may hold a pending value: pending values enter
    /// a scope only through `define`, which notes them here, so the end of a
    /// loop iteration at top level looks at these rather than at every global
    /// (the standard library's functions and constants are most of them).
    pending_globals: Names,
    /// One scope per active user-function call; empty at top level.
    frames: Vec<Scope>,
    /// Whether each frame is a call of a standard-library function: its free
    /// names are read from `library`, not from the program's globals.
    library_frames: Vec<bool>,
    /// The globals as the standard library left them (its functions and the
    /// constants `pi`, `e`, `inf`, `nan`), and the source offsets of its text:
    /// a program's `let pi = 3`, `let var = ...` or `fn mean(x)` does not change
    /// what the library's functions compute, as a Python module's own names do
    /// not change NumPy's.
    library: Option<(Rc<Scope>, std::ops::Range<usize>)>,
    pub out: Box<dyn Write>,
    /// Set by `arr explain`: `save` computes its array but writes no file.
    pub dry_run: bool,
    seed: u64,
    random_calls: u64,
    /// Segmented reductions' checked `lengths`/`offsets`, kept across calls.
    segment_indexes: SegmentIndexCache,
    /// Pending results of operations that can fail at run time (integer `%`
    /// and `**`), made by the statement being run: `settle` computes them
    /// at its end, so that their error points at it (docs/language.md,
    /// "When errors happen").
    fallible: Vec<Array>,
    /// How many bindings so far held a pending array: a loop iteration that
    /// bound none has nothing new to realize at its end.
    pending_binds: u64,
}

/// Variables by name. Names are short and hashed on every read and write
/// of a variable, so the hasher is FNV-1a rather than SipHash (whose
/// resistance to chosen collisions buys nothing for a program's own names).
pub type Scope = HashMap<String, Value, BuildHasherDefault<NameHasher>>;

/// A set of variable names (what a loop carries), hashed as `Scope` is.
type Names = HashSet<String, BuildHasherDefault<NameHasher>>;

/// FNV-1a, 64-bit.
pub struct NameHasher(u64);

impl Default for NameHasher {
    fn default() -> NameHasher {
        NameHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A user function's scope, popped however the call ends: `Ok`, `Err`, or a
/// panic unwinding to the REPL's `catch_unwind` (a frame left behind would
/// make later top-level `let`s bind into a dead scope).
struct Frame<'a>(&'a mut Interp);

impl<'a> Frame<'a> {
    fn push(interp: &'a mut Interp, in_library: bool) -> Frame<'a> {
        interp.frames.push(Scope::default());
        interp.library_frames.push(in_library);
        Frame(interp)
    }
}

impl Drop for Frame<'_> {
    fn drop(&mut self) {
        self.0.frames.pop();
        self.0.library_frames.pop();
    }
}

impl Interp {
    pub fn new(backend: Rc<dyn Backend>) -> Interp {
        let mut globals = Scope::default();
        for (name, v) in [
            ("pi", std::f64::consts::PI),
            ("e", std::f64::consts::E),
            ("inf", f64::INFINITY),
            ("nan", f64::NAN),
        ] {
            globals.insert(name.to_string(), Value::Array(build::scalar(DType::F64, v, true)));
        }
        Interp {
            backend,
            globals,
            pending_globals: Names::default(),
            frames: Vec::new(),
            library_frames: Vec::new(),
            library: None,
            out: Box::new(std::io::stdout()),
            dry_run: false,
            seed: 0,
            random_calls: 0,
            segment_indexes: SegmentIndexCache::default(),
            fallible: Vec::new(),
            pending_binds: 0,
        }
    }

    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
        self.random_calls = 0;
    }

    /// The key of the next random array (see `graph::random`).
    fn next_random_key(&mut self) -> u64 {
        let k = graph::random::key(self.seed, self.random_calls);
        self.random_calls += 1;
        k
    }

    /// Runs a program's statements at top level. Returns the value of a
    /// trailing expression statement (for the REPL to show).
    pub fn run(&mut self, program: &Program) -> R<Value> {
        // A run always starts at top level; what an earlier failed (or
        // panicked) run left half-done must not leak into this one.
        self.frames.clear();
        self.fallible.clear();
        let flow = self.exec_stmts(&program.stmts);
        if flow.is_err() {
            self.fallible.clear();
        }
        match flow? {
            Flow::Normal(v) => Ok(v),
            Flow::Break(span) | Flow::Continue(span) => Err(outside_loop(span)),
        }
    }

    /// Evaluates an expression lazily, without realizing it (`:type`, `:explain`).
    pub fn eval_lazy(&mut self, expr: &Expr) -> R<Value> {
        let saved = self.random_calls;
        let v = self.eval(expr);
        self.random_calls = saved;
        v
    }

    // ---- scopes -------------------------------------------------------------

    fn scope(&mut self) -> &mut Scope {
        match self.frames.last_mut() {
            Some(f) => f,
            None => &mut self.globals,
        }
    }

    pub fn lookup(&self, name: &str) -> Option<&Value> {
        if let Some(f) = self.frames.last() {
            if let Some(v) = f.get(name) {
                return Some(v);
            }
            if self.library_frames.last() == Some(&true)
                && let Some((library, _)) = &self.library
            {
                return library.get(name);
            }
        }
        self.globals.get(name)
    }

    /// Marks everything defined so far, from the source offsets `span`, as the
    /// standard library: its functions then read the names they use from
    /// these globals, whatever the program binds later.
    pub fn seal_library(&mut self, span: std::ops::Range<usize>) {
        self.library = Some((Rc::new(self.globals.clone()), span));
    }

    /// The standard library's names and the offsets of its source (`seal_library`).
    pub fn library(&self) -> Option<(&Scope, std::ops::Range<usize>)> {
        self.library.as_ref().map(|(scope, span)| (&**scope, span.clone()))
    }

    /// Every name in scope (for suggestions and completion).
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.globals.keys().cloned().collect();
        if let Some(f) = self.frames.last() {
            v.extend(f.keys().cloned());
        }
        v.sort();
        v.dedup();
        v
    }

    fn unknown_name(&self, name: &str, span: &Span) -> Diagnostic {
        let names = self.names();
        let mut candidates: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        candidates.extend(crate::check::builtins::names());
        let mut d = Diagnostic::new("E0100", format!("unknown name `{name}`"), span.clone())
            .with_primary_label("not defined here");
        if let Some(hint) = crate::check::checker::python_name_hint(name) {
            d = d.with_hint(hint);
        } else if let Some(c) = closest(name, candidates) {
            d = d.with_hint(format!("did you mean `{c}`?"));
        }
        d
    }

    // ---- statements ---------------------------------------------------------

    fn exec_stmts(&mut self, stmts: &[Stmt]) -> R<Flow> {
        let mut last = Value::Unit;
        crate::interrupt::check()?;
        for stmt in stmts {
            last = Value::Unit;
            // Ctrl-C stops between statements, so every statement either ran or did not.
            crate::interrupt::check()?;
            match self.exec(stmt)? {
                Flow::Normal(v) => {
                    if matches!(stmt.kind, StmtKind::Expr(_)) {
                        last = v;
                    }
                }
                other => {
                    self.settle()?;
                    return Ok(other);
                }
            }
            self.settle()?;
        }
        Ok(Flow::Normal(last))
    }

    fn exec(&mut self, stmt: &Stmt) -> R<Flow> {
        stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || self.exec_inner(stmt))
    }

    fn exec_inner(&mut self, stmt: &Stmt) -> R<Flow> {
        match &stmt.kind {
            StmtKind::Let { target, value } => {
                let v = self.eval(value)?;
                // A value that fails is never bound (the REPL keeps the old binding).
                self.settle()?;
                self.bind_pattern(target, v, &value.span)?;
            }
            StmtKind::Assign { target, op, value } => self.assign(target, *op, value, &stmt.span)?,
            StmtKind::Expr(e) => return self.exec_expr_stmt(e),
            StmtKind::Fn(def) => {
                if let Some(d) = crate::check::checker::repeated_param(def) {
                    return Err(d);
                }
                self.scope().insert(def.name.name.clone(), Value::Func(def.clone()));
            }
            StmtKind::For { var, start, end, body } => {
                let (lo, hi) = (self.eval(start)?, self.eval(end)?);
                let lo = self.static_int_named(&lo, &start.span, "a loop bound")?;
                let hi = self.static_int_named(&hi, &end.span, "a loop bound")?;
                let carried = self.loop_carried(&body.stmts, &[]);
                let mut first = true;
                for i in lo..hi {
                    self.set_counter(&var.name, i)?;
                    // After binding the counter: a stopped loop leaves it at the iteration that did not run.
                    crate::interrupt::check()?;
                    if !self.iteration(&body.stmts, &carried, &mut first)? {
                        break;
                    }
                }
            }
            StmtKind::ForEach { var, iter, body } => {
                let walked = self.eval(iter)?;
                let items = self.items_of(&walked, &iter.span)?;
                // a vector's buffer, watched: a loop that writes into the vector it
                // walks reads each later element as it is then, as NumPy's iterator does
                let watched = match &walked {
                    Value::Array(a) if a.rank() == 1 => a.node.buffer().map(|b| (a, b.writes(), b)),
                    _ => None,
                };
                let carried = self.loop_carried(&body.stmts, &[]);
                let mut first = true;
                for i in 0..items.len() {
                    let item = match &watched {
                        Some((a, seen, buffer)) if buffer.writes() != *seen => {
                            let element = a.with_view(a.view.select_axis(0, i));
                            let host = graph::to_host(&*self.backend, &element).map_err(|d| d.or_span(&iter.span))?;
                            fstring::Items::Numbers(a.dtype(), host).get(0)
                        }
                        _ => items.get(i),
                    };
                    self.bind_pattern(var, item, &iter.span)?;
                    crate::interrupt::check()?;
                    if !self.iteration(&body.stmts, &carried, &mut first)? {
                        break;
                    }
                }
            }
            StmtKind::While { cond, body } => {
                let carried = self.loop_carried(&body.stmts, &[cond]);
                let mut first = true;
                loop {
                    crate::interrupt::check()?;
                    if !self.condition(cond)? {
                        break;
                    }
                    let binds = self.pending_binds;
                    match self.exec_stmts(&body.stmts)? {
                        Flow::Break(_) => break,
                        Flow::Continue(_) | Flow::Normal(_) => {}
                    }
                    // After the first iteration (which realizes what the loop
                    // carries in), only a pending binding can need realizing.
                    if first || self.pending_binds != binds {
                        self.end_iteration(&carried)?;
                    }
                    first = false;
                }
            }
            StmtKind::Break => return Ok(Flow::Break(stmt.span.clone())),
            StmtKind::Continue => return Ok(Flow::Continue(stmt.span.clone())),
        }
        Ok(Flow::Normal(Value::Unit))
    }

    /// An expression statement; `if` and blocks pass `break`/`continue` up to the loop.
    fn exec_expr_stmt(&mut self, e: &Expr) -> R<Flow> {
        match &e.kind {
            ExprKind::If { arms, otherwise } => {
                for (cond, then) in arms {
                    if self.condition(cond)? {
                        return self.exec_stmts(&then.stmts);
                    }
                }
                match otherwise {
                    Some(o) => self.exec_stmts(&o.stmts),
                    None => Ok(Flow::Normal(Value::Unit)),
                }
            }
            ExprKind::Block(b) => self.exec_stmts(&b.stmts),
            _ => Ok(Flow::Normal(self.eval(e)?)),
        }
    }

    fn bind_pattern(&mut self, pattern: &Pattern, value: Value, span: &Span) -> R<()> {
        match pattern {
            Pattern::Name(id) => {
                if matches!(value, Value::Unit) {
                    return Err(Diagnostic::new("E0303", "this has no value to bind", span.clone())
                        .with_label(id.span.clone(), format!("`{}` would be bound to nothing", id.name)));
                }
                self.define(&id.name, value)
            }
            Pattern::Rest(id) => self.define(&id.name, value),
            Pattern::Tuple(items, pspan) => {
                let arity = shape::Arity::of(items);
                // an array unpacks along its first axis, as in Python (`let (x, y) = transpose(pts)`)
                let value = match value {
                    Value::Array(a) if a.rank() > 0 && arity.takes(a.shape()[0]) => Value::Tuple(
                        (0..a.shape()[0])
                            .map(|i| Value::Array(a.with_view(a.view.select_axis(0, i))))
                            .collect(),
                    ),
                    Value::Array(a) => {
                        return Err(shape::unpack_array(&arity, a.shape().first().copied(), pspan)
                            .with_label(span.clone(), format!("an array of shape {:?}", a.shape())));
                    }
                    v => v,
                };
                let Value::Tuple(values) = value else {
                    return Err(Diagnostic::new(
                        "E0306",
                        format!(
                            "expected a tuple of {} values, found {}",
                            arity.count(),
                            value.kind_name()
                        ),
                        span.clone(),
                    )
                    .with_label(pspan.clone(), "this pattern takes a tuple"));
                };
                if !arity.takes(values.len()) {
                    return Err(shape::unpack_tuple(&arity, values.len(), pspan, span));
                }
                for (p, v) in items.iter().zip(arity.distribute(values, Value::Tuple)) {
                    self.bind_pattern(p, v, span)?;
                }
                Ok(())
            }
        }
    }

    fn assign(&mut self, target: &Expr, op: Option<BinOp>, value: &Expr, span: &Span) -> R<()> {
        match &target.kind {
            ExprKind::Name(name) => {
                if let Some(op) = op
                    && self.update_in_place(name, op, value)?
                {
                    return Ok(());
                }
                if op.is_none() && self.rebind_scalar_op(name, value)? {
                    return Ok(());
                }
                let current = match self.frames.last() {
                    Some(f) => f.get(name).cloned(),
                    None => self.globals.get(name).cloned(),
                };
                let Some(current) = current else {
                    let mut d = self.unknown_name(name, &target.span);
                    if self.lookup(name).is_some() {
                        d = Diagnostic::new(
                            "E0100",
                            format!("`{name}` is not a local variable of this function"),
                            target.span.clone(),
                        )
                        .with_hint(format!(
                            "functions cannot rebind outer variables; use `let {name} = ...` for a local one"
                        ));
                    } else {
                        d.hint = Some(format!("use `let {name} = ...` to define it"));
                    }
                    return Err(d);
                };
                // nothing but this binding holds the array (checked before the right side
                // makes temporaries that read it): no other name can see its memory, unless
                // the right side binds one itself (a `let` in a block)
                let alone = op.is_some()
                    && matches!(&current, Value::Array(a) if Rc::strong_count(&a.node) == 2 && !a.node.buffer_shared())
                    && !value.may_bind();
                let rhs = self.eval(value)?;
                let new = match op {
                    None => rhs,
                    Some(op) => {
                        let a = self.expect_array(current, &target.span)?;
                        let b = self.expect_array(rhs, &value.span)?;
                        let spans = (Some(&target.span), Some(&value.span));
                        let result = self.binary(op, &a, &b, spans, span)?;
                        if a.rank() == 0 {
                            // a scalar is a number, as in Python: `s += 0.5` rebinds `s`
                            // to `s + 0.5`, the dtype following promotion
                            Value::Array(result)
                        } else {
                            drop(b);
                            let shared = !alone && self.memory_seen_elsewhere(name, &a);
                            return self.update_array(name, a, op, result, shared, (&target.span, &value.span, span));
                        }
                    }
                };
                self.settle()?;
                self.define(name, new)
            }
            ExprKind::Index { base, indices } => {
                let base_val = self.eval(base)?;
                let base_arr = self.expect_array(base_val, &base.span)?;
                graph::realize(&*self.backend, &[&base_arr])?;
                let view = self.index(&base_arr, indices, &target.span)?;
                let dst = match view {
                    index::Indexed::View(dst) => dst,
                    index::Indexed::Gathered(g) => return self.assign_gathered(*g, op, value, &target.span, span),
                };
                writable(&dst, &target.span)?;
                let rhs = self.eval(value)?;
                let rhs = self.expect_array(rhs, &value.span)?;
                // `rhs` moves into `src` or drops here: the assignment must hold the
                // only handle on the source's nodes to compute them into the destination
                let src = match op {
                    None => rhs,
                    Some(op) => {
                        let src = build::binary(op, &dst, &rhs, (Some(&target.span), Some(&value.span)), span)?;
                        drop(rhs);
                        src
                    }
                };
                crate::check::shape::check_assign_fits(
                    (dst.dtype(), &dims(dst.shape())),
                    (src.dtype(), &dims(src.shape())),
                    (&target.span, &value.span, span),
                )?;
                self.write_into(&dst, src, &value.span, span)
            }
            _ => Err(
                Diagnostic::new("E0005", "cannot assign to this expression", target.span.clone())
                    .with_hint("only names and indexed names (`a[i, :]`) can be assigned"),
            ),
        }
    }

    /// Writes `src` (broadcast to `dst`'s shape, which the caller has checked, and
    /// converted to its dtype) into the memory `dst` views.
    pub(super) fn write_into(&mut self, dst: &Array, src: Array, value_span: &Span, span: &Span) -> R<()> {
        let src = {
            let converted = build::convert(&src, dst.dtype(), Some(value_span))?;
            drop(src);
            build::broadcast_view(&converted, dst.shape())
        };
        // Every pending computation must read the old contents before we overwrite them.
        self.realize_all()?;
        let buffer = dst
            .node
            .buffer()
            .ok_or_else(|| Diagnostic::new("E0499", "internal: target not realized", span.clone()))?;
        graph::assign(&*self.backend, &buffer, &dst.view, src).map_err(|d| d.or_span(span))
    }

    /// `x op= e` for an array `x` of rank 1 or more, given `result` = `x op e`: as
    /// NumPy's in-place operators, the result keeps `x`'s shape and dtype and is
    /// written into `x`'s memory, so every other name for it (a view, a loop's row,
    /// the caller's array passed to a function) sees the change. Where no other
    /// name can see that memory, rebinding `x` to the result is the same to the
    /// program and leaves it pending, so it keeps fusing with what follows. `shared`
    /// is whether another name can see it (`memory_seen_elsewhere`).
    fn update_array(
        &mut self,
        name: &str,
        x: Array,
        op: BinOp,
        result: Array,
        shared: bool,
        spans: (&Span, &Span, &Span),
    ) -> R<()> {
        let (_, value_span, span) = spans;
        crate::check::shape::check_update(
            name,
            op.symbol(),
            (Some(x.dtype()), &dims(x.shape())),
            (Some(result.dtype()), Some(&dims(result.shape()))),
            spans,
        )?;
        if shared {
            writable(&x, spans.0)?;
            self.settle()?;
            graph::realize(&*self.backend, &[&x])?;
            return self.write_into(&x, result, value_span, span);
        }
        let updated = build::convert(&result, x.dtype(), Some(value_span))?.with_weak(x.weak);
        drop(result);
        self.settle()?;
        self.define(name, Value::Array(updated))
    }

    /// Whether a variable other than `name` of the current scope, in any scope (a
    /// caller's too), holds an array that shares `x`'s memory: the same node (a view
    /// of it, or another name for it), or the same realized buffer.
    fn memory_seen_elsewhere(&self, name: &str, x: &Array) -> bool {
        fn sees(v: &Value, x: &Array) -> bool {
            match v {
                Value::Array(b) => Rc::ptr_eq(&x.node, &b.node) || x.node.shares_buffer(&b.node),
                Value::Tuple(items) => items.iter().any(|v| sees(v, x)),
                _ => false,
            }
        }
        let here = self.frames.len();
        let scopes = std::iter::once((0, &self.globals)).chain(self.frames.iter().enumerate().map(|(k, f)| (k + 1, f)));
        scopes.into_iter().any(|(depth, scope)| {
            scope
                .iter()
                .any(|(n, v)| !(depth == here && n.as_str() == name) && sees(v, x))
        })
    }

    /// The names a loop carries: those of the scope that its body (or condition)
    /// reads or binds. The others keep their values through the loop, so its
    /// iterations need not realize them (a dead value, about to be rebound after an
    /// inner loop, would be stored for nothing). At top level a call of a user
    /// function may read any global: then every name; a function's body sees no
    /// other call's variables.
    fn loop_carried(&self, body: &[Stmt], extra: &[&Expr]) -> Names {
        let in_fn = !self.frames.is_empty();
        let builtin = |n: &str| in_fn || crate::check::builtins::find(n).is_some();
        let scope = self.frames.last().unwrap_or(&self.globals);
        match crate::syntax::ast::names_used(body, extra, &builtin) {
            // the used names the scope has, without listing every name of the scope
            // (the globals hold the whole standard library)
            Some(used) => used.into_iter().filter(|n| scope.contains_key(n.as_str())).collect(),
            None => self.scope_names(),
        }
    }

    fn scope_names(&self) -> Names {
        match self.frames.last() {
            Some(f) => f.keys().cloned().collect(),
            None => self.globals.keys().cloned().collect(),
        }
    }

    /// The end of a loop iteration: realizes what the next iteration carries
    /// (variables that existed before the loop), so graphs do not grow from
    /// one iteration to the next, and the values first made in this
    /// iteration, except those that only feed another pending value or
    /// whose value a realize has already used inside a consumer's kernel: a
    /// temporary such as `let d = a - b` in `sum(d * d)` then streams into its
    /// consumer's kernel instead of being stored. (What is left pending is
    /// computed again if read after the loop.)
    fn realize_iteration(&mut self, carried: &Names) -> R<()> {
        let at_top = self.frames.is_empty();
        let mut roots: Vec<Array> = Vec::new();
        let mut locals: Vec<Array> = Vec::new();
        let mut pending = Vec::new();
        let mut sort = |name: &String, v: &Value| {
            pending_arrays(v, &mut pending);
            for a in pending.drain(..) {
                if carried.contains(name) {
                    roots.push(a)
                } else if !a.node.fused_away.get() {
                    locals.push(a)
                }
            }
        };
        match self.frames.last() {
            Some(f) => f.iter().for_each(|(name, v)| sort(name, v)),
            None => self
                .pending_globals
                .iter()
                .filter_map(|n| self.globals.get_key_value(n.as_str()))
                .for_each(|(name, v)| sort(name, v)),
        }
        if roots.is_empty() && locals.is_empty() {
            return Ok(());
        }
        // the locals no other pending node reads become roots too; the walk
        // that finds them reaches every node the roots reach, so it is the
        // realize's order as well
        let mut order = None;
        if !locals.is_empty() {
            let all: Vec<Rc<graph::Node>> = roots.iter().chain(&locals).map(|a| a.node.clone()).collect();
            let walked = graph::pending_in_order(&all);
            let mut fed: FxHashSet<u64> = FxHashSet::with_capacity_and_hasher(2 * walked.len(), Default::default());
            for node in &walked {
                if let graph::NodeState::Pending { inputs, .. } = &*node.state.borrow() {
                    fed.extend(inputs.iter().map(|i| i.node.id));
                }
            }
            roots.extend(locals.into_iter().filter(|a| !fed.contains(&a.node.id)));
            order = Some(walked);
        }
        let refs: Vec<&Array> = roots.iter().collect();
        let realized = graph::realize_in_order(&*self.backend, &refs, order);
        if at_top {
            self.forget_ready_globals();
        }
        realized
    }

    /// Drops from `pending_globals` the names whose values are all ready now.
    fn forget_ready_globals(&mut self) {
        let globals = &self.globals;
        self.pending_globals
            .retain(|n| globals.get(n.as_str()).is_some_and(has_pending));
    }

    /// Runs one iteration of a `for` body and ends it (see `end_iteration`)
    /// when it is the first or bound something new; false after `break`.
    fn iteration(&mut self, body: &[Stmt], carried: &Names, first: &mut bool) -> R<bool> {
        let binds = self.pending_binds;
        if let Flow::Break(_) = self.exec_stmts(body)? {
            return Ok(false);
        }
        if *first || self.pending_binds != binds {
            self.end_iteration(carried)?;
        }
        *first = false;
        Ok(true)
    }

    /// `realize_iteration`, where Ctrl-C during the realize still counts the
    /// iteration as finished (its statements all ran; what is left pending is
    /// computed when read): the loop then stops at its next check, with its
    /// counter one further, as if the stop came between the iterations.
    fn end_iteration(&mut self, carried: &Names) -> R<()> {
        match self.realize_iteration(carried) {
            Err(d) if d.code == "E0407" => Ok(()),
            other => other,
        }
    }

    /// Realizes every pending array in every scope.
    fn realize_all(&mut self) -> R<()> {
        // Only the pending ones are gathered: a slice assignment runs this,
        // and cloning every array of the program (views and all) cost more
        // than a small assignment's kernel.
        let mut arrays: Vec<Array> = Vec::new();
        for n in &self.pending_globals {
            if let Some(v) = self.globals.get(n.as_str()) {
                pending_arrays(v, &mut arrays);
            }
        }
        for f in &self.frames {
            for v in f.values() {
                pending_arrays(v, &mut arrays);
            }
        }
        if arrays.is_empty() {
            self.pending_globals.clear();
            return Ok(());
        }
        let refs: Vec<&Array> = arrays.iter().collect();
        graph::realize(&*self.backend, &refs)?;
        self.forget_ready_globals();
        Ok(())
    }

    /// Binds `name` in the current scope. A pending value whose chain has
    /// grown past `MAX_PENDING_DEPTH` is realized first, so that long
    /// straight-line programs keep small graphs. Only the value being bound
    /// is looked at: a scan of the whole scope per statement made programs
    /// with many top-level names quadratic.
    fn define(&mut self, name: &str, value: Value) -> R<()> {
        if has_pending(&value) {
            let deep: Vec<Array> = match &value {
                // the common case, without collecting: a plain array shallow enough
                Value::Array(a) if a.node.depth <= MAX_PENDING_DEPTH => Vec::new(),
                _ => arrays_of(&value)
                    .into_iter()
                    .filter(|a| !a.is_ready() && a.node.depth > MAX_PENDING_DEPTH)
                    .collect(),
            };
            if !deep.is_empty() {
                let refs: Vec<&Array> = deep.iter().collect();
                graph::realize(&*self.backend, &refs)?;
            }
            self.pending_binds += 1;
            if self.frames.is_empty() && !self.pending_globals.contains(name) {
                self.pending_globals.insert(name.to_string());
            }
        }
        let scope = self.scope();
        match scope.get_mut(name) {
            Some(slot) => *slot = value,
            None => {
                scope.insert(name.to_string(), value);
            }
        }
        Ok(())
    }

    /// The variable of the current scope named `name`, if any.
    fn slot(&mut self, name: &str) -> Option<&mut Value> {
        self.scope().get_mut(name)
    }

    /// Binds a loop counter, reusing its scalar when nothing else holds it.
    fn set_counter(&mut self, name: &str, i: i64) -> R<()> {
        if let Some(Value::Array(a)) = self.slot(name)
            && a.weak
            && overwrite_scalar(a, HostScalar::I64(i))
        {
            return Ok(());
        }
        self.define(name, Value::Array(build::scalar_i64(i, true)))
    }

    /// `x op= e` where `x` is a host scalar of this scope that nothing else
    /// holds and `e` is a host scalar of its dtype: the new value is written
    /// into `x`'s buffer instead of a new node (what `s += i` in a loop
    /// costs). Returns false, having evaluated nothing, when that does not
    /// apply; the caller then takes the general path.
    fn update_in_place(&mut self, name: &str, op: BinOp, value: &Expr) -> R<bool> {
        // The right side's value, dtype and weakness, read without a clone.
        let (y, y_dtype, y_weak) = match &value.kind {
            ExprKind::Name(n) => match self.lookup(n) {
                Some(Value::Array(b)) => match host_scalar(b) {
                    Some(y) => (y, b.dtype(), b.weak),
                    None => return Ok(false),
                },
                _ => return Ok(false),
            },
            ExprKind::Int(v) => (HostScalar::I64(*v), DType::I64, true),
            ExprKind::Float(v) => (HostScalar::F64(*v), DType::F64, true),
            _ => return Ok(false),
        };
        Ok(self.overwrite_scalar_op(name, op, y, y_dtype, y_weak))
    }

    /// `x = x op e` where `x` holds a host scalar and `e` is arithmetic on
    /// host scalars and literals (which cannot rebind `x` or have any other
    /// effect): as `x op= e` on a scalar, the result overwrites `x`'s
    /// element when nothing else holds it and its dtype stays (a loop's
    /// `k = k + 1`, `s = s + 0.5 * i`), instead of a new array each time.
    /// False leaves the assignment to the general path, which evaluates `e`
    /// again (no effect, but the time).
    fn rebind_scalar_op(&mut self, name: &str, value: &Expr) -> R<bool> {
        let ExprKind::Binary(op, l, r) = &value.kind else {
            return Ok(false);
        };
        if !matches!(&l.kind, ExprKind::Name(n) if n == name) || !self.scalar_arithmetic(r) {
            return Ok(false);
        }
        match self.slot(name) {
            Some(Value::Array(a)) if host_scalar(a).is_some() => {}
            _ => return Ok(false),
        }
        let Value::Array(b) = self.eval(r)? else {
            return Ok(false);
        };
        let Some(y) = host_scalar(&b) else {
            return Ok(false);
        };
        let (y_dtype, y_weak) = (b.dtype(), b.weak);
        // `e` may be `x` itself: its handle goes before `x`'s is found unique
        drop(b);
        Ok(self.overwrite_scalar_op(name, *op, y, y_dtype, y_weak))
    }

    /// `e`'s value when it is arithmetic (and comparisons) on number
    /// literals and names of host scalars that `scalar_arith` computes: the
    /// value `eval` would make, with its dtype and weakness, without the
    /// arrays of its literals, names and intermediate results. A loop's
    /// `while i < n` and `if i % 3 == 0` then cost a few comparisons rather
    /// than an array each. None, having evaluated nothing (reading is all it
    /// does), leaves `e` to `eval`: anything else, and every case that
    /// path reports as an error (a literal integer overflow, an integer
    /// division by zero).
    fn host_eval(&self, e: &Expr) -> Option<HostValue> {
        self.host_eval_within(e, HOST_EVAL_DEPTH)
    }

    /// `host_eval` at most `depth` operators deep: its recursion runs on the
    /// stack as it is (`eval` grows it), and a deeper tree is `eval`'s.
    fn host_eval_within(&self, e: &Expr, depth: usize) -> Option<HostValue> {
        match &e.kind {
            ExprKind::Int(v) => Some(HostValue::num(HostScalar::I64(*v), DType::I64, true)),
            ExprKind::Float(v) => Some(HostValue::num(HostScalar::F64(*v), DType::F64, true)),
            ExprKind::Name(n) => match self.lookup(n) {
                Some(Value::Array(a)) => Some(HostValue::num(host_scalar(a)?, a.dtype(), a.weak)),
                _ => None,
            },
            ExprKind::Binary(op, l, r) if depth > 0 && !matches!(op, BinOp::And | BinOp::Or | BinOp::MatMul) => {
                let x = self.host_eval_within(l, depth - 1)?;
                let y = self.host_eval_within(r, depth - 1)?;
                host_binary(*op, x, y)
            }
            _ => None,
        }
    }

    /// Whether `e` is arithmetic on number literals and names of host
    /// scalars only: evaluating it reads variables and computes on the host,
    /// and cannot bind, call, print or leave a pending node behind.
    fn scalar_arithmetic(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Float(_) => true,
            ExprKind::Name(n) => matches!(self.lookup(n), Some(Value::Array(a)) if host_scalar(a).is_some()),
            ExprKind::Unary(UnOp::Neg, x) => self.scalar_arithmetic(x),
            ExprKind::Binary(op, a, b) => {
                !matches!(op, BinOp::And | BinOp::Or | BinOp::MatMul)
                    && self.scalar_arithmetic(a)
                    && self.scalar_arithmetic(b)
            }
            _ => false,
        }
    }

    /// Overwrites the host scalar `name` holds with `name op y` where that
    /// keeps its dtype and weakness and nothing else holds its element;
    /// whether it did.
    fn overwrite_scalar_op(&mut self, name: &str, op: BinOp, y: HostScalar, y_dtype: DType, y_weak: bool) -> bool {
        let Some(Value::Array(a)) = self.slot(name) else {
            return false;
        };
        let Some(x) = host_scalar(a) else {
            return false;
        };
        let x = HostValue::num(x, a.dtype(), a.weak);
        match host_binary(op, x, HostValue::num(y, y_dtype, y_weak)) {
            Some(HostValue {
                value: Scalar::Num(r),
                dtype,
                weak,
            }) if dtype == x.dtype && weak == x.weak => overwrite_scalar(a, r),
            _ => false,
        }
    }

    /// `a op b` of two evaluated operands (`l` and `r` their expressions):
    /// none, strings and dtypes compared as Python's, else arrays.
    fn binary_values(&mut self, op: BinOp, a: Value, b: Value, l: &Expr, r: &Expr, span: &Span) -> R<Value> {
        let op = &op;
        // `x == none` asks whether x is none (Python's `is None`), whatever x is;
        // strings compare by their text (`mode == "same"`), and a string never
        // equals anything else (`ord == "fro"` for a numeric `ord` is false, as in Python);
        // a dtype equals itself and its names (`dtype(x) == f32`, `dtype(x) == "float32"`)
        if matches!(op, BinOp::Eq | BinOp::Ne) {
            let same = match (&a, &b) {
                (Value::None, other) | (other, Value::None) => Some(matches!(other, Value::None)),
                (Value::DType(x), Value::DType(y)) => Some(x == y),
                (Value::DType(x), Value::Str(y)) | (Value::Str(y), Value::DType(x)) => {
                    Some(DType::parse(y) == Some(*x))
                }
                (Value::DType(_), _) | (_, Value::DType(_)) => Some(false),
                (Value::Str(x), Value::Str(y)) => Some(x == y),
                (Value::Str(_), _) | (_, Value::Str(_)) => Some(false),
                _ => None,
            };
            if let Some(same) = same {
                let v = if same == (*op == BinOp::Eq) { 1.0 } else { 0.0 };
                return Ok(Value::Array(build::scalar(DType::Bool, v, false)));
            }
        }
        // tuples as Python's: `+` joins them, `==` and `!=` compare them item by item
        if let (Value::Tuple(x), Value::Tuple(y)) = (&a, &b) {
            match op {
                BinOp::Add => return Ok(Value::Tuple(x.iter().chain(y).cloned().collect())),
                BinOp::Eq | BinOp::Ne => {
                    let same = self.tuples_equal(x, y, span)?;
                    let v = if same == (*op == BinOp::Eq) { 1.0 } else { 0.0 };
                    return Ok(Value::Array(build::scalar(DType::Bool, v, false)));
                }
                _ => {}
            }
        }
        let a = self.expect_array(a, &l.span)?;
        let b = self.expect_array(b, &r.span)?;
        Ok(Value::Array(self.binary(
            *op,
            &a,
            &b,
            (Some(&l.span), Some(&r.span)),
            span,
        )?))
    }

    /// Python's tuple equality: the same length, and each pair of items equal
    /// (arrays of one shape and the same values, as `array_equal`).
    fn tuples_equal(&self, x: &[Value], y: &[Value], span: &Span) -> R<bool> {
        if x.len() != y.len() {
            return Ok(false);
        }
        for (a, b) in x.iter().zip(y) {
            let same = match (a, b) {
                (Value::Tuple(a), Value::Tuple(b)) => self.tuples_equal(a, b, span)?,
                (Value::Array(a), Value::Array(b)) => {
                    let host = |v: &Array| graph::to_host(&*self.backend, v).map_err(|d| d.or_span(span));
                    a.shape() == b.shape() && {
                        let (ha, hb) = (host(a)?, host(b)?);
                        (0..a.size()).all(|i| ha.get_f64(i) == hb.get_f64(i))
                    }
                }
                (Value::None, Value::None) => true,
                (Value::Str(a), Value::Str(b)) => a == b,
                (Value::DType(a), Value::DType(b)) => a == b,
                _ => false,
            };
            if !same {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// `a op b`, folded when both are host scalars; a result that may fail
    /// at run time is remembered for `settle`.
    fn binary(
        &mut self,
        op: BinOp,
        a: &Array,
        b: &Array,
        spans: (Option<&Span>, Option<&Span>),
        span: &Span,
    ) -> R<Array> {
        if let Some((x, y)) = literal_int_overflow(op, a, b) {
            return Err(crate::check::dtype::literal_int_overflow_error(op, x, y, span));
        }
        if let Some(r) = scalar_binary(op, a, b) {
            return Ok(r);
        }
        let r = self.fold(build::binary(op, a, b, spans, span)?)?;
        if !r.is_ready() && can_fail(&r) {
            self.fallible.push(r.clone());
        }
        Ok(r)
    }

    /// The end of a statement: computes the pending operations it made that
    /// can fail (just those nodes and what feeds them; their consumers stay
    /// lazy and keep fusing), so that an error is reported for the statement
    /// that caused it, before any later statement runs.
    fn settle(&mut self) -> R<()> {
        if self.fallible.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.fallible);
        let refs: Vec<&Array> = pending.iter().collect();
        graph::realize(&*self.backend, &refs)
    }

    fn condition(&mut self, cond: &Expr) -> R<bool> {
        if let Some(HostValue {
            value: Scalar::Bool(truth),
            ..
        }) = self.host_eval(cond)
        {
            return Ok(truth);
        }
        let v = self.eval(cond)?;
        let a = match v {
            Value::Array(a) => a,
            other => {
                return Err(Diagnostic::new(
                    "E0301",
                    format!("a condition must be a bool, found {}", other.kind_name()),
                    cond.span.clone(),
                ));
            }
        };
        if a.dtype() != DType::Bool || a.size() != 1 {
            let t = describe(Some(a.dtype()), &dims(a.shape()));
            let hint = if a.dtype() != DType::Bool {
                "compare it with something: `x > 0`, `x != 0`"
            } else {
                "reduce it to one bool with `any(...)` or `all(...)`"
            };
            return Err(Diagnostic::new(
                "E0301",
                format!("a condition must be one bool, found {t}"),
                cond.span.clone(),
            )
            .with_primary_label(format!("this is {t}"))
            .with_hint(hint));
        }
        // a loop's condition is most often a bool just computed on the host
        if let Some(v) = build::ready_element(&a) {
            return Ok(v != 0.0);
        }
        let host = graph::to_host(&*self.backend, &a).map_err(|d| d.or_span(&cond.span))?;
        Ok(host.get_f64(0) != 0.0)
    }

    // ---- expressions --------------------------------------------------------

    pub fn eval(&mut self, expr: &Expr) -> R<Value> {
        stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || self.eval_inner(expr))
    }

    fn eval_inner(&mut self, expr: &Expr) -> R<Value> {
        let span = &expr.span;
        Ok(match &expr.kind {
            ExprKind::Int(v) => Value::Array(build::scalar_i64(*v, true)),
            ExprKind::Float(v) => Value::Array(build::scalar(DType::F64, *v, true)),
            ExprKind::Bool(v) => Value::Array(build::scalar(DType::Bool, *v as u8 as f64, false)),
            ExprKind::Str(s) => Value::Str(s.clone()),
            ExprKind::FStr(parts) => self.fstring(parts)?,
            ExprKind::Name(name) => match self.lookup(name) {
                Some(v) => v.clone(),
                None => {
                    if name == "none" || name == "None" {
                        Value::None
                    } else if let Some(dt) = DType::parse(name) {
                        Value::DType(dt)
                    } else if crate::check::builtins::find(name).is_some() {
                        return Err(Diagnostic::new(
                            "E0106",
                            format!("`{name}` is a builtin function, not a value"),
                            span.clone(),
                        )
                        .with_hint(format!("call it: `{name}(...)`")));
                    } else {
                        return Err(self.unknown_name(name, span));
                    }
                }
            },
            ExprKind::ArrayLit(items) => self.list_literal(items, span)?,
            ExprKind::Tuple(items) => Value::Tuple(items.iter().map(|e| self.eval(e)).collect::<R<_>>()?),
            ExprKind::Unary(op, inner) => {
                let a = self.eval_array(inner)?;
                let (uop, name) = match op {
                    UnOp::Neg => (UnaryOp::Neg, "-"),
                    UnOp::Not => (UnaryOp::Not, "not"),
                    UnOp::Invert => (UnaryOp::Invert, "~"),
                };
                Value::Array(self.fold(build::unary(uop, name, &a, Some(&inner.span), span)?)?)
            }
            ExprKind::Binary(..) if let Some(v) = self.host_eval(expr) => Value::Array(v.to_array()),
            ExprKind::Binary(op, l, r)
                if literal_op(*op)
                    && let Some((lit, other, lit_left)) = literal_side(l, r) =>
            {
                // a literal beside an array is made in the dtype it converts to there
                // (`x + 1.0` of an f32 `x`), not made and then converted
                let o = self.eval(other)?;
                let meets = match &o {
                    Value::Array(arr) => Some(arr.dtype()),
                    _ => None,
                };
                let litv = Value::Array(host_literal(lit, meets));
                let (a, b) = if lit_left { (litv, o) } else { (o, litv) };
                self.binary_values(*op, a, b, l, r, span)?
            }
            ExprKind::Binary(op, l, r) => {
                let a = self.eval(l)?;
                // `and`/`or` after one bool decide as Python's do, without the right
                // operand: `i < n and x[i] > 0` never reads x[n]
                if let (BinOp::And | BinOp::Or, Value::Array(left)) = (op, &a)
                    && left.rank() == 0
                    && left.dtype() == DType::Bool
                {
                    let host = graph::to_host(&*self.backend, left).map_err(|d| d.or_span(&l.span))?;
                    let truth = host.get_f64(0) != 0.0;
                    if truth == (*op == BinOp::Or) {
                        return Ok(Value::Array(build::scalar(DType::Bool, truth as u8 as f64, false)));
                    }
                }
                let b = self.eval(r)?;
                self.binary_values(*op, a, b, l, r, span)?
            }
            ExprKind::Cast(inner, ty) => {
                let a = self.eval_array(inner)?;
                let Some(dt) = DType::parse(&ty.name) else {
                    return Err(unknown_dtype(ty));
                };
                Value::Array(self.fold(build::cast(&a, dt, Some(span)).with_weak(false))?)
            }
            ExprKind::Call { func, args } => self.call(func, args, span)?,
            ExprKind::Index { base, indices } => {
                let b = self.eval(base)?;
                if let Value::Tuple(items) = b {
                    return self.index_tuple(items, indices, span);
                }
                let a = self.expect_array(b, &base.span)?;
                match self.index(&a, indices, span)? {
                    index::Indexed::View(v) => Value::Array(v),
                    index::Indexed::Gathered(g) => Value::Array(g.array),
                }
            }
            ExprKind::If { arms, otherwise } => 'arms: {
                for (cond, then) in arms {
                    if self.condition(cond)? {
                        break 'arms self.block_value(&then.stmts)?;
                    }
                }
                match otherwise {
                    Some(o) => self.block_value(&o.stmts)?,
                    None => Value::Unit,
                }
            }
            ExprKind::Block(block) => self.block_value(&block.stmts)?,
        })
    }

    /// Computes scalar arithmetic on host values at once (loop counters,
    /// `n - 1`, `-1` in a slice, `g / 2` in `g / 2 * h`): a graph and a kernel
    /// launch would cost far more than the arithmetic, and a fused kernel
    /// would compute it again for every element. The casts the graph builder
    /// puts in front of an op (`f32(g / 2)` when `h` is f32) are folded too.
    fn fold(&self, a: Array) -> R<Array> {
        if a.is_ready() {
            return Ok(a);
        }
        if a.size() == 1 {
            fold_node(&a.node, FOLD_DEPTH)?;
            return Ok(a);
        }
        let scalar_inputs: Vec<Rc<graph::Node>> = match &*a.node.state.borrow() {
            graph::NodeState::Pending { op, inputs } if op.is_elementwise() => inputs
                .iter()
                .filter(|i| !i.node.is_ready() && i.node.size() == 1)
                .map(|i| i.node.clone())
                .collect(),
            _ => Vec::new(),
        };
        for n in &scalar_inputs {
            fold_node(n, FOLD_DEPTH)?;
        }
        Ok(a)
    }

    fn block_value(&mut self, stmts: &[Stmt]) -> R<Value> {
        match self.exec_stmts(stmts)? {
            Flow::Normal(v) => Ok(v),
            // a break inside an `if` inside a loop travels up as an error only
            // when there is no loop; loops catch it in exec_stmts
            Flow::Break(s) => Err(
                Diagnostic::new("E0406", "`break` inside an expression is not supported", s)
                    .with_hint("use `if ... { break }` as a statement of the loop body"),
            ),
            Flow::Continue(s) => Err(
                Diagnostic::new("E0406", "`continue` inside an expression is not supported", s)
                    .with_hint("use `if ... { continue }` as a statement of the loop body"),
            ),
        }
    }

    pub fn eval_array(&mut self, expr: &Expr) -> R<Array> {
        let v = self.eval(expr)?;
        self.expect_array(v, &expr.span)
    }

    fn expect_array(&self, v: Value, span: &Span) -> R<Array> {
        match v {
            Value::Array(a) => Ok(a),
            Value::Func(f) => Err(Diagnostic::new(
                "E0106",
                format!("`{}` is a function, not an array", f.name.name),
                span.clone(),
            )
            .with_hint(format!("call it: `{}(...)`", f.name.name))),
            other => Err(Diagnostic::new(
                "E0303",
                format!("expected an array, found {}", other.kind_name()),
                span.clone(),
            )),
        }
    }

    /// A list literal: the array of its items, or, when an item is text, a
    /// tuple of them, as Python's list of strings (`for name in ["a", "b"]`).
    fn list_literal(&mut self, items: &[Expr], span: &Span) -> R<Value> {
        let values: Vec<Value> = items.iter().map(|item| self.eval(item)).collect::<R<_>>()?;
        if values.iter().any(Value::holds_text) {
            return Ok(Value::Tuple(values));
        }
        let mut parts = Vec::with_capacity(items.len());
        for (v, item) in values.into_iter().zip(items) {
            parts.push(self.expect_array(v, &item.span)?);
        }
        let spans: Vec<Span> = items.iter().map(|i| i.span.clone()).collect();
        Ok(Value::Array(self.stack_literal(parts, &spans, span)?))
    }

    /// The array of `parts` (one shape), stacked along a new first axis, as a
    /// list literal makes it: `spans` are the parts' spans.
    pub(super) fn stack_literal(&mut self, parts: Vec<Array>, spans: &[Span], span: &Span) -> R<Array> {
        let Some(first) = parts.first() else {
            return Ok(Array::from_host(HostData::F32(vec![]), &[0]));
        };
        let inner = first.shape().to_vec();
        let (mut dt, mut weak) = (first.dtype(), first.weak);
        let shapes: Vec<Vec<Dim>> = parts.iter().map(|p| dims(p.shape())).collect();
        let typed: Vec<(Option<DType>, &[Dim])> = parts
            .iter()
            .zip(&shapes)
            .map(|(p, s)| (Some(p.dtype()), s.as_slice()))
            .collect();
        crate::check::shape::check_literal_parts(&typed, spans, span)?;
        for p in &parts {
            (dt, weak) = crate::check::dtype::promote_weak(dt, weak, p.dtype(), p.weak);
        }
        let refs: Vec<&Array> = parts.iter().collect();
        graph::realize(&*self.backend, &refs)?;
        let mut values = HostData::zeros(dt, 0);
        for p in &parts {
            let h = graph::to_host(&*self.backend, &build::cast(p, dt, None))?;
            append(&mut values, h)?;
        }
        let mut shape = vec![parts.len()];
        shape.extend(inner);
        let buffer = self.backend.adopt(values)?;
        // A list of literals is weak like a literal (f64 or i64 alone, the
        // dtype of the array it meets otherwise); see dtype::promote_weak.
        Ok(Array::from_buffer(buffer, dt, &shape).with_weak(weak))
    }

    // ---- calls --------------------------------------------------------------

    fn call(&mut self, func: &Ident, args: &[Arg], span: &Span) -> R<Value> {
        if let Some(Value::Func(def)) = self.lookup(&func.name).cloned() {
            return self.call_user(&def, args, span);
        }
        if let Some(b) = crate::check::builtins::find(&func.name) {
            return self.call_builtin(b, args, span);
        }
        if self.lookup(&func.name).is_none()
            && let Some(dt) = DType::parse(&func.name)
        {
            return self.call_dtype(func, dt, args, span);
        }
        if let Some(v) = self.lookup(&func.name) {
            return Err(Diagnostic::new(
                "E0106",
                format!("`{}` is {}, not a function", func.name, v.kind_name()),
                func.span.clone(),
            ));
        }
        let names = self.names();
        let mut candidates: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        candidates.extend(crate::check::builtins::names());
        let mut d = Diagnostic::new("E0101", format!("unknown function `{}`", func.name), func.span.clone());
        if let Some(c) = closest(&func.name, candidates) {
            d = d.with_hint(format!("did you mean `{c}`?"));
        }
        Err(d)
    }

    /// A dtype's name called as a function: `f64(x)` (`float64(x)`, NumPy's
    /// `np.float64(x)`) is `x as f64`; Python's `float(x)`, `int(x)` and `bool(x)`
    /// take the one element of `x` as an f64, i64 or bool scalar.
    fn call_dtype(&mut self, func: &Ident, dtype: DType, args: &[Arg], span: &Span) -> R<Value> {
        let [arg] = args else {
            return Err(Diagnostic::new(
                "E0102",
                format!("`{}` takes one argument, found {}", func.name, args.len()),
                span.clone(),
            )
            .with_hint(format!("`{}(x)` converts `x`", func.name)));
        };
        if let Some(name) = &arg.name {
            return Err(Diagnostic::new(
                "E0103",
                format!("`{}` has no parameter named `{}`", func.name, name.name),
                name.span.clone(),
            ));
        }
        let x = self.eval_array(&arg.value)?;
        let (dtype, scalar) = crate::check::dtype::dtype_call(&func.name, dtype);
        let x = if scalar {
            crate::check::shape::check_scalar_conversion(
                &func.name,
                (Some(x.dtype()), &dims(x.shape())),
                &arg.value.span,
            )?;
            build::reshape(&x, &[], span)
        } else {
            x
        };
        Ok(Value::Array(
            self.fold(build::cast(&x, dtype, Some(span)).with_weak(false))?,
        ))
    }

    fn eval_args(&mut self, args: &[Arg], sequence_params: bool) -> R<Vec<CallArg<Value>>> {
        args.iter()
            .map(|arg| {
                // `concat([a, b])`: a list of arrays of different shapes is a sequence, not one array.
                let value = match (&arg.value.kind, sequence_params) {
                    (ExprKind::ArrayLit(items), true) => {
                        Value::Tuple(items.iter().map(|e| self.eval(e)).collect::<R<_>>()?)
                    }
                    _ => self.eval(&arg.value)?,
                };
                Ok(CallArg {
                    name: arg.name.as_ref().map(|n| (n.name.clone(), n.span.clone())),
                    value,
                    span: arg.value.span.clone(),
                })
            })
            .collect()
    }

    fn call_user(&mut self, def: &Rc<FnDef>, args: &[Arg], span: &Span) -> R<Value> {
        crate::interrupt::check()?;
        if self.frames.len() >= MAX_CALL_DEPTH {
            return Err(Diagnostic::new(
                "E0405",
                format!("calls nested more than {MAX_CALL_DEPTH} deep"),
                span.clone(),
            )
            .with_label(def.name.span.clone(), format!("`{}` is defined here", def.name.name))
            .with_hint("does the function call itself without a condition that stops it?"));
        }
        let values = self.eval_args(args, false)?;
        let params: Vec<(&str, bool, bool)> = def
            .params
            .iter()
            .map(|p| (p.name.name.as_str(), p.default.is_none(), false))
            .collect();
        let (slots, _) = bind(&def.name.name, &params, values, span)?;
        let mut sizes: HashMap<String, (usize, Span)> = HashMap::new();
        // Defaults are evaluated in the callee's scope, after the earlier parameters.
        let in_library = self
            .library
            .as_ref()
            .is_some_and(|(_, lib)| lib.start <= def.span.start && def.span.end <= lib.end);
        let frame = Frame::push(self, in_library);
        let this = &mut *frame.0;
        let result = (|| {
            for (param, slot) in def.params.iter().zip(slots) {
                let (value, arg_span) = match slot {
                    Some(v) => v,
                    None => {
                        let Some(default) = &param.default else {
                            unreachable!("bind checked required params")
                        };
                        (this.eval(default)?, default.span.clone())
                    }
                };
                let value = match &param.ann {
                    Some(ann) => this.check_annotation(value, ann, &mut sizes, &arg_span, &param.name.name)?,
                    None => value,
                };
                this.define(&param.name.name, value)?;
            }
            // Size variables of the annotations are values in the body: `fn f(x: [n]) = n * 2`.
            for (name, (size, _)) in &sizes {
                if let Some(f) = this.frames.last_mut() {
                    f.entry(name.clone())
                        .or_insert_with(|| Value::Array(build::scalar_i64(*size as i64, true)));
                }
            }
            let v = match &def.body.kind {
                ExprKind::Block(b) => this.block_value(&b.stmts)?,
                _ => this.eval(&def.body)?,
            };
            match &def.ret {
                Some(ann) => this.check_annotation(v, ann, &mut sizes, &def.body.span, "the result"),
                None => Ok(v),
            }
        })();
        drop(frame);
        result.map_err(|d| {
            // raised in this body, or in a call this body made (whose label, the last,
            // lies in this body): a library function's error two calls deep is still
            // labelled at the user's call, where `Session::render` shows it
            let in_def = |s: &Span| s.start >= def.span.start && s.end <= def.span.end;
            let inside = d.span.as_ref().is_some_and(in_def) || d.labels.last().is_some_and(|(s, _)| in_def(s));
            // A recursive function would otherwise get one label per level.
            let labelled = d.labels.iter().any(|(s, _)| s == span);
            if inside && !labelled {
                d.with_label(span.clone(), format!("in this call of `{}`", def.name.name))
            } else {
                d
            }
        })
    }

    /// Checks a value against `f32[n, m]`-style annotations, binding size variables.
    fn check_annotation(
        &mut self,
        value: Value,
        ann: &TypeAnn,
        sizes: &mut HashMap<String, (usize, Span)>,
        span: &Span,
        what: &str,
    ) -> R<Value> {
        let Value::Array(mut a) = value else {
            return Err(Diagnostic::new(
                "E0303",
                format!("{what} must be an array, found {}", value.kind_name()),
                span.clone(),
            )
            .with_label(ann.span.clone(), "declared here"));
        };
        if let Some(dt_name) = &ann.dtype {
            let Some(dt) = DType::parse(&dt_name.name) else {
                return Err(unknown_dtype(dt_name));
            };
            if a.dtype() != dt {
                // a literal converts, unless that loses its kind (2.5 into an i32)
                if a.weak && !crate::check::shape::same_kind_refuses(a.dtype(), dt) {
                    a = build::cast(&a, dt, Some(span)).with_weak(false);
                } else {
                    return Err(Diagnostic::new(
                        "E0304",
                        format!("{what} should be {dt}, found {}", a.dtype()),
                        span.clone(),
                    )
                    .with_label(ann.span.clone(), format!("declared as {dt} here"))
                    .with_hint(format!("convert it with `as {dt}`")));
                }
            }
        }
        if let Some(dims_ann) = &ann.dims {
            let shape = a.shape().to_vec();
            let t = describe(Some(a.dtype()), &dims(&shape));
            if dims_ann.len() != shape.len() {
                return Err(Diagnostic::new(
                    "E0207",
                    format!("{what} should have {} axes, found {t}", dims_ann.len()),
                    span.clone(),
                )
                .with_label(ann.span.clone(), "declared here"));
            }
            for (d, &n) in dims_ann.iter().zip(&shape) {
                match d {
                    DimAnn::Fixed(v, dspan) => {
                        if *v as usize != n {
                            return Err(Diagnostic::new(
                                "E0207",
                                format!("{what} should have size {v} here, found {t}"),
                                span.clone(),
                            )
                            .with_label(dspan.clone(), "declared here"));
                        }
                    }
                    DimAnn::Var(id) => match sizes.get(&id.name) {
                        Some((bound, bound_span)) if *bound != n => {
                            return Err(Diagnostic::new(
                                "E0207",
                                format!("size `{}` is {bound} and {n} at once", id.name),
                                span.clone(),
                            )
                            .with_primary_label(format!("here `{}` would be {n} ({t})", id.name))
                            .with_label(bound_span.clone(), format!("here `{}` is {bound}", id.name))
                            .with_hint(format!(
                                "every use of `{}` in the signature must have the same size",
                                id.name
                            )));
                        }
                        Some(_) => {}
                        None => {
                            sizes.insert(id.name.clone(), (n, span.clone()));
                        }
                    },
                }
            }
        }
        Ok(Value::Array(a))
    }

    /// Text of a value as `print` shows it.
    /// `t[k]` of a tuple (`meshgrid(x, y)[0]`): one integer, negative from the end.
    pub fn display(&mut self, v: &Value) -> R<String> {
        Ok(match v {
            Value::Array(a) => {
                let host = graph::to_host(&*self.backend, a)?;
                crate::format::format_array(&host, a.shape())
            }
            Value::Tuple(items) => {
                let parts: Vec<String> = items.iter().map(|i| self.display(i)).collect::<R<_>>()?;
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            Value::Str(s) => s.clone(),
            Value::DType(d) => d.name().to_string(),
            Value::Func(f) => format!("<fn {}>", f.name.name),
            Value::None => "none".into(),
            Value::Unit => String::new(),
        })
    }
}

/// The pending arrays of a value, appended to `out`.
/// The operators whose literal operand is made in the other operand's dtype
/// (`literal_meeting`, `host_literal`): arithmetic and comparisons, where
/// `graph::build` converts a literal exactly so (`cast_literal`) and no
/// error message names the literal's dtype. Not `**`, whose fast powers read
/// the literal's own value.
fn literal_op(op: BinOp) -> bool {
    use BinOp::*;
    matches!(op, Add | Sub | Mul | Div | FloorDiv | Rem | Eq | Ne | Lt | Le | Gt | Ge)
}

/// The value of a number literal.
fn literal_meeting(e: &Expr) -> Option<HostScalar> {
    match e.kind {
        ExprKind::Int(v) => Some(HostScalar::I64(v)),
        ExprKind::Float(v) => Some(HostScalar::F64(v)),
        _ => None,
    }
}

/// A binary expression's literal operand (the left one if both are), the
/// other operand, and whether the literal is on the left.
fn literal_side<'e>(l: &'e Expr, r: &'e Expr) -> Option<(HostScalar, &'e Expr, bool)> {
    match (literal_meeting(l), literal_meeting(r)) {
        (Some(v), _) => Some((v, r, true)),
        (None, Some(v)) => Some((v, l, false)),
        (None, None) => None,
    }
}

/// A number literal as a weak scalar, in `with`'s dtype where the graph
/// builder would convert it to that (`graph::build::cast_literal`: a float
/// literal meeting f32, an integer literal meeting f32 or f64), else in its
/// own; the same value either way, one scalar made instead of two.
fn host_literal(lit: HostScalar, with: Option<DType>) -> Array {
    match (lit, with) {
        (HostScalar::F64(v), Some(DType::F32)) => build::scalar(DType::F32, v, true),
        (HostScalar::I64(v), Some(d @ (DType::F32 | DType::F64))) => {
            Array::from_host(HostData::scalar_i64(d, v), &[]).with_weak(true)
        }
        (HostScalar::F64(v), _) => build::scalar(DType::F64, v, true),
        (HostScalar::I64(v), _) => build::scalar_i64(v, true),
    }
}

fn pending_arrays(v: &Value, out: &mut Vec<Array>) {
    match v {
        Value::Array(a) if !a.is_ready() => out.push(a.clone()),
        Value::Tuple(items) => items.iter().for_each(|i| pending_arrays(i, out)),
        _ => {}
    }
}

/// Whether `v` holds a pending array (what `pending_arrays` would collect).
fn has_pending(v: &Value) -> bool {
    match v {
        Value::Array(a) => !a.is_ready(),
        Value::Tuple(items) => items.iter().any(has_pending),
        _ => false,
    }
}

fn arrays_of(v: &Value) -> Vec<Array> {
    match v {
        Value::Array(a) => vec![a.clone()],
        Value::Tuple(items) => items.iter().flat_map(arrays_of).collect(),
        _ => vec![],
    }
}

/// Appends `src` to `dst`; both have one dtype (the caller casts first).
fn append(dst: &mut HostData, src: HostData) -> R<()> {
    let (to, from) = (dst.dtype(), src.dtype());
    crate::with_same_data!(dst, src, a, b => a.extend(b), else {
        return Err(Diagnostic::spanless(
            "E0499",
            format!("internal: appending {from} values to {to}"),
        ));
    });
    Ok(())
}

/// A rank-0 i64 or f64 array whose value is on the host.
#[derive(Clone, Copy)]
enum HostScalar {
    I64(i64),
    F64(f64),
}

impl HostScalar {
    fn to_f64(self) -> HostScalar {
        match self {
            HostScalar::I64(v) => HostScalar::F64(v as f64),
            f => f,
        }
    }
}

/// E0208 for a write into a broadcast view (`broadcast_to`, a stride-0 axis): its
/// elements share memory, as NumPy's read-only broadcast views.
pub(crate) fn writable(dst: &Array, target_span: &Span) -> R<()> {
    if dst
        .view
        .shape
        .iter()
        .zip(&dst.view.strides)
        .any(|(&d, &s)| d > 1 && s == 0)
        || dst.readonly
    {
        return Err(
            Diagnostic::new("E0208", "cannot write into a broadcast view", target_span.clone())
                .with_hint("its elements share memory; make a copy first with `copy(x)`"),
        );
    }
    Ok(())
}

fn host_scalar(a: &Array) -> Option<HostScalar> {
    if a.rank() != 0 {
        return None;
    }
    let graph::NodeState::Ready(buffer) = &*a.node.state.borrow() else {
        return None;
    };
    match &*buffer.storage() {
        graph::Storage::Host(HostData::I64(v)) => v.get(a.view.offset).copied().map(HostScalar::I64),
        graph::Storage::Host(HostData::F64(v)) => v.get(a.view.offset).copied().map(HostScalar::F64),
        _ => None,
    }
}

/// How deep `fold_node` looks through pending one-element inputs: the
/// builder's cast in front of an op, over arithmetic on two host values, is
/// two levels; anything deeper was left pending for a reason (a device value
/// at its bottom) and is not searched again at every new op.
const FOLD_DEPTH: usize = 4;

/// Computes `node` on the host when it is one element of elementwise
/// arithmetic on host-stored values (folding its one-element inputs first,
/// at most `depth` levels down); whether it is ready now.
fn fold_node(node: &Rc<graph::Node>, depth: usize) -> R<bool> {
    if node.is_ready() {
        return Ok(node
            .buffer()
            .is_some_and(|b| matches!(&*b.storage(), graph::Storage::Host(_))));
    }
    if node.size() != 1 || depth == 0 {
        return Ok(false);
    }
    let inputs: Vec<Rc<graph::Node>> = match &*node.state.borrow() {
        graph::NodeState::Pending { op, inputs } if op.is_elementwise() => {
            inputs.iter().map(|i| i.node.clone()).collect()
        }
        _ => return Ok(false),
    };
    for i in &inputs {
        if !fold_node(i, depth - 1)? {
            return Ok(false);
        }
    }
    crate::backend::cpu::fold_scalar(node)?;
    Ok(true)
}

/// `a op b` on two host scalars of one dtype (i64 or f64), computed
/// directly: loop counters and `s += i` are most of what a scalar loop
/// does, and building, folding and dropping a graph node for each costs
/// ten times the arithmetic. The dtype and weakness come from the same
/// promotion as `build::binary`, and the arithmetic is the CPU kernels'
/// (wrapping integers, IEEE floats); an i64 meeting an f64 is converted
/// as the builder's cast would, `as f64`; anything else (`/` and `%` and
/// `**` on integers, logic) takes the general path.
fn scalar_binary(op: BinOp, a: &Array, b: &Array) -> Option<Array> {
    let x = HostValue::num(host_scalar(a)?, a.dtype(), a.weak);
    let y = HostValue::num(host_scalar(b)?, b.dtype(), b.weak);
    host_binary(op, x, y).map(HostValue::to_array)
}

/// `x op y` of two host values, with the builder's promotion
/// (`promote_weak`; an i64 meeting an f64 converted `as f64`) and the CPU
/// kernels' arithmetic (`scalar_arith`); None for what takes the graph's
/// path: bools, `and`/`or`, and whatever that path reports as an error (a
/// literal integer result beyond i64 is E0307, not wrapped; a division by zero).
fn host_binary(op: BinOp, x: HostValue, y: HostValue) -> Option<HostValue> {
    let (Scalar::Num(p), Scalar::Num(q)) = (x.value, y.value) else {
        return None;
    };
    if let (true, HostScalar::I64(p), HostScalar::I64(q)) = (x.weak && y.weak, p, q)
        && !crate::check::dtype::literal_int_op_fits(op, p, q)
    {
        return None;
    }
    let (dtype, weak) = crate::check::dtype::promote_weak(x.dtype, x.weak, y.dtype, y.weak);
    let (p, q) = if dtype == DType::F64 {
        (p.to_f64(), q.to_f64())
    } else {
        (p, q)
    };
    let value = scalar_arith(op, p, q, dtype)?;
    let dtype = match value {
        Scalar::Bool(_) => DType::Bool,
        Scalar::Num(_) => dtype,
    };
    Some(HostValue { value, dtype, weak })
}

/// The operands of `a op b` when both are integers made from literals
/// (weak i64 host scalars, Python's unbounded integers to a NumPy user) and
/// the exact result does not fit in i64: NumPy raises on such a value where
/// it meets an array, so Arr does not wrap it silently. A strong i64 (from
/// an array) wraps as NumPy's int64 does.
fn literal_int_overflow(op: BinOp, a: &Array, b: &Array) -> Option<(i64, i64)> {
    if !(a.weak && b.weak) {
        return None;
    }
    let (HostScalar::I64(x), HostScalar::I64(y)) = (host_scalar(a)?, host_scalar(b)?) else {
        return None;
    };
    (!crate::check::dtype::literal_int_op_fits(op, x, y)).then_some((x, y))
}

#[derive(Clone, Copy)]
enum Scalar {
    Num(HostScalar),
    Bool(bool),
}

/// How deep `Interp::host_eval` follows operators before leaving an
/// expression to `eval` (a scalar loop's expressions are a few deep).
const HOST_EVAL_DEPTH: usize = 32;

/// A value `Interp::host_eval` computed on the host, with the dtype and
/// weakness its array would have.
#[derive(Clone, Copy)]
struct HostValue {
    value: Scalar,
    dtype: DType,
    weak: bool,
}

impl HostValue {
    fn num(value: HostScalar, dtype: DType, weak: bool) -> HostValue {
        HostValue {
            value: Scalar::Num(value),
            dtype,
            weak,
        }
    }

    /// The rank-0 array `eval` makes for it.
    fn to_array(self) -> Array {
        match self.value {
            Scalar::Num(HostScalar::I64(v)) => build::scalar_i64(v, self.weak),
            Scalar::Num(HostScalar::F64(v)) => build::scalar(DType::F64, v, self.weak),
            Scalar::Bool(v) => build::scalar(DType::Bool, v as u8 as f64, false).with_weak(self.weak),
        }
    }
}

/// The arithmetic of `scalar_binary`, when `x` and `y` both have `dtype`.
fn scalar_arith(op: BinOp, x: HostScalar, y: HostScalar, dtype: DType) -> Option<Scalar> {
    let cmp = |o: std::cmp::Ordering| {
        Some(Scalar::Bool(match op {
            BinOp::Lt => o.is_lt(),
            BinOp::Le => o.is_le(),
            BinOp::Gt => o.is_gt(),
            BinOp::Ge => o.is_ge(),
            BinOp::Eq => o.is_eq(),
            _ => o.is_ne(),
        }))
    };
    let is_cmp = matches!(
        op,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
    );
    match (x, y) {
        (HostScalar::I64(x), HostScalar::I64(y)) if dtype == DType::I64 => match op {
            BinOp::Add => Some(Scalar::Num(HostScalar::I64(x.wrapping_add(y)))),
            BinOp::Sub => Some(Scalar::Num(HostScalar::I64(x.wrapping_sub(y)))),
            BinOp::Mul => Some(Scalar::Num(HostScalar::I64(x.wrapping_mul(y)))),
            // the reference kernels' own scalar functions; `None` (by zero, a
            // negative power) leaves the error to the graph's path
            BinOp::Rem => Some(Scalar::Num(HostScalar::I64(Num::rem(x, y)?))),
            BinOp::FloorDiv => Some(Scalar::Num(HostScalar::I64(Num::floor_div(x, y)?))),
            BinOp::Pow => Some(Scalar::Num(HostScalar::I64(Num::pow(x, y)?))),
            _ if let Some(bit) = crate::check::prim::BitOp::of(op) => {
                Some(Scalar::Num(HostScalar::I64(bit.eval_i64(x, y))))
            }
            _ if is_cmp => cmp(x.cmp(&y)),
            _ => None,
        },
        (HostScalar::F64(x), HostScalar::F64(y)) if dtype == DType::F64 => {
            let num = |v: f64| Some(Scalar::Num(HostScalar::F64(v)));
            match op {
                BinOp::Add => num(x + y),
                BinOp::Sub => num(x - y),
                BinOp::Mul => num(x * y),
                BinOp::Div => num(x / y),
                BinOp::Rem => num(Num::rem(x, y)?),
                BinOp::FloorDiv => num(Num::floor_div(x, y)?),
                // as `graph::build::binary` computes a float power of a scalar
                BinOp::Pow if y == 0.5 => num(x.sqrt()),
                BinOp::Pow if y == -1.0 => num(1.0 / x),
                BinOp::Pow => num(Num::pow(x, y)?),
                // IEEE: every comparison with NaN is false but `!=`.
                _ if is_cmp => match x.partial_cmp(&y) {
                    Some(o) => cmp(o),
                    None => Some(Scalar::Bool(op == BinOp::Ne)),
                },
                _ => None,
            }
        }
        _ => None,
    }
}

/// Writes `v` into the rank-0 host array `a` when nothing but `a` holds its
/// node and buffer (no pending graph, view or cache can see the change) and
/// `v` has its dtype.
fn overwrite_scalar(a: &mut Array, v: HostScalar) -> bool {
    if a.rank() != 0 || Rc::strong_count(&a.node) != 1 || Rc::weak_count(&a.node) != 0 {
        return false;
    }
    let graph::NodeState::Ready(buffer) = &*a.node.state.borrow() else {
        return false;
    };
    if !buffer.is_unique() {
        return false;
    }
    let mut storage = buffer.storage_mut();
    match (&mut *storage, v) {
        (graph::Storage::Host(HostData::I64(d)), HostScalar::I64(v)) => match d.get_mut(a.view.offset) {
            Some(slot) => *slot = v,
            None => return false,
        },
        (graph::Storage::Host(HostData::F64(d)), HostScalar::F64(v)) => match d.get_mut(a.view.offset) {
            Some(slot) => *slot = v,
            None => return false,
        },
        _ => return false,
    }
    true
}

/// Whether computing `a` can fail on some inputs: integer modulo by zero
/// (E0400) and integer powers with a negative exponent (E0401). Everything
/// else the graph builder has already checked (shapes, indices, segments).
fn can_fail(a: &Array) -> bool {
    a.dtype().is_int()
        && matches!(
            &*a.node.state.borrow(),
            graph::NodeState::Pending {
                op: graph::op::Op::Binary(
                    graph::op::BinaryOp::Rem | graph::op::BinaryOp::FloorDiv | graph::op::BinaryOp::Pow
                ),
                ..
            }
        )
}

fn outside_loop(span: Span) -> Diagnostic {
    Diagnostic::new("E0406", "`break` or `continue` outside a loop", span)
        .with_hint("they can only appear in `for` and `while` bodies")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpu::CpuBackend;
    use crate::graph::data::HostData;
    use crate::graph::view::View;
    use crate::graph::{Buffer, Node};
    use std::cell::RefCell;

    /// The CPU backend, noting which nodes each realize asks for. With
    /// `fusing`, it leaves every node it was not asked for pending afterwards,
    /// as a GPU backend does with what it fuses into a consumer's kernel.
    #[derive(Default)]
    struct Recording {
        cpu: CpuBackend,
        outputs: RefCell<Vec<u64>>,
        fusing: bool,
    }

    impl Backend for Recording {
        fn describe(&self) -> String {
            "recording".into()
        }
        fn execute(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> R<()> {
            self.outputs.borrow_mut().extend(outputs.iter().map(|n| n.id));
            let asked: Vec<u64> = outputs.iter().map(|n| n.id).collect();
            let fused: Vec<(Rc<Node>, graph::NodeState)> = nodes
                .iter()
                .filter(|n| self.fusing && !asked.contains(&n.id))
                .filter_map(|n| match &*n.state.borrow() {
                    graph::NodeState::Pending { op, inputs } => Some((
                        n.clone(),
                        graph::NodeState::Pending {
                            op: op.clone(),
                            inputs: inputs.clone(),
                        },
                    )),
                    graph::NodeState::Ready(_) => None,
                })
                .collect();
            self.cpu.execute(nodes, outputs)?;
            for (n, pending) in fused {
                *n.state.borrow_mut() = pending;
            }
            Ok(())
        }
        fn read(&self, buffer: &Buffer, view: &View, dtype: DType) -> R<HostData> {
            self.cpu.read(buffer, view, dtype)
        }
        fn write(&self, dst: &Buffer, dst_view: &View, src: &Array) -> R<()> {
            self.cpu.write(dst, dst_view, src)
        }
        fn adopt(&self, data: HostData) -> R<Buffer> {
            self.cpu.adopt(data)
        }
    }

    fn run(src: &str) -> (Interp, Rc<Recording>) {
        run_on(src, Recording::default())
    }

    fn run_on(src: &str, backend: Recording) -> (Interp, Rc<Recording>) {
        let backend = Rc::new(backend);
        let mut interp = Interp::new(backend.clone());
        interp.out = Box::new(std::io::sink());
        let program = crate::syntax::parse_program(src, 0).expect("parses");
        interp.run(&program).expect("runs");
        (interp, backend)
    }

    fn node_of(interp: &Interp, name: &str) -> Rc<Node> {
        match interp.globals.get(name) {
            Some(Value::Array(a)) => a.node.clone(),
            _ => panic!("{name} is not an array"),
        }
    }

    #[test]
    fn a_temporary_that_feeds_a_reduction_is_not_an_output() {
        let (it, rec) = run(
            "let a = rand([8])\nlet b = rand([8])\nfor i in 0..3 {\n    let d = a[:, newaxis] - b[newaxis, :]\n    let s = sum(d * d, axis=1)\n}",
        );
        let outputs = rec.outputs.borrow();
        assert!(
            outputs.contains(&node_of(&it, "s").id),
            "the iteration's result is asked for"
        );
        assert!(
            !outputs.contains(&node_of(&it, "d").id),
            "its temporary may stream into the sum's kernel"
        );
    }

    #[test]
    fn loop_carried_values_are_realized_every_iteration() {
        let (it, rec) = run("let x = zeros([4])\nfor i in 0..3 {\n    x = x + 1\n    let y = sum(x)\n}");
        assert!(
            node_of(&it, "x").is_ready(),
            "a carried value does not grow a graph across iterations"
        );
        assert!(rec.outputs.borrow().contains(&node_of(&it, "x").id));
    }

    #[test]
    fn a_local_whose_value_a_realize_used_is_not_stored_again() {
        let fusing = Recording {
            fusing: true,
            ..Recording::default()
        };
        let (it, rec) = run_on(
            "for i in 0..3 {\n    let c = rand([8]) * 2.0\n    let u = c + 1.0\n    print(sum(c), max(u))\n    let w = c * 3.0\n}",
            fusing,
        );
        let outputs = rec.outputs.borrow();
        assert!(!node_of(&it, "c").is_ready(), "computed inside the sum's kernel");
        assert!(
            !outputs.contains(&node_of(&it, "c").id) && !outputs.contains(&node_of(&it, "u").id),
            "used by the printed reductions, so the iteration end does not store them"
        );
        assert!(
            outputs.contains(&node_of(&it, "w").id),
            "a value nothing has used is still computed every iteration"
        );
    }

    #[test]
    fn only_fallible_nodes_are_computed_at_the_end_of_their_statement() {
        let (it, rec) = run("let z = arange(3) + 1\nlet q = 10 % z\nlet w = q * 2\nlet y = z * 3");
        assert!(
            node_of(&it, "q").is_ready(),
            "an integer `%` is checked at its statement"
        );
        assert_eq!(
            *rec.outputs.borrow(),
            vec![node_of(&it, "q").id],
            "and nothing else is asked for"
        );
        assert!(!node_of(&it, "w").is_ready(), "what consumes it stays lazy");
        assert!(!node_of(&it, "y").is_ready(), "what cannot fail stays lazy");
    }
}
