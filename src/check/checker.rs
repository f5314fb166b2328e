//! The static checker: walks a program before it runs and reports every error
//! it can prove: unknown names and functions, wrong arguments, dtype misuse,
//! shapes that cannot broadcast, axes out of range, non-bool conditions, bad
//! annotations, `break` outside loops. Sizes it cannot know are `None` and
//! never produce an error; the graph builder checks them again at run time
//! with the same rules.

use super::builtins::{self, CallArg, bind};
use super::dtype::{DType, promote_weak};
use super::prim::{BitOp, UnaryOp, UnarySig, bits_sig, unary_sig};
use super::shape::{self, Dim, Operand};
use crate::diag::{Diagnostic, closest};
use crate::syntax::ast::*;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// What the checker knows of a value.
#[derive(Clone, Debug)]
pub enum Ty {
    Array {
        dtype: Option<DType>,
        shape: Option<Vec<Dim>>,
        weak: bool,
        value: Option<f64>,
    },
    Tuple(Vec<Ty>),
    /// A string, and its text where known (a literal: `mode="complete"`).
    Str(Option<String>),
    /// A dtype, and which where known.
    DType(Option<DType>),
    Func(Rc<FnDef>),
    None,
    Unit,
    Unknown,
}

impl Ty {
    /// A string, or a tuple holding one (`Value::holds_text`).
    fn holds_text(&self) -> bool {
        match self {
            Ty::Str(_) => true,
            Ty::Tuple(items) => items.iter().any(Ty::holds_text),
            _ => false,
        }
    }

    pub fn array(dtype: DType, shape: &[usize]) -> Ty {
        Ty::Array {
            dtype: Some(dtype),
            shape: Some(shape::dims(shape)),
            weak: false,
            value: None,
        }
    }

    fn constant(dtype: DType, v: f64) -> Ty {
        Ty::Array {
            dtype: Some(dtype),
            shape: Some(vec![]),
            weak: true,
            value: Some(v),
        }
    }

    fn value(&self) -> Option<f64> {
        match self {
            Ty::Array { value, .. } => *value,
            _ => None,
        }
    }
}

/// An operand whose shape is known: dtype, shape, and where it was written.
type KnownOperand = (Option<DType>, Vec<Dim>, Option<Span>);

/// The types of the names a program starts with (the session's variables).
pub type TypeEnv = HashMap<String, Ty>;

pub fn check_program(program: &Program, env: &TypeEnv) -> Vec<Diagnostic> {
    check_program_with_library(program, env, None)
}

/// `check_program`, with the standard library's names and the source offsets
/// of its text: a library function's body is walked with those names, not the
/// program's (as the run's `Interp::lookup` reads them), so that a program's
/// `let pi = 3` or `fn mean(x)` is not what the library's functions see.
pub fn check_program_with_library(
    program: &Program,
    env: &TypeEnv,
    library: Option<(TypeEnv, std::ops::Range<usize>)>,
) -> Vec<Diagnostic> {
    let mut top_names: HashSet<String> = env.keys().cloned().collect();
    for stmt in &program.stmts {
        collect_defined(stmt, &mut top_names);
    }
    let mut c = Checker {
        scopes: vec![env.clone()],
        errors: Vec::new(),
        loop_depth: 0,
        top_names,
        in_fn: false,
        const_lists: HashMap::new(),
        exact: 0,
        calls_left: MAX_INSTANCES,
        list_names: HashMap::new(),
        library,
        in_library: false,
    };
    c.stmts(&program.stmts);
    c.errors
}

fn collect_defined(stmt: &Stmt, out: &mut HashSet<String>) {
    match &stmt.kind {
        StmtKind::Let { target, .. } => pattern_names(target, out),
        StmtKind::Fn(def) => {
            out.insert(def.name.name.clone());
        }
        StmtKind::For { var, body, .. } => {
            out.insert(var.name.clone());
            body.stmts.iter().for_each(|s| collect_defined(s, out));
        }
        StmtKind::ForEach { var, body, .. } => {
            pattern_names(var, out);
            body.stmts.iter().for_each(|s| collect_defined(s, out));
        }
        StmtKind::While { body, .. } => body.stmts.iter().for_each(|s| collect_defined(s, out)),
        StmtKind::Expr(Expr {
            kind: ExprKind::If { arms, otherwise },
            ..
        }) => {
            let blocks = arms.iter().map(|(_, then)| then).chain(otherwise);
            blocks.flat_map(|b| &b.stmts).for_each(|s| collect_defined(s, out));
        }
        _ => {}
    }
}

fn pattern_names(p: &Pattern, out: &mut HashSet<String>) {
    match p {
        Pattern::Name(id) | Pattern::Rest(id) => {
            out.insert(id.name.clone());
        }
        Pattern::Tuple(items, _) => items.iter().for_each(|i| pattern_names(i, out)),
    }
}

/// Names assigned anywhere in these statements (their types change in loops).
fn assigned_names(stmts: &[Stmt], out: &mut HashSet<String>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign {
                target: Expr {
                    kind: ExprKind::Name(n),
                    ..
                },
                ..
            } => {
                out.insert(n.clone());
            }
            StmtKind::Let { target, .. } => pattern_names(target, out),
            StmtKind::For { body, var, .. } => {
                out.insert(var.name.clone());
                assigned_names(&body.stmts, out);
            }
            StmtKind::ForEach { body, var, .. } => {
                pattern_names(var, out);
                assigned_names(&body.stmts, out);
            }
            StmtKind::While { body, .. } => assigned_names(&body.stmts, out),
            StmtKind::Expr(e) => assigned_in_expr(e, out),
            _ => {}
        }
    }
}

fn assigned_in_expr(e: &Expr, out: &mut HashSet<String>) {
    match &e.kind {
        ExprKind::If { arms, otherwise } => {
            for b in arms.iter().map(|(_, then)| then).chain(otherwise) {
                assigned_names(&b.stmts, out);
            }
        }
        ExprKind::Block(b) => assigned_names(&b.stmts, out),
        _ => {}
    }
}

struct Checker {
    scopes: Vec<TypeEnv>,
    errors: Vec<Diagnostic>,
    loop_depth: usize,
    /// Every name the program defines at top level: a function body may use
    /// a global defined after the function, as long as it is before the call.
    top_names: HashSet<String>,
    in_fn: bool,
    /// The values of the list literals of constant numbers, by span: a
    /// builtin's values (`take`'s indices, `percentile`'s `q`) given as one.
    const_lists: HashMap<Span, Vec<f64>>,
    /// How many calls deep the checker walks a function's body with its
    /// arguments' types (`instance`); above 0 it follows only the statements
    /// known to run, and reports an error only where it is certain to happen.
    exact: usize,
    /// Bodies it may still walk so (a bound on the work of a program of many calls).
    calls_left: usize,
    /// The integers of the names bound to a list literal of integers
    /// (`let i = [0, 5]`), by the index of the scope that binds them.
    list_names: HashMap<(usize, String), Vec<i64>>,
    /// The standard library's names and the offsets of its source, and whether
    /// the body being walked is one of its functions' (then scope 0 holds them).
    library: Option<(TypeEnv, std::ops::Range<usize>)>,
    in_library: bool,
}

/// How deep calls are followed into their bodies, and how many bodies a check walks so.
const MAX_INSTANCE_DEPTH: usize = 12;
const MAX_INSTANCES: usize = 4000;

impl Checker {
    /// Whether statements here run exactly once, in order (top level, outside
    /// loops and functions): a name not yet defined here is not defined when it runs.
    fn straight_line(&self) -> bool {
        !self.in_fn && self.loop_depth == 0
    }

    fn lookup(&self, name: &str) -> Option<&Ty> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn define(&mut self, name: &str, ty: Ty) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(name.to_string(), ty);
        }
        let key = (self.scopes.len().saturating_sub(1), name.to_string());
        self.list_names.remove(&key);
    }

    /// The integers `name` was bound to by a list literal of them, where it still holds them.
    fn name_list(&self, name: &str) -> Option<Vec<i64>> {
        let scope = self.scopes.iter().rposition(|s| s.contains_key(name))?;
        self.list_names.get(&(scope, name.to_string())).cloned()
    }

    /// The integers of an index item written as a list of integer literals, or
    /// held in a name bound to one (`let i = [0, 5]` then `a[i]`).
    fn index_list(&self, x: &Expr) -> Option<Vec<i64>> {
        literal_int_list(x).or_else(|| match &x.kind {
            ExprKind::Name(n) => self.name_list(n),
            _ => None,
        })
    }

    /// Runs `walk` over code that may not run (a branch of an unknown
    /// condition, a loop body): in an exact walk its errors are dropped,
    /// since they are certain only if it runs.
    fn tentatively<T>(&mut self, walk: impl FnOnce(&mut Self) -> T) -> T {
        let before = self.errors.len();
        let t = walk(self);
        if self.exact > 0 {
            self.errors.truncate(before);
        }
        t
    }

    fn forget(&mut self, names: &HashSet<String>) {
        for n in names {
            if self.lookup(n).is_some() {
                self.define(n, Ty::Unknown);
            }
        }
    }

    /// The "did you mean" hint for an unknown name: a name of the right kind
    /// (a value where a value is used, a function where a call is made), the
    /// user's own names preferred on a tie, and NumPy/Python habits (`len`)
    /// mapped to Arr's builtin.
    fn suggestion(&self, name: &str, called: bool) -> Option<String> {
        if called && let Some((_, hint)) = ALIASES.iter().find(|(alias, _)| *alias == name) {
            return Some(hint.to_string());
        }
        if let Some(hint) = python_name_hint(name) {
            return Some(hint);
        }
        let is_func = |n: &str| matches!(self.lookup(n), Some(Ty::Func(_)));
        // Names defined later at top level have no type yet: either kind fits.
        let untyped = self.top_names.iter().filter(|n| self.lookup(n).is_none());
        let mut user: Vec<&str> = self
            .scopes
            .iter()
            .flat_map(|s| s.keys())
            .filter(|n| is_func(n) == called)
            .chain(untyped)
            .map(String::as_str)
            .collect();
        user.sort_unstable();
        user.dedup();
        let builtin: &[&str] = if called { &builtins::names() } else { &[] };
        nearest_name(name, &user, builtin).map(|c| format!("did you mean `{c}`?"))
    }

    fn stmts(&mut self, stmts: &[Stmt]) -> Ty {
        let mut last = Ty::Unit;
        for s in stmts {
            last = self.stmt(s);
        }
        last
    }

    fn stmt(&mut self, stmt: &Stmt) -> Ty {
        match &stmt.kind {
            StmtKind::Let { target, value } => {
                let t = self.expr(value);
                self.bind(target, t, &value.span);
                if let (Pattern::Name(id), Some(list)) = (target, literal_int_list(value)) {
                    let key = (self.scopes.len().saturating_sub(1), id.name.clone());
                    self.list_names.insert(key, list);
                }
                Ty::Unit
            }
            StmtKind::Assign { target, op, value } => {
                let v = self.expr(value);
                match &target.kind {
                    ExprKind::Name(n) => {
                        if self.lookup(n).is_none() && (self.in_fn || !self.top_names.contains(n)) {
                            let mut d = Diagnostic::new("E0100", format!("unknown name `{n}`"), target.span.clone())
                                .with_primary_label("not defined here");
                            d.hint = Some(format!("use `let {n} = ...` to define it"));
                            self.errors.push(d);
                        } else if let Some(op) = op {
                            // an array of rank 1 or more keeps its dtype and shape (it is
                            // updated in place, as NumPy's); a scalar follows promotion
                            let current = self.lookup(n).cloned();
                            let kept = match current {
                                Some(Ty::Array {
                                    dtype,
                                    shape: Some(shape),
                                    weak,
                                    ..
                                }) if !shape.is_empty() => {
                                    let current = Ty::Array {
                                        dtype,
                                        shape: Some(shape.clone()),
                                        weak,
                                        value: None,
                                    };
                                    let result =
                                        self.binary(*op, current.clone(), v, &target.span, &value.span, &stmt.span);
                                    let (rd, rs) = match &result {
                                        Ty::Array { dtype, shape, .. } => (*dtype, shape.as_deref()),
                                        _ => (None, None),
                                    };
                                    if let Err(d) = shape::check_update(
                                        n,
                                        op.symbol(),
                                        (dtype, &shape),
                                        (rd, rs),
                                        (&target.span, &value.span, &stmt.span),
                                    ) {
                                        self.errors.push(d);
                                    }
                                    current
                                }
                                // a scalar rebinds to `x op e` (its value left unknown:
                                // a loop body runs it again), by the expression's rules
                                // (E0307 for literal integers that overflow)
                                Some(current @ Ty::Array { shape: Some(_), .. }) => {
                                    match self.binary(*op, current, v, &target.span, &value.span, &stmt.span) {
                                        Ty::Array { dtype, shape, weak, .. } => Ty::Array {
                                            dtype,
                                            shape,
                                            weak,
                                            value: None,
                                        },
                                        _ => Ty::Unknown,
                                    }
                                }
                                _ => Ty::Unknown,
                            };
                            self.define(n, kept);
                        } else {
                            self.define(n, v);
                        }
                    }
                    _ => {
                        // a constant index list gathers (`Interp::assign_gathered`), which
                        // drops a value's leading size-1 axes beyond the selection's rank
                        let gathered = match &target.kind {
                            ExprKind::Index { indices, .. } => indices
                                .iter()
                                .any(|i| matches!(&i.kind, IndexKind::Expr(x) if self.index_list(x).is_some())),
                            _ => false,
                        };
                        // `t[0] = 5` of a tuple: the run's `expect_array` of the base
                        if let ExprKind::Index { base, .. } = &target.kind
                            && let ExprKind::Name(n) = &base.kind
                            && matches!(self.lookup(n), Some(Ty::Tuple(_)))
                        {
                            self.errors.push(Diagnostic::new(
                                "E0303",
                                "expected an array, found a tuple",
                                base.span.clone(),
                            ));
                            return Ty::Unit;
                        }
                        let t = self.expr(target);
                        if let ExprKind::Index { base, .. } = &target.kind
                            && let ExprKind::Name(n) = &base.kind
                            && let Some(scope) = self.scopes.iter().rposition(|s| s.contains_key(n))
                        {
                            self.list_names.remove(&(scope, n.clone()));
                        }
                        // the run's `expect_array` of the value (a function is its E0106)
                        if matches!(t, Ty::Array { .. })
                            && let Some(kind) = non_array(&v).filter(|_| !matches!(v, Ty::Func(_)))
                        {
                            self.errors.push(Diagnostic::new(
                                "E0303",
                                format!("expected an array, found {kind}"),
                                value.span.clone(),
                            ));
                        }
                        if let Ty::Array { dtype: Some(d), .. } = t
                            && let Some(d) = int_overflow(&v, d, &value.span)
                        {
                            self.errors.push(d);
                        }
                        // a value of a known shape (a list literal's too) that cannot
                        // broadcast to the slice
                        if op.is_none()
                            && let (
                                Ty::Array {
                                    dtype: Some(td),
                                    shape: Some(ts),
                                    ..
                                },
                                Ty::Array {
                                    dtype: Some(vd),
                                    shape: Some(vs),
                                    ..
                                },
                            ) = (&t, &v)
                        {
                            let extra = vs.len().saturating_sub(ts.len());
                            let vs = match gathered && vs[..extra].iter().all(|&d| d == Some(1)) {
                                true => &vs[extra..],
                                false => &vs[..],
                            };
                            if let Err(d) =
                                shape::check_assign_fits((*td, ts), (*vd, vs), (&target.span, &value.span, &stmt.span))
                            {
                                self.errors.push(d);
                            }
                        }
                    }
                }
                Ty::Unit
            }
            StmtKind::Expr(e) => self.expr(e),
            StmtKind::Fn(def) => {
                if let Some(d) = repeated_param(def) {
                    self.errors.push(d);
                }
                self.define(&def.name.name, Ty::Func(def.clone()));
                self.function_body(def);
                Ty::Unit
            }
            StmtKind::For { var, start, end, body } => {
                for e in [start, end] {
                    let t = self.expr(e);
                    if let Ty::Array { dtype: Some(dt), .. } = t
                        && !dt.is_int()
                    {
                        self.errors.push(
                            Diagnostic::new(
                                "E0305",
                                format!("a loop bound must be an integer, found {dt}"),
                                e.span.clone(),
                            )
                            .with_hint("convert it with `as i64`"),
                        );
                    }
                }
                let mut changed = HashSet::new();
                assigned_names(&body.stmts, &mut changed);
                self.forget(&changed);
                self.define(
                    &var.name,
                    Ty::Array {
                        dtype: Some(DType::I64),
                        shape: Some(vec![]),
                        weak: true,
                        value: None,
                    },
                );
                self.loop_depth += 1;
                self.tentatively(|c| c.stmts(&body.stmts));
                self.loop_depth -= 1;
                self.forget(&changed);
                Ty::Unit
            }
            StmtKind::ForEach { var, iter, body } => {
                let t = self.expr(iter);
                // the element type: the first axis dropped (unknown for a tuple)
                let elem = match t {
                    Ty::Array { shape: Some(s), .. } if s.is_empty() => {
                        self.errors.push(
                            Diagnostic::new("E0303", "cannot loop over a scalar", iter.span.clone())
                                .with_hint("`for v in x` walks the first axis of an array of rank 1 or more"),
                        );
                        Ty::Unknown
                    }
                    Ty::Array { dtype, shape, .. } => Ty::Array {
                        dtype,
                        shape: shape.map(|s| s[1..].to_vec()),
                        weak: false,
                        value: None,
                    },
                    _ => Ty::Unknown,
                };
                let mut changed = HashSet::new();
                assigned_names(&body.stmts, &mut changed);
                self.forget(&changed);
                self.bind(var, elem, &iter.span);
                self.loop_depth += 1;
                self.tentatively(|c| c.stmts(&body.stmts));
                self.loop_depth -= 1;
                self.forget(&changed);
                Ty::Unit
            }
            StmtKind::While { cond, body } => {
                let mut changed = HashSet::new();
                assigned_names(&body.stmts, &mut changed);
                self.forget(&changed);
                self.condition(cond);
                self.loop_depth += 1;
                self.tentatively(|c| c.stmts(&body.stmts));
                self.loop_depth -= 1;
                self.forget(&changed);
                Ty::Unit
            }
            StmtKind::Break | StmtKind::Continue => {
                if self.loop_depth == 0 {
                    self.errors.push(
                        Diagnostic::new("E0406", "`break` or `continue` outside a loop", stmt.span.clone())
                            .with_hint("they can only appear in `for` and `while` bodies"),
                    );
                }
                Ty::Unit
            }
        }
    }

    fn bind(&mut self, p: &Pattern, t: Ty, span: &Span) {
        match p {
            Pattern::Name(id) => self.define(&id.name, t),
            Pattern::Rest(id) => self.define(&id.name, t),
            Pattern::Tuple(items, pspan) => {
                let arity = shape::Arity::of(items);
                let unknown = || vec![Ty::Unknown; items.len()];
                let parts = match t {
                    Ty::Tuple(ts) if !arity.takes(ts.len()) => {
                        self.errors.push(shape::unpack_tuple(&arity, ts.len(), pspan, span));
                        unknown()
                    }
                    Ty::Tuple(ts) => arity.distribute(ts, Ty::Tuple),
                    // an array unpacks along its first axis (`Interp::bind_pattern`)
                    Ty::Array {
                        dtype, shape: Some(s), ..
                    } => {
                        let row = Ty::Array {
                            dtype,
                            shape: s.get(1..).map(<[Dim]>::to_vec),
                            weak: false,
                            value: None,
                        };
                        match s.first() {
                            None => {
                                self.errors.push(shape::unpack_array(&arity, None, pspan));
                                unknown()
                            }
                            Some(&Some(n)) if !arity.takes(n) => {
                                self.errors.push(shape::unpack_array(&arity, Some(n), pspan));
                                unknown()
                            }
                            Some(&Some(n)) => arity.distribute(vec![row; n], Ty::Tuple),
                            // rows of unknown count: the starred name's tuple is unknown too
                            Some(None) => items
                                .iter()
                                .map(|p| match p {
                                    Pattern::Rest(_) => Ty::Unknown,
                                    _ => row.clone(),
                                })
                                .collect(),
                        }
                    }
                    _ => unknown(),
                };
                items.iter().zip(parts).for_each(|(i, t)| self.bind(i, t, span));
            }
        }
    }

    fn function_body(&mut self, def: &FnDef) {
        let mut scope = TypeEnv::new();
        for p in &def.params {
            let t = match &p.ann {
                Some(ann) => self.annotation(ann),
                None => Ty::Unknown,
            };
            if let Some(d) = &p.default {
                self.expr(d);
            }
            scope.insert(p.name.name.clone(), t);
            let size_vars = p.ann.iter().flat_map(|a| a.dims.iter().flatten());
            for d in size_vars {
                if let DimAnn::Var(id) = d {
                    let size = Ty::Array {
                        dtype: Some(DType::I64),
                        shape: Some(vec![]),
                        weak: true,
                        value: None,
                    };
                    scope.entry(id.name.clone()).or_insert(size);
                }
            }
        }
        if let Some(ann) = &def.ret {
            self.annotation(ann);
        }
        let (saved_loop, saved_fn) = (self.loop_depth, self.in_fn);
        self.loop_depth = 0;
        self.in_fn = true;
        self.scopes.push(scope);
        let body = match &def.body.kind {
            ExprKind::Block(b) => self.stmts(&b.stmts),
            _ => self.expr(&def.body),
        };
        if let Some(ann) = &def.ret
            && ann.dtype.is_some()
            && let Some(d) = annotation_error(&body, ann, "the result", &def.body.span)
            && d.code == "E0304"
        {
            // as the interpreter's check_annotation
            self.errors.push(d);
        }
        self.scopes.pop();
        self.loop_depth = saved_loop;
        self.in_fn = saved_fn;
    }

    fn annotation(&mut self, ann: &TypeAnn) -> Ty {
        let dtype = match &ann.dtype {
            Some(id) => match DType::parse(&id.name) {
                Some(d) => Some(d),
                None => {
                    self.errors.push(unknown_dtype(id));
                    None
                }
            },
            None => None,
        };
        let shape = ann.dims.as_ref().map(|ds| {
            ds.iter()
                .map(|d| match d {
                    DimAnn::Fixed(v, _) => Some(*v as usize),
                    DimAnn::Var(_) => None,
                })
                .collect()
        });
        Ty::Array {
            dtype,
            shape,
            weak: false,
            value: None,
        }
    }

    /// Checks a condition; its type (a known value decides the branch).
    /// The type of an `if` and its `else if` arms. An exact walk skips an arm
    /// whose condition is known false and takes the first known true one;
    /// from the first unknown condition on, it walks every arm the chain may
    /// take without reporting their errors. The chain has a type when all
    /// those arms agree on it.
    fn if_arms(&mut self, arms: &[(Expr, Block)], otherwise: Option<&Block>) -> Ty {
        // the arms the chain may take, from the first unknown condition on;
        // `None` for a missing `else`
        let mut may_take: Vec<Option<Ty>> = Vec::new();
        let mut first_unknown = None;
        let mut ended = false;
        for (i, (cond, then)) in arms.iter().enumerate() {
            let tentative = first_unknown.is_some();
            let c = if tentative {
                self.tentatively(|c| c.condition(cond))
            } else {
                self.condition(cond)
            };
            let truth = if self.exact > 0 { known_truth(&c) } else { None };
            match truth {
                Some(false) => continue,
                Some(true) if !tentative => return self.stmts(&then.stmts),
                Some(true) => ended = true,
                None => {
                    first_unknown.get_or_insert(i);
                }
            }
            may_take.push(Some(self.tentatively(|c| c.stmts(&then.stmts))));
            if ended {
                break;
            }
        }
        let Some(first_unknown) = first_unknown else {
            return otherwise.map_or(Ty::Unit, |o| self.stmts(&o.stmts));
        };
        if !ended {
            may_take.push(otherwise.map(|o| self.tentatively(|c| c.stmts(&o.stmts))));
        }
        let mut changed = HashSet::new();
        for b in arms[first_unknown..].iter().map(|(_, then)| then).chain(otherwise) {
            assigned_names(&b.stmts, &mut changed);
        }
        self.forget(&changed);
        let mut types = may_take.into_iter();
        let Some(Some(Ty::Array { dtype, shape, .. })) = types.next() else {
            return Ty::Unknown;
        };
        let mut shape = shape.filter(|_| self.exact > 0);
        for t in types {
            match t {
                Some(Ty::Array {
                    dtype: other_dtype,
                    shape: other_shape,
                    ..
                }) if other_dtype == dtype => {
                    shape = shape.filter(|s| other_shape.as_ref() == Some(s));
                }
                _ => return Ty::Unknown,
            }
        }
        Ty::Array {
            dtype,
            shape,
            weak: false,
            value: None,
        }
    }

    fn condition(&mut self, cond: &Expr) -> Ty {
        let t = self.expr(cond);
        match &t {
            Ty::Array { dtype: Some(dt), .. } if *dt != DType::Bool => {
                self.errors.push(
                    Diagnostic::new(
                        "E0301",
                        format!("a condition must be one bool, found {dt}"),
                        cond.span.clone(),
                    )
                    .with_hint("compare it with something: `x > 0`, `x != 0`"),
                );
            }
            Ty::Array {
                shape: Some(s), dtype, ..
            } if s.iter().any(|d| d.is_some_and(|v| v != 1)) => {
                // the interpreter's words, so check and run read the same
                let t = shape::describe(*dtype, s);
                self.errors.push(
                    Diagnostic::new(
                        "E0301",
                        format!("a condition must be one bool, found {t}"),
                        cond.span.clone(),
                    )
                    .with_primary_label(format!("this is {t}"))
                    .with_hint("reduce it to one bool with `any(...)` or `all(...)`"),
                );
            }
            Ty::Tuple(_) | Ty::Str(_) | Ty::DType(_) | Ty::Func(_) | Ty::None | Ty::Unit => {
                self.errors.push(Diagnostic::new(
                    "E0301",
                    "a condition must be one bool",
                    cond.span.clone(),
                ));
            }
            _ => {}
        }
        t
    }

    fn expr(&mut self, e: &Expr) -> Ty {
        stacker::maybe_grow(64 * 1024, 4 * 1024 * 1024, || self.expr_inner(e))
    }

    fn expr_inner(&mut self, e: &Expr) -> Ty {
        match &e.kind {
            ExprKind::Int(v) => Ty::constant(DType::I64, *v as f64),
            ExprKind::Float(v) => Ty::constant(DType::F64, *v),
            ExprKind::Bool(b) => Ty::Array {
                dtype: Some(DType::Bool),
                shape: Some(vec![]),
                weak: false,
                value: Some(f64::from(u8::from(*b))),
            },
            ExprKind::Str(text) => Ty::Str(Some(text.clone())),
            ExprKind::FStr(parts) => {
                // the text where every value in it is a known string, number or tuple,
                // shown without a spec (as the run's `format_value` shows them; `shown_text`)
                let mut text = Some(String::new());
                for part in parts {
                    match part {
                        FPart::Text(t) => {
                            if let Some(out) = text.as_mut() {
                                out.push_str(t);
                            }
                        }
                        FPart::Value { expr, spec } => {
                            let t = self.expr(expr);
                            let shown = if spec.is_empty() { shown_text(&t) } else { None };
                            text = text.zip(shown).map(|(out, s)| out + &s);
                        }
                    }
                }
                Ty::Str(text)
            }
            ExprKind::Name(n) => {
                if let Some(t) = self.lookup(n) {
                    return t.clone();
                }
                if n == "none" || n == "None" {
                    return Ty::None;
                }
                if let Some(d) = DType::parse(n) {
                    return Ty::DType(Some(d));
                }
                if self.top_names.contains(n) {
                    if self.straight_line() {
                        self.errors.push(
                            Diagnostic::new("E0100", format!("`{n}` is used before it is defined"), e.span.clone())
                                .with_primary_label("not defined yet here")
                                .with_hint(format!("statements run in order: define `{n}` before this line")),
                        );
                    }
                    return Ty::Unknown;
                }
                if builtins::find(n).is_some() {
                    self.errors.push(
                        Diagnostic::new(
                            "E0106",
                            format!("`{n}` is a builtin function, not a value"),
                            e.span.clone(),
                        )
                        .with_hint(format!("call it: `{n}(...)`")),
                    );
                    return Ty::Unknown;
                }
                let mut d = Diagnostic::new("E0100", format!("unknown name `{n}`"), e.span.clone())
                    .with_primary_label("not defined here");
                if let Some(hint) = self.suggestion(n, false) {
                    d = d.with_hint(hint);
                }
                self.errors.push(d);
                Ty::Unknown
            }
            ExprKind::ArrayLit(items) => {
                let ts: Vec<Ty> = items.iter().map(|i| self.expr(i)).collect();
                // a list of text is a tuple (`Interp::list_literal`)
                if ts.iter().any(Ty::holds_text) {
                    return Ty::Tuple(ts);
                }
                let parts: Option<Vec<(Option<DType>, &[Dim])>> = ts
                    .iter()
                    .map(|t| match t {
                        Ty::Array {
                            dtype, shape: Some(s), ..
                        } => Some((*dtype, s.as_slice())),
                        _ => None,
                    })
                    .collect();
                if let Some(parts) = parts {
                    let spans: Vec<Span> = items.iter().map(|i| i.span.clone()).collect();
                    if let Err(d) = shape::check_literal_parts(&parts, &spans, &e.span) {
                        self.errors.push(d);
                        return Ty::Unknown;
                    }
                }
                if let Some(values) = ts.iter().map(|t| t.value()).collect::<Option<Vec<f64>>>()
                    && !values.is_empty()
                {
                    self.const_lists.insert(e.span.clone(), values);
                }
                stacked(&ts)
            }
            ExprKind::Tuple(items) => Ty::Tuple(items.iter().map(|i| self.expr(i)).collect()),
            ExprKind::Unary(op, inner) => {
                let t = self.expr(inner);
                match (op, &t) {
                    (
                        UnOp::Not,
                        Ty::Array {
                            dtype: Some(DType::Bool),
                            shape,
                            value,
                            ..
                        },
                    ) => Ty::Array {
                        dtype: Some(DType::Bool),
                        shape: shape.clone(),
                        weak: false,
                        value: value.map(|v| f64::from(u8::from(v == 0.0))),
                    },
                    (UnOp::Not, Ty::Array { dtype: Some(dt), .. }) if *dt != DType::Bool => {
                        self.errors.push(
                            Diagnostic::new("E0300", format!("`not` is not defined for {dt}"), e.span.clone())
                                .with_hint("`not` negates bools; compare first (`not (x > 0)`)"),
                        );
                        Ty::Unknown
                    }
                    (
                        UnOp::Invert,
                        Ty::Array {
                            dtype,
                            shape,
                            weak,
                            value,
                        },
                    ) => {
                        if let Some(dt) = dtype
                            && let Err(d) = unary_sig(UnaryOp::Invert, "~", *dt, Some(&inner.span), &e.span)
                        {
                            self.errors.push(d);
                            return Ty::Unknown;
                        }
                        Ty::Array {
                            dtype: *dtype,
                            shape: shape.clone(),
                            weak: *weak,
                            // two's complement: ~v is -v - 1; a bool's is its negation
                            value: match dtype {
                                Some(DType::Bool) => value.map(|v| if v != 0.0 { 0.0 } else { 1.0 }),
                                Some(dt) if dt.is_int() => value.filter(|v| v.fract() == 0.0).map(|v| -v - 1.0),
                                _ => None,
                            },
                        }
                    }
                    (
                        UnOp::Neg,
                        Ty::Array {
                            dtype,
                            shape,
                            weak,
                            value,
                        },
                    ) => Ty::Array {
                        dtype: *dtype,
                        shape: shape.clone(),
                        weak: *weak,
                        value: value.map(|v| -v),
                    },
                    _ => t,
                }
            }
            ExprKind::Binary(op, l, r) => {
                let a = self.expr(l);
                // a known bool that decides `and`/`or`: the right operand never runs
                if let (
                    BinOp::And | BinOp::Or,
                    Ty::Array {
                        dtype: Some(DType::Bool),
                        shape: Some(s),
                        value: Some(v),
                        ..
                    },
                ) = (op, &a)
                    && s.is_empty()
                    && (*v != 0.0) == (*op == BinOp::Or)
                {
                    return Ty::Array {
                        dtype: Some(DType::Bool),
                        shape: Some(vec![]),
                        weak: false,
                        value: Some(*v),
                    };
                }
                // the right operand of an undecided `and`/`or` may not run
                let b = if matches!(op, BinOp::And | BinOp::Or) {
                    self.tentatively(|c| c.expr(r))
                } else {
                    self.expr(r)
                };
                self.binary(*op, a, b, &l.span, &r.span, &e.span)
            }
            ExprKind::Cast(inner, ty) => {
                let t = self.expr(inner);
                match DType::parse(&ty.name) {
                    Some(dt) => match t {
                        Ty::Array { shape, value, .. } => Ty::Array {
                            dtype: Some(dt),
                            shape,
                            weak: false,
                            value,
                        },
                        _ => Ty::Array {
                            dtype: Some(dt),
                            shape: None,
                            weak: false,
                            value: None,
                        },
                    },
                    None => {
                        self.errors.push(unknown_dtype(ty));
                        Ty::Unknown
                    }
                }
            }
            ExprKind::Call { func, args } => self.call(func, args, &e.span),
            ExprKind::Index { base, indices } => {
                use super::npsort::IndexTy;
                let t = self.expr(base);
                let mut items = Vec::with_capacity(indices.len());
                // the items of a basic index with constant bounds, for the result's shape
                let mut basic: Option<Vec<Basic>> = Some(Vec::with_capacity(indices.len()));
                // the integers of each index written as a list of integer literals
                let lists: Vec<Option<Vec<i64>>> = indices
                    .iter()
                    .map(|item| match &item.kind {
                        IndexKind::Expr(x) => self.index_list(x),
                        _ => None,
                    })
                    .collect();
                for (item, list) in indices.iter().zip(&lists) {
                    let (index_ty, b) = match &item.kind {
                        IndexKind::Expr(x) if matches!(&x.kind, ExprKind::Name(n) if n == "None" || n == "none") => {
                            (IndexTy::NewAxis, Some(Basic::NewAxis))
                        }
                        IndexKind::Expr(x) => {
                            let tx = self.expr(x);
                            // a constant list gathers along its axis: its length is known
                            let int = const_int_of(&tx)
                                .map(|_| Basic::Int)
                                .or_else(|| list.as_ref().filter(|l| !l.is_empty()).map(|l| Basic::List(l.len())));
                            (IndexTy::Expr(tx), int)
                        }
                        IndexKind::Slice { start, stop, step } => {
                            let mut bound = |x: &Option<Expr>| match x {
                                None => Some(None),
                                Some(x) => const_int_of(&self.expr(x)).map(Some),
                            };
                            let (a, b) = (bound(start), bound(stop));
                            let st = bound(step);
                            if st == Some(Some(0)) {
                                self.errors.push(Diagnostic::new(
                                    "E0209",
                                    "a slice step cannot be zero",
                                    item.span.clone(),
                                ));
                            }
                            let slice = match (a, b, st) {
                                (Some(a), Some(b), Some(st)) => Some(Basic::Slice(a, b, st.unwrap_or(1))),
                                _ => None,
                            };
                            (IndexTy::Slice, slice)
                        }
                        IndexKind::NewAxis => (IndexTy::NewAxis, Some(Basic::NewAxis)),
                        IndexKind::Ellipsis => (IndexTy::Ellipsis, Some(Basic::Ellipsis)),
                    };
                    match (b, basic.as_mut()) {
                        (Some(b), Some(all)) => all.push(b),
                        _ => basic = None,
                    }
                    items.push((index_ty, item.span.clone()));
                }
                // an element of a tuple (`shape(x)[1]`, `axes[0]`) at a constant position
                // or a slice of it (`shape(x)[1:]`), by the run's rules (`Interp::index_tuple`)
                if let Ty::Tuple(elems) = &t {
                    let n = elems.len() as i64;
                    return match (items.as_slice(), basic.as_deref()) {
                        ([(IndexTy::Slice, _)], Some(&[Basic::Slice(a, b, st)])) if st != 0 => {
                            let (first, len) = shape::resolve_slice(elems.len(), a, b, st);
                            let picked = (0..len as i64).map(|k| elems[(first as i64 + k * st) as usize].clone());
                            Ty::Tuple(picked.collect())
                        }
                        ([(IndexTy::Expr(k), span)], _) => match const_int_of(k) {
                            Some(i) => match usize::try_from(if i < 0 { i + n } else { i })
                                .ok()
                                .and_then(|j| elems.get(j))
                            {
                                Some(t) => t.clone(),
                                None => {
                                    self.errors.push(Diagnostic::new(
                                        "E0204",
                                        format!("index {i} is out of range for a tuple of {n}"),
                                        span.clone(),
                                    ));
                                    Ty::Unknown
                                }
                            },
                            None => Ty::Unknown,
                        },
                        _ => Ty::Unknown,
                    };
                }
                if let Some(d) = super::npsort::check_index(&t, &items) {
                    self.errors.push(d);
                    return Ty::Unknown;
                }
                if let Some(d) = constant_index_error(&t, &items, &lists, &e.span) {
                    self.errors.push(d);
                    return Ty::Unknown;
                }
                match t {
                    Ty::Array { dtype, shape, .. } => Ty::Array {
                        dtype,
                        shape: shape.zip(basic).and_then(|(s, b)| basic_index_shape(&s, &b)),
                        weak: false,
                        value: None,
                    },
                    _ => Ty::Unknown,
                }
            }
            ExprKind::If { arms, otherwise } => self.if_arms(arms, otherwise.as_ref()),
            ExprKind::Block(b) => self.stmts(&b.stmts),
        }
    }

    /// An array of `dtype` and the shape a shared rule gave, or, when the rule
    /// refused, its diagnostic reported and the value unknown.
    fn shaped(&mut self, dtype: Option<DType>, shape: Result<Vec<Dim>, Diagnostic>) -> Ty {
        match shape {
            Ok(s) => Ty::Array {
                dtype,
                shape: Some(s),
                weak: false,
                value: None,
            },
            Err(d) => {
                self.errors.push(d);
                Ty::Unknown
            }
        }
    }

    fn binary(&mut self, op: BinOp, a: Ty, b: Ty, l: &Span, r: &Span, span: &Span) -> Ty {
        // `x == none` (whatever x is) and equality with a string (false unless both are the
        // same text, as Python's): a bool, as the interpreter's
        let none = matches!(a, Ty::None) || matches!(b, Ty::None);
        let text = matches!(a, Ty::Str(_) | Ty::DType(_)) || matches!(b, Ty::Str(_) | Ty::DType(_));
        if matches!(op, BinOp::Eq | BinOp::Ne) && (none || text) {
            // decided as the interpreter decides it, where both sides are known
            let same = match (&a, &b) {
                (Ty::Unknown, _) | (_, Ty::Unknown) => None,
                (Ty::None, other) | (other, Ty::None) => Some(matches!(other, Ty::None)),
                (Ty::DType(Some(x)), Ty::DType(Some(y))) => Some(x == y),
                (Ty::DType(Some(x)), Ty::Str(Some(y))) | (Ty::Str(Some(y)), Ty::DType(Some(x))) => {
                    Some(DType::parse(y) == Some(*x))
                }
                (Ty::DType(_), Ty::DType(_) | Ty::Str(_)) | (Ty::Str(_), Ty::DType(_)) => None,
                (Ty::DType(_), _) | (_, Ty::DType(_)) => Some(false),
                (Ty::Str(Some(x)), Ty::Str(Some(y))) => Some(x == y),
                (Ty::Str(_), Ty::Str(_)) => None,
                (Ty::Str(_), _) | (_, Ty::Str(_)) => Some(false),
                _ => None,
            };
            return Ty::Array {
                dtype: Some(DType::Bool),
                shape: Some(vec![]),
                weak: false,
                value: same.map(|same| f64::from(u8::from(same == (op == BinOp::Eq)))),
            };
        }
        // tuples as Python's (`Interp::binary_values`): `+` joins them, `==` and `!=` compare them
        if let (Ty::Tuple(x), Ty::Tuple(y)) = (&a, &b) {
            match op {
                BinOp::Add => return Ty::Tuple(x.iter().chain(y).cloned().collect()),
                BinOp::Eq | BinOp::Ne => {
                    return Ty::Array {
                        dtype: Some(DType::Bool),
                        shape: Some(vec![]),
                        weak: false,
                        value: tuples_equal(x, y).map(|same| f64::from(u8::from(same == (op == BinOp::Eq)))),
                    };
                }
                _ => {}
            }
        }
        // a tuple beside a value not known yet may be a tuple operation
        if matches!((&a, &b), (Ty::Tuple(_), Ty::Unknown) | (Ty::Unknown, Ty::Tuple(_))) {
            return Ty::Unknown;
        }
        for (t, x) in [(&a, l), (&b, r)] {
            if let Some(kind) = non_array(t) {
                self.errors.push(Diagnostic::new(
                    "E0303",
                    format!("expected an array, found {kind}"),
                    x.clone(),
                ));
                return Ty::Unknown;
            }
        }
        // an integer `//` or `%` by a constant zero, or `**` a constant negative power:
        // the error every run of it meets (`check::prim::division_by_zero`)
        let int = |t: &Ty| matches!(t, Ty::Array { dtype: Some(d), .. } if d.is_int());
        if int(&a) && int(&b) {
            let d = match (op, const_int_of(&b)) {
                (BinOp::FloorDiv, Some(0)) => Some(super::prim::division_by_zero()),
                (BinOp::Rem, Some(0)) => Some(super::prim::modulo_by_zero()),
                (BinOp::Pow, Some(k)) if k < 0 => Some(super::prim::negative_power()),
                _ => None,
            };
            if let Some(d) = d {
                self.errors.push(d.or_span(span));
                return Ty::Unknown;
            }
        }
        let logical = matches!(
            op,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::And | BinOp::Or
        );
        // arithmetic converts a literal to the i32 array's dtype (graph::build::convert)
        if !logical && op != BinOp::MatMul {
            for (t, other, x) in [(&a, &b, l), (&b, &a, r)] {
                if let Ty::Array {
                    dtype: Some(d),
                    weak: false,
                    ..
                } = other
                    && let Some(d) = int_overflow(t, *d, x)
                {
                    self.errors.push(d);
                    return Ty::Unknown;
                }
            }
        }
        if logical && (matches!(a, Ty::Unknown) || matches!(b, Ty::Unknown)) {
            // whatever the operands, a comparison or logic gives bools
            return Ty::Array {
                dtype: Some(DType::Bool),
                shape: None,
                weak: false,
                value: None,
            };
        }
        let (
            Ty::Array {
                dtype: da,
                shape: sa,
                weak: wa,
                value: va,
            },
            Ty::Array {
                dtype: db,
                shape: sb,
                weak: wb,
                value: vb,
            },
        ) = (&a, &b)
        else {
            return Ty::Unknown;
        };
        // integers made from literals whose values are known exactly (f64 holds
        // them to 2^53): the run's exact-or-E0307 rule, already here
        let exact = |v: &Option<f64>| {
            v.filter(|v| v.fract() == 0.0 && v.abs() <= (1u64 << 53) as f64)
                .map(|v| v as i64)
        };
        if *wa
            && *wb
            && *da == Some(DType::I64)
            && *db == Some(DType::I64)
            && let (Some(x), Some(y)) = (exact(va), exact(vb))
            && !crate::check::dtype::literal_int_op_fits(op, x, y)
        {
            self.errors
                .push(crate::check::dtype::literal_int_overflow_error(op, x, y, span));
            return Ty::Unknown;
        }
        if matches!(op, BinOp::And | BinOp::Or) {
            for (d, x) in [(da, l), (db, r)] {
                if let Some(dt) = d
                    && *dt != DType::Bool
                {
                    self.errors.push(
                        Diagnostic::new(
                            "E0300",
                            format!("`{}` is not defined for {dt}", op.symbol()),
                            span.clone(),
                        )
                        .with_label(x.clone(), format!("this is {dt}"))
                        .with_hint("`and` / `or` combine bools; compare first (`x > 0 and y > 0`)"),
                    );
                    return Ty::Unknown;
                }
            }
        }
        // the bitwise operators' dtype rule, the one the graph builder calls too
        let bit = BitOp::of(op);
        let mut bit_dtype = None;
        if let Some(bit) = bit {
            let promoted = match (da, db) {
                (Some(x), Some(y)) => Some(promote_weak(*x, *wa, *y, *wb).0),
                _ => None,
            };
            match bits_sig(bit, op.symbol(), [(*da, Some(l)), (*db, Some(r))], promoted, span) {
                Ok(d) => bit_dtype = d,
                Err(d) => {
                    self.errors.push(d);
                    return Ty::Unknown;
                }
            }
        }
        let shape = match (sa, sb) {
            (Some(sa), Some(sb)) if op == BinOp::MatMul => {
                match shape::matmul_shape(
                    &Operand {
                        dtype: *da,
                        shape: sa,
                        span: Some(l.clone()),
                    },
                    &Operand {
                        dtype: *db,
                        shape: sb,
                        span: Some(r.clone()),
                    },
                    span,
                ) {
                    Ok(s) => Some(s),
                    Err(d) => {
                        self.errors.push(d);
                        return Ty::Unknown;
                    }
                }
            }
            (Some(sa), Some(sb)) => {
                let what = op.noun();
                match shape::broadcast(
                    &[
                        Operand {
                            dtype: *da,
                            shape: sa,
                            span: Some(l.clone()),
                        },
                        Operand {
                            dtype: *db,
                            shape: sb,
                            span: Some(r.clone()),
                        },
                    ],
                    what,
                    span,
                ) {
                    Ok(s) => Some(s),
                    Err(d) => {
                        self.errors.push(d);
                        return Ty::Unknown;
                    }
                }
            }
            _ => None,
        };
        let (dtype, weak) = match (da, db) {
            (Some(x), Some(y)) => {
                let (d, w) = promote_weak(*x, *wa, *y, *wb);
                (Some(d), w)
            }
            _ => (None, false),
        };
        let weak = weak && !logical;
        let dtype = match op {
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::And | BinOp::Or => {
                Some(DType::Bool)
            }
            BinOp::Div => dtype.map(|d| d.to_float()),
            _ if bit.is_some() => bit_dtype,
            // NumPy's bool @ bool is bool (any of the ands); other matrix products keep the dtype
            BinOp::MatMul => dtype,
            _ => dtype.map(|d| if d == DType::Bool { DType::DEFAULT_INT } else { d }),
        };
        let value = match (va, vb, op) {
            // integers f64 holds exactly, folded as the run folds them
            (Some(x), Some(y), _) if bit.is_some() => match (exact(&Some(*x)), exact(&Some(*y)), bit) {
                (Some(x), Some(y), Some(bit)) => {
                    let v = bit.eval_i64(x, y);
                    (v.unsigned_abs() <= 1u64 << 53).then_some(v as f64)
                }
                _ => None,
            },
            (Some(x), Some(y), BinOp::Add) => Some(x + y),
            (Some(x), Some(y), BinOp::Sub) => Some(x - y),
            (Some(x), Some(y), BinOp::Mul) => Some(x * y),
            (Some(x), Some(y), BinOp::Div) if *y != 0.0 => Some(x / y),
            // Python's floor division and modulo (the result takes the divisor's sign)
            (Some(x), Some(y), BinOp::FloorDiv) if *y != 0.0 && x.fract() == 0.0 && y.fract() == 0.0 => {
                Some((x / y).floor())
            }
            (Some(x), Some(y), BinOp::Rem) if *y != 0.0 && x.fract() == 0.0 && y.fract() == 0.0 => {
                Some(x - y * (x / y).floor())
            }
            // comparisons of values f64 holds exactly, so that `and`/`or` after one can be decided
            (Some(x), Some(y), cmp) if x.abs() < 2f64.powi(53) && y.abs() < 2f64.powi(53) => {
                let holds = match cmp {
                    BinOp::Lt => Some(x < y),
                    BinOp::Le => Some(x <= y),
                    BinOp::Gt => Some(x > y),
                    BinOp::Ge => Some(x >= y),
                    BinOp::Eq => Some(x == y),
                    BinOp::Ne => Some(x != y),
                    BinOp::And => Some(*x != 0.0 && *y != 0.0),
                    BinOp::Or => Some(*x != 0.0 || *y != 0.0),
                    _ => None,
                };
                holds.map(|h| h as u8 as f64)
            }
            _ => None,
        };
        Ty::Array {
            dtype,
            shape,
            weak,
            value,
        }
    }

    fn call(&mut self, func: &Ident, args: &[Arg], span: &Span) -> Ty {
        let builtin = builtins::find(&func.name);
        let arg_tys: Vec<CallArg<Ty>> = args
            .iter()
            .enumerate()
            .map(|(k, a)| {
                // A list literal given for a shape or a sequence is a list of values, not one array.
                let param = builtin.and_then(|b| match &a.name {
                    Some(n) => b
                        .params
                        .iter()
                        .find(|p| p.name == n.name || p.aliases.contains(&n.name.as_str())),
                    None => b.params.get(k),
                });
                let as_list =
                    param.is_some_and(|p| p.kind == builtins::ParamKind::Static) || shape::is_join(func.name.as_str());
                CallArg {
                    name: a.name.as_ref().map(|n| (n.name.clone(), n.span.clone())),
                    value: match &a.value.kind {
                        ExprKind::ArrayLit(items) if as_list => Ty::Tuple(items.iter().map(|i| self.expr(i)).collect()),
                        _ => self.expr(&a.value),
                    },
                    span: a.value.span.clone(),
                }
            })
            .collect();
        match self.lookup(&func.name).cloned() {
            Some(Ty::Func(def)) => {
                let params: Vec<(&str, bool, bool)> = def
                    .params
                    .iter()
                    .map(|p| (p.name.name.as_str(), p.default.is_none(), false))
                    .collect();
                let errs = self.errors.len();
                let slots = match bind(&def.name.name, &params, arg_tys, span) {
                    Ok((slots, _)) => {
                        for (p, slot) in def.params.iter().zip(&slots) {
                            if let (Some(ann), Some((t, s))) = (&p.ann, slot)
                                && let Some(d) = annotation_error(t, ann, &p.name.name, s)
                            {
                                self.errors.push(d);
                            }
                        }
                        Some(slots)
                    }
                    Err(d) => {
                        self.errors.push(d);
                        None
                    }
                };
                let declared = match &def.ret {
                    Some(ann) => {
                        let errs = self.errors.len();
                        let t = self.annotation(ann);
                        self.errors.truncate(errs);
                        t
                    }
                    None => Ty::Unknown,
                };
                // the body walked with these arguments: its errors, and the result's type
                return match slots.filter(|_| self.errors.len() == errs) {
                    Some(slots) => match self.instance(&def, &slots, span) {
                        Some(Ty::Unknown) | None => declared,
                        Some(t) => t,
                    },
                    None => declared,
                };
            }
            Some(Ty::Unknown) => return Ty::Unknown,
            Some(other) if builtins::find(&func.name).is_none() => {
                let kind = match other {
                    Ty::Array { .. } => "an array",
                    Ty::Tuple(_) => "a tuple",
                    _ => "not a function",
                };
                self.errors.push(Diagnostic::new(
                    "E0106",
                    format!("`{}` is {kind}, not a function", func.name),
                    func.span.clone(),
                ));
                return Ty::Unknown;
            }
            _ => {}
        }
        let Some(b) = builtins::find(&func.name) else {
            if self.lookup(&func.name).is_none()
                && !self.top_names.contains(&func.name)
                && let Some(dt) = DType::parse(&func.name)
            {
                return self.dtype_call(func, dt, args, &arg_tys, span);
            }
            if self.top_names.contains(&func.name) {
                if self.straight_line() {
                    // as in Python: a function exists once its definition has run
                    self.errors.push(
                        Diagnostic::new(
                            "E0101",
                            format!("`{}` is called before it is defined", func.name),
                            func.span.clone(),
                        )
                        .with_primary_label("not defined yet here")
                        .with_hint(format!(
                            "a function can be called once its `fn {}` has run: move the definition above this line",
                            func.name
                        )),
                    );
                }
                return Ty::Unknown;
            }
            let mut d = Diagnostic::new("E0101", format!("unknown function `{}`", func.name), func.span.clone());
            if let Some(hint) = self.suggestion(&func.name, true) {
                d = d.with_hint(hint);
            }
            self.errors.push(d);
            return Ty::Unknown;
        };
        match b.bind(arg_tys, span) {
            Ok((mut slots, rest)) => {
                if b.name == "ix_"
                    && let Some(d) = rest.iter().find_map(|(t, at)| match t {
                        Ty::Array { shape: Some(s), .. } => shape::check_ix_rank(s.len(), at).err(),
                        _ => None,
                    })
                {
                    self.errors.push(d);
                    return Ty::Unknown;
                }
                // einsum's subscripts against operands of known shapes, by the run's own reading
                if b.name == "einsum"
                    && let Some((Ty::Str(Some(sub)), sub_span)) = slots.first().and_then(|s| s.as_ref())
                    && let Some(shapes) = rest
                        .iter()
                        .map(|(t, _)| match t {
                            Ty::Array { shape: Some(s), .. } => Some(s.as_slice()),
                            _ => None,
                        })
                        .collect::<Option<Vec<&[Dim]>>>()
                    && let Err(d) = super::einsum::spec(sub, &shapes, sub_span, span)
                {
                    self.errors.push(d);
                    return Ty::Unknown;
                }
                // the sum or product of known integers (`prod(size)` of `choice`, `prod(shape(x)[1:])`)
                if matches!(b.name, "sum" | "prod")
                    && slots.iter().skip(1).all(Option::is_none)
                    && let Some(values) = slots[0].as_ref().and_then(|(t, _)| const_int_items(t))
                {
                    let folded = match b.name {
                        "sum" => values.iter().try_fold(0i64, |n, &v| n.checked_add(v)),
                        _ => values.iter().try_fold(1i64, |n, &v| n.checked_mul(v)),
                    };
                    if let Some(v) = folded.filter(|v| v.unsigned_abs() < 1 << 53) {
                        return Ty::Array {
                            dtype: Some(DType::I64),
                            shape: Some(vec![]),
                            weak: false,
                            value: Some(v as f64),
                        };
                    }
                }
                // a tuple of arrays given for an array is the array of them (the run's rule in
                // `interp::builtins`: `array(shape(x))`, `prod(shape(x)[1:])`)
                if !shape::is_join(b.name) {
                    for (p, slot) in b.params.iter().zip(slots.iter_mut()) {
                        if p.kind == builtins::ParamKind::Array
                            && let Some((Ty::Tuple(items), _)) = slot
                            && items.iter().all(|t| matches!(t, Ty::Array { .. } | Ty::Unknown))
                        {
                            let array = stacked(items);
                            if let Some((t, _)) = slot {
                                *t = array;
                            }
                        }
                    }
                }
                // an array parameter given a string, a function or a dtype (as the run's
                // check in `interp::builtins`: `none` leaves an optional one out)
                if !shape::is_join(b.name) && !matches!(b.name, "array" | "asarray") {
                    for (p, slot) in b.params.iter().zip(&slots) {
                        if p.kind == builtins::ParamKind::Array
                            && let Some((t, at)) = slot
                            && (p.required || !matches!(t, Ty::None))
                            && let Some(kind) = non_array(t)
                        {
                            self.errors.push(b.not_an_array(p, kind, at));
                            return Ty::Unknown;
                        }
                    }
                }
                for (k, slot) in slots.iter().enumerate() {
                    let checked = match slot {
                        // `dtype="flaot32"`: a string that names no dtype (the run's `static_dtype`)
                        Some((Ty::Str(Some(v)), at))
                            if b.params[k].name == "dtype"
                                && DType::parse(v).or_else(|| DType::from_numpy_code(v)).is_none() =>
                        {
                            Err(unknown_dtype_named(v, at))
                        }
                        Some((Ty::Str(Some(v)), at)) => b.check_choice(k, v, at),
                        Some((Ty::Tuple(_), at)) => b.one_integer(k, at),
                        Some((Ty::Array { shape: Some(s), .. }, at)) if !s.is_empty() => b.one_integer(k, at),
                        _ => Ok(()),
                    };
                    if let Err(d) = checked {
                        self.errors.push(d);
                        return Ty::Unknown;
                    }
                }
                // a flag given anything but one bool, in the run's words (`static_bool`)
                for (k, slot) in slots.iter().enumerate() {
                    let Some((t, at)) = slot.as_ref().filter(|_| b.is_flag(k)) else {
                        continue;
                    };
                    let found = match t {
                        Ty::None | Ty::Unknown => None,
                        Ty::Array {
                            dtype: Some(DType::Bool),
                            shape: Some(s),
                            ..
                        } if s.is_empty() => None,
                        Ty::Array {
                            dtype: Some(dt),
                            shape: Some(s),
                            ..
                        } => described(*dt, s),
                        Ty::Array { .. } => None,
                        other => non_array(other).map(str::to_string),
                    };
                    if let Some(found) = found {
                        self.errors.push(shape::not_a_flag(&found, at));
                        return Ty::Unknown;
                    }
                }
                // a dtype given a number or a list, in the run's words (`static_dtype`)
                for (k, slot) in slots.iter().enumerate() {
                    let Some((t, at)) = slot
                        .as_ref()
                        .filter(|_| b.params.get(k).is_some_and(|p| p.name == "dtype"))
                    else {
                        continue;
                    };
                    let found = match t {
                        Ty::Array {
                            dtype: Some(dt),
                            shape: Some(s),
                            ..
                        } => described(*dt, s),
                        Ty::Tuple(_) | Ty::Func(_) => non_array(t).map(str::to_string),
                        _ => None,
                    };
                    if let Some(found) = found {
                        self.errors.push(shape::not_a_dtype(&found, at));
                        return Ty::Unknown;
                    }
                }
                let out = b
                    .out_param()
                    .and_then(|k| slots[k].take())
                    .filter(|(t, _)| !matches!(t, Ty::None));
                let ty = self.builtin_result(b.name, &slots, span);
                match out {
                    Some((out, out_span)) => self.out_result(b, ty, out, &out_span, span),
                    None => ty,
                }
            }
            Err(d) => {
                self.errors.push(d);
                Ty::Unknown
            }
        }
    }

    /// Walks the body of `def` with the types of this call's arguments, as the
    /// run will call it: exactly (`exact`), so only what is known to run, and
    /// an error only where it is certain. A library function's refusal of its
    /// arguments (`error(...)`, a shape rule of a builtin it calls) is found so
    /// by the rules the run applies. Returns the body's type, or `None` where
    /// it found an error (reported, as the run's, labelled at this call) or
    /// was not walked (too deep, or too many calls walked already).
    fn instance(&mut self, def: &Rc<FnDef>, slots: &[Option<(Ty, Span)>], span: &Span) -> Option<Ty> {
        if self.exact >= MAX_INSTANCE_DEPTH || self.calls_left == 0 || sizes_conflict(def, slots) {
            return None;
        }
        self.calls_left -= 1;
        let errs = self.errors.len();
        // the callee sees the globals and its own names, not the caller's; a library
        // function the library's names, not the program's
        let locals = self.scopes.split_off(self.scopes.len().min(1));
        let saved_in_library = self.in_library;
        let program_globals = match &self.library {
            Some((names, at))
                if !self.in_library
                    && !self.scopes.is_empty()
                    && at.start <= def.span.start
                    && def.span.end <= at.end =>
            {
                self.in_library = true;
                Some(std::mem::replace(&mut self.scopes[0], names.clone()))
            }
            _ => None,
        };
        let caller_lists: Vec<((usize, String), Vec<i64>)> = self
            .list_names
            .iter()
            .filter(|((scope, _), _)| *scope >= 1)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        self.list_names.retain(|(scope, _), _| *scope == 0);
        let saved = (self.loop_depth, self.in_fn);
        (self.loop_depth, self.in_fn) = (0, true);
        self.exact += 1;
        self.scopes.push(TypeEnv::new());
        // defaults are evaluated in the callee's scope, after the earlier parameters
        for (p, slot) in def.params.iter().zip(slots) {
            let t = match (slot, &p.default) {
                (Some((t, _)), _) => t.clone(),
                (None, Some(d)) => self.expr(d),
                (None, None) => Ty::Unknown,
            };
            self.define(&p.name.name, t);
        }
        for p in &def.params {
            for d in p.ann.iter().flat_map(|a| a.dims.iter().flatten()) {
                if let DimAnn::Var(id) = d
                    && self.scopes.last().is_some_and(|s| !s.contains_key(&id.name))
                {
                    let size = Ty::Array {
                        dtype: Some(DType::I64),
                        shape: Some(vec![]),
                        weak: true,
                        value: None,
                    };
                    self.define(&id.name, size);
                }
            }
        }
        let body = match &def.body.kind {
            ExprKind::Block(b) => self.stmts(&b.stmts),
            _ => self.expr(&def.body),
        };
        // the result against its annotation, with this call's argument types
        if let Some(ann) = &def.ret
            && let Some(d) = annotation_error(&body, ann, "the result", &def.body.span)
        {
            self.errors.push(d);
        }
        self.scopes.pop();
        if let Some(globals) = program_globals {
            self.scopes[0] = globals;
        }
        self.in_library = saved_in_library;
        self.scopes.extend(locals);
        self.list_names.retain(|(scope, _), _| *scope == 0);
        self.list_names.extend(caller_lists);
        (self.loop_depth, self.in_fn) = saved;
        self.exact -= 1;
        // the run stops at the first
        let first = self.errors.drain(errs..).next();
        let Some(d) = first else { return Some(body) };
        // labelled as the run's `call_user` labels it
        // as the run's `call_user`: raised in this body, or in a call it made
        let in_def = |s: &Span| s.start >= def.span.start && s.end <= def.span.end;
        let inside = d.span.as_ref().is_some_and(in_def) || d.labels.last().is_some_and(|(s, _)| in_def(s));
        let labelled = d.labels.iter().any(|(s, _)| s == span);
        let d = if inside && !labelled {
            d.with_label(span.clone(), format!("in this call of `{}`", def.name.name))
        } else {
            d
        };
        // a user function's body was walked once already without its arguments
        if !self.errors.iter().any(|e| e.code == d.code && e.span == d.span) {
            self.errors.push(d);
        }
        None
    }

    /// A dtype's name called as a function (`interp`'s `call_dtype`): `f64(x)` is
    /// `x as f64`; `float(x)`, `int(x)`, `bool(x)` a scalar of `x`'s one element.
    fn dtype_call(&mut self, func: &Ident, dtype: DType, args: &[Arg], tys: &[CallArg<Ty>], span: &Span) -> Ty {
        let [arg] = args else {
            self.errors.push(Diagnostic::new(
                "E0102",
                format!("`{}` takes one argument, found {}", func.name, args.len()),
                span.clone(),
            ));
            return Ty::Unknown;
        };
        if let Some(name) = &arg.name {
            self.errors.push(Diagnostic::new(
                "E0103",
                format!("`{}` has no parameter named `{}`", func.name, name.name),
                name.span.clone(),
            ));
            return Ty::Unknown;
        }
        let (dtype, scalar) = super::dtype::dtype_call(&func.name, dtype);
        match &tys[0].value {
            Ty::Array {
                dtype: from,
                shape,
                value,
                ..
            } => {
                if scalar
                    && let Some(s) = shape
                    && let Err(d) = shape::check_scalar_conversion(&func.name, (*from, s), &arg.value.span)
                {
                    self.errors.push(d);
                    return Ty::Unknown;
                }
                Ty::Array {
                    dtype: Some(dtype),
                    shape: if scalar { Some(vec![]) } else { shape.clone() },
                    weak: false,
                    value: value.filter(|_| dtype.is_float()),
                }
            }
            other => {
                if let Some(kind) = non_array(other) {
                    self.errors.push(Diagnostic::new(
                        "E0303",
                        format!("`{}` needs an array, found {kind}", func.name),
                        arg.value.span.clone(),
                    ));
                }
                Ty::Unknown
            }
        }
    }

    /// The type of `f(..., out=out)`: `out`'s, once the call's result `ty` is
    /// known to broadcast to its shape and cast to its dtype (`shape::check_out`).
    fn out_result(&mut self, b: &builtins::Builtin, ty: Ty, out: Ty, out_span: &Span, span: &Span) -> Ty {
        let Ty::Array { dtype, shape, .. } = out else {
            return Ty::Unknown;
        };
        let (rd, rs) = match &ty {
            Ty::Array { dtype, shape, .. } => (*dtype, shape.as_deref()),
            _ => (None, None),
        };
        if let Some(os) = &shape
            && let Err(d) = shape::check_out(b.name, (dtype, os), (rd, rs), b.out_broadcasts(), (out_span, span))
        {
            self.errors.push(d);
            return Ty::Unknown;
        }
        Ty::Array {
            dtype,
            shape,
            weak: false,
            value: None,
        }
    }

    /// Result types of the common builtins; `Unknown` where it would take
    /// more than the argument types to know.
    fn builtin_result(&mut self, name: &str, slots: &[Option<(Ty, Span)>], span: &Span) -> Ty {
        let name = builtins::canonical(name);
        // NumPy's functions of the operators are typed as the operators
        if let Some(op) = builtins::operator_function(name)
            && let [Some((a, sa)), Some((b, sb)), ..] = slots
        {
            return self.binary(op, a.clone(), b.clone(), sa, sb, span);
        }
        let arg = |k: usize| slots.get(k).and_then(|s| s.as_ref()).map(|s| &s.0);
        let const_shape = |t: Option<&Ty>| -> Option<Vec<Dim>> {
            match t? {
                Ty::Array {
                    value: Some(v),
                    shape: Some(s),
                    ..
                } if s.is_empty() => Some(vec![Some(*v as usize)]),
                Ty::Tuple(items) => Some(items.iter().map(|i| i.value().map(|v| v as usize)).collect()),
                _ => None,
            }
        };
        let arg_span = |k: usize| slots.get(k).and_then(|s| s.as_ref()).map(|s| s.1.clone());
        // A constant `axis` of the first argument against its known rank, by the
        // run's own check (`shape::normalize_axis`), so it reads the same.
        if AXIS_OF_FIRST.contains(&name)
            && let Some(k) = builtins::find(name).and_then(|b| b.params.iter().position(|p| p.name == "axis"))
            && let (
                Some(Ty::Array { shape: Some(shape), .. }),
                Some(Ty::Array {
                    shape: Some(ax_shape),
                    value: Some(v),
                    ..
                }),
            ) = (arg(0), arg(k))
            && ax_shape.is_empty()
            && let Err(d) = shape::normalize_axis(*v as i64, shape.len(), &arg_span(k).unwrap_or(span.clone()))
        {
            self.errors.push(d);
            return Ty::Unknown;
        }
        if name == "squeeze"
            && let Some(Ty::Array { shape: Some(shape), .. }) = arg(0)
            && let Some(v) = arg(1).and_then(const_int_of)
            && let Ok(axis) = shape::normalize_axis(v, shape.len(), span)
            && let Err(d) = shape::check_squeezable(shape, axis, &arg_span(1).unwrap_or(span.clone()))
        {
            self.errors.push(d);
            return Ty::Unknown;
        }
        // constant counts and steps, by the run's own rules
        let const_int = |k: usize| arg(k).and_then(const_int_of);
        let count_error = match name {
            "where" if arg(1).is_some() != arg(2).is_some() => {
                Some(crate::check::builtins::Builtin::where_needs_both(span))
            }
            "eye" => const_int(0).and_then(|n| shape::check_eye_sizes(n, const_int(1).unwrap_or(n), span).err()),
            "unravel_index" => match (const_ints(arg(0)), const_ints(arg(1))) {
                (Some(indices), Some(dims)) if dims.iter().all(|&d| d >= 0) => {
                    let size = dims.iter().try_fold(1i64, |n, &d| n.checked_mul(d)).unwrap_or(i64::MAX);
                    shape::check_flat_indices(indices.into_iter(), size, &arg_span(0).unwrap_or(span.clone())).err()
                }
                _ => None,
            },
            "identity" => {
                const_int(0).and_then(|n| shape::check_identity_size(n, &arg_span(0).unwrap_or(span.clone())).err())
            }
            "diff" => {
                let rank = match arg(0) {
                    Some(Ty::Array { shape: Some(s), .. }) => Some(s.len()),
                    _ => None,
                };
                let (n_span, x_span) = (arg_span(1).unwrap_or(span.clone()), arg_span(0).unwrap_or(span.clone()));
                shape::check_diff(const_int(1), rank, &n_span, &x_span).err()
            }
            "linspace" => {
                const_int(2).and_then(|num| shape::check_linspace_num(num, &arg_span(2).unwrap_or(span.clone())).err())
            }
            "arange" => {
                let num = |k: usize| match arg(k) {
                    Some(t @ Ty::Array { dtype: Some(d), .. }) => t.value().map(|v| {
                        if d.is_int() {
                            shape::RangeNum::Int(v as i64)
                        } else {
                            shape::RangeNum::Float(v)
                        }
                    }),
                    _ => None,
                };
                match (num(0), num(1), num(2)) {
                    (Some(a), Some(b), Some(st)) => {
                        shape::arange_range(a, b, st, span, &arg_span(2).unwrap_or(span.clone())).err()
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(d) = count_error {
            self.errors.push(d);
            return Ty::Unknown;
        }
        if let Err(d) = self.argument_rules(name, slots, span) {
            self.errors.push(d);
            return Ty::Unknown;
        }
        if matches!(
            name,
            "inv" | "det" | "solve" | "matrix_power" | "slogdet" | "cholesky" | "eigh" | "eigvalsh"
        ) && let Some(Ty::Array { shape: Some(shape), .. }) = arg(0)
            && let Err(d) = shape::check_square(name, shape, &arg_span(0).unwrap_or(span.clone()))
        {
            self.errors.push(d);
            return Ty::Unknown;
        }
        // the run's own rules, where the arguments' shapes and values are constants
        let rule = match (name, arg(0), arg(1)) {
            ("solve", Some(Ty::Array { shape: Some(a), .. }), Some(Ty::Array { shape: Some(b), .. })) => {
                let spans = (arg_span(0).unwrap_or(span.clone()), arg_span(1).unwrap_or(span.clone()));
                shape::solve_shape(a, b, (&spans.0, &spans.1), span).err()
            }
            // as `@` where the run's `dot` is a matrix product (1-D and 2-D operands, or one vector)
            ("dot", Some(Ty::Array { shape: Some(a), .. }), Some(Ty::Array { shape: Some(b), .. }))
                if !a.is_empty() && !b.is_empty() && (a.len() <= 2 && b.len() <= 2 || a.len() == 1 || b.len() == 1) =>
            {
                let operand = |shape, k: usize| shape::Operand {
                    dtype: None,
                    shape,
                    span: arg_span(k),
                };
                shape::matmul_shape(&operand(a, 0), &operand(b, 1), span).err()
            }
            ("lstsq", Some(Ty::Array { shape: Some(a), .. }), Some(Ty::Array { shape: Some(b), .. })) => {
                match (a.as_slice(), b.iter().copied().collect::<Option<Vec<usize>>>()) {
                    ([Some(m), Some(n)], Some(b)) => {
                        shape::lstsq_rhs(*m, *n, &b, &arg_span(1).unwrap_or(span.clone())).err()
                    }
                    _ => None,
                }
            }
            ("pad", Some(Ty::Array { shape: Some(a), .. }), widths) => const_ints(widths)
                .and_then(|w| shape::pad_pairs(&w, a.len(), &arg_span(1).unwrap_or(span.clone())).err()),
            _ => None,
        };
        // a count, an order or a power is an integer (the run's `static_int`)
        let rule = rule.or_else(|| {
            INT_PARAMS.iter().filter(|(f, _)| *f == name).find_map(|(_, p)| {
                let k = builtins::find(name)?.params.iter().position(|q| q.name == *p)?;
                match arg(k)? {
                    Ty::Array { dtype: Some(dt), .. } if !dt.is_int() && *dt != DType::Bool => Some(
                        shape::not_an_integer("this value", *dt, &arg_span(k).unwrap_or(span.clone())),
                    ),
                    _ => None,
                }
            })
        });
        // a shape, a count list or widths hold integers (the run's `static_shape` and `flat_ints`)
        let rule = rule.or_else(|| {
            INT_LIST_PARAMS
                .iter()
                .filter(|(f, _, _)| *f == name)
                .find_map(|(_, p, what)| {
                    let k = builtins::find(name)?.params.iter().position(|q| q.name == *p)?;
                    let dt = float_items(arg(k)?)?;
                    let at = arg_span(k).unwrap_or(span.clone());
                    Some(if *what == "a shape" {
                        shape::not_an_integer(what, dt, &at)
                    } else {
                        Diagnostic::new("E0305", format!("{what} must be integers, found {dt}"), at)
                    })
                })
        });
        if let Some(d) = rule {
            self.errors.push(d);
            return Ty::Unknown;
        }
        if matches!(
            name,
            "diag" | "diagonal" | "trace" | "tril" | "triu" | "qr" | "svd" | "svdvals" | "pinv" | "cond" | "lstsq"
        ) && let Some(Ty::Array { shape: Some(shape), .. }) = arg(0)
            && let Err(d) = shape::check_matrix_rank(name, shape.len(), &arg_span(0).unwrap_or(span.clone()))
        {
            self.errors.push(d);
            return Ty::Unknown;
        }
        if let Some(op) = UnaryOp::from_name(name) {
            return match arg(0) {
                Some(Ty::Array { dtype, shape, weak, .. }) => {
                    // `logical_not` takes numbers as their truth (the operator `not` only bools)
                    let dtype = dtype.map(|dt| if name == "logical_not" { DType::Bool } else { dt });
                    let dtype = match dtype {
                        Some(dt) => match unary_sig(op, name, dt, arg_span(0).as_ref(), span) {
                            Ok(UnarySig::Compute { out, .. }) => Some(out),
                            Ok(UnarySig::Identity) => Some(dt),
                            Ok(UnarySig::Constant(_)) => Some(DType::Bool),
                            Err(d) => {
                                self.errors.push(d);
                                return Ty::Unknown;
                            }
                        },
                        None => None,
                    };
                    Ty::Array {
                        dtype,
                        shape: shape.clone(),
                        weak: *weak && dtype != Some(DType::Bool),
                        value: None,
                    }
                }
                _ => Ty::Unknown,
            };
        }
        // the elementwise functions of several arrays broadcast them together (as `graph::build`)
        let joined: &[usize] = match name {
            "minimum" | "maximum" | "atan2" | "arctan2" | "hypot" | "isclose" | "allclose" | "logical_and"
            | "logical_or" | "logical_xor" => &[0, 1],
            "where" | "clip" => &[0, 1, 2],
            _ => &[],
        };
        let mut joined_shape = None;
        if !joined.is_empty() {
            let shapes: Option<Vec<KnownOperand>> = joined
                .iter()
                .map(|&k| match arg(k) {
                    Some(Ty::Array {
                        dtype, shape: Some(s), ..
                    }) => Some((*dtype, s.clone(), arg_span(k))),
                    _ => None,
                })
                .collect();
            if let Some(shapes) = shapes {
                let operands: Vec<Operand> = shapes
                    .iter()
                    .map(|(d, s, sp)| Operand {
                        dtype: *d,
                        shape: s,
                        span: sp.clone(),
                    })
                    .collect();
                match shape::broadcast(&operands, &format!("`{name}`"), span) {
                    Ok(s) => joined_shape = Some(s),
                    Err(d) => {
                        self.errors.push(d);
                        return Ty::Unknown;
                    }
                }
            }
        }
        // an axis is a constant integer (E0305), as the interpreter's static_axes requires
        if matches!(
            name,
            "sum"
                | "prod"
                | "min"
                | "max"
                | "mean"
                | "any"
                | "all"
                | "argmin"
                | "argmax"
                | "nansum"
                | "nanmean"
                | "nanmin"
                | "nanmax"
                | "cumsum"
                | "cumprod"
                | "cummax"
                | "cummin"
        ) {
            let items: Vec<&Ty> = match arg(1) {
                Some(Ty::Tuple(items)) => items.iter().collect(),
                Some(t) => vec![t],
                None => vec![],
            };
            for t in items {
                if let Ty::Array { dtype: Some(dt), .. } = t
                    && !dt.is_int()
                {
                    let mut d = Diagnostic::new(
                        "E0305",
                        format!("an axis must be an integer, found {dt}"),
                        arg_span(1).unwrap_or(span.clone()),
                    );
                    if let Some(hint) = pairwise_hint(name) {
                        d = d.with_hint(hint);
                    }
                    self.errors.push(d);
                    return Ty::Unknown;
                }
            }
        }
        // the arg-extreme of nothing, by the run's rule (`build::reduce`)
        if matches!(name, "argmin" | "argmax")
            && let Some(Ty::Array {
                dtype,
                shape: Some(shape),
                ..
            }) = arg(0)
        {
            let empty = match arg(1) {
                None | Some(Ty::None) => shape.contains(&Some(0)),
                Some(t) => t
                    .value()
                    .and_then(|v| shape::normalize_axis(v as i64, shape.len(), span).ok())
                    .is_some_and(|ax| shape[ax] == Some(0)),
            };
            if empty {
                self.errors
                    .push(shape::empty_reduction(name, &shape::describe(*dtype, shape), span));
                return Ty::Unknown;
            }
        }
        match name {
            "minimum" | "maximum" | "atan2" | "arctan2" | "hypot" | "where" | "clip" => Ty::Array {
                dtype: None,
                shape: joined_shape,
                weak: false,
                value: None,
            },
            "isclose" | "logical_and" | "logical_or" | "logical_xor" => Ty::Array {
                dtype: Some(DType::Bool),
                shape: joined_shape,
                weak: false,
                value: None,
            },
            "allclose" | "array_equal" => Ty::Array {
                dtype: Some(DType::Bool),
                shape: Some(vec![]),
                weak: false,
                value: None,
            },
            "reshape" => {
                let (Some(Ty::Array { dtype, shape, .. }), Some(target)) = (arg(0), const_ints(arg(1))) else {
                    return Ty::Unknown;
                };
                match shape {
                    Some(from) => self.shaped(*dtype, shape::reshape_target(from, &target, span)),
                    None => Ty::Unknown,
                }
            }
            "concat" | "stack" | "vstack" | "hstack" | "column_stack" => {
                let Some(Ty::Tuple(items)) = arg(0) else {
                    return Ty::Unknown;
                };
                let shapes: Option<Vec<(Option<DType>, Vec<Dim>)>> = items
                    .iter()
                    .map(|t| match t {
                        Ty::Array {
                            dtype, shape: Some(s), ..
                        } => Some((*dtype, s.clone())),
                        _ => None,
                    })
                    .collect();
                let Some(mut shapes) = shapes else {
                    return Ty::Unknown;
                };
                let axis = match (name, arg(1)) {
                    ("concat" | "stack", None) => Some(0),
                    // `concat(..., axis=none)` joins the arrays flattened; `stack` refuses it when run
                    ("concat" | "stack", Some(Ty::None)) => return Ty::Unknown,
                    ("concat" | "stack", Some(t)) => t.value().map(|v| v as i64),
                    _ => {
                        let ranks: Vec<usize> = shapes.iter().map(|(_, s)| s.len()).collect();
                        let Some((inserts, axis)) = shape::ranks_for_stack(name, &ranks) else {
                            return Ty::Unknown;
                        };
                        for ((_, s), at) in shapes.iter_mut().zip(inserts) {
                            for ax in at {
                                s.insert(ax, Some(1));
                            }
                        }
                        Some(axis as i64)
                    }
                };
                let Some(axis) = axis else {
                    return Ty::Unknown;
                };
                self.shaped(None, shape::join_shapes(&shapes, axis, name == "stack", span))
            }
            "zeros" | "ones" | "rand" | "randn" | "full"
                if const_ints(arg(0)).is_some_and(|d| d.iter().any(|&v| v < 0)) =>
            {
                let bad = const_ints(arg(0))
                    .and_then(|d| d.into_iter().find(|&v| v < 0))
                    .unwrap_or(-1);
                self.errors.push(Diagnostic::new(
                    "E0210",
                    format!("a shape cannot contain the negative size {bad}"),
                    arg_span(0).unwrap_or(span.clone()),
                ));
                Ty::Unknown
            }
            "full" => {
                let Some(target) = const_ints(arg(0)) else {
                    return Ty::Unknown;
                };
                let target: Vec<usize> = target.iter().map(|&d| d as usize).collect();
                if let Some(Ty::Array { shape: Some(vs), .. }) = arg(1)
                    && let Some(vs) = vs.iter().copied().collect::<Option<Vec<usize>>>()
                    && let Err(d) = shape::check_fill(&vs, &target, span)
                {
                    self.errors.push(d);
                    return Ty::Unknown;
                }
                Ty::Array {
                    dtype: None,
                    shape: Some(shape::dims(&target)),
                    weak: false,
                    value: None,
                }
            }
            "zeros" | "ones" | "rand" | "randn" => {
                // a dtype named where the call is written (`dtype=i32`); the run
                // refuses one `rand` cannot make
                let dtype = match arg(1) {
                    None => Some(DType::DEFAULT_FLOAT),
                    Some(Ty::DType(Some(d))) if matches!(name, "zeros" | "ones") || d.is_float() => Some(*d),
                    Some(_) => None,
                };
                Ty::Array {
                    dtype,
                    shape: const_shape(arg(0)),
                    weak: false,
                    value: None,
                }
            }
            "copy" | "realize" => arg(0).cloned().unwrap_or(Ty::Unknown),
            "array" | "asarray" => match arg(0) {
                // a dtype argument is known by name only when the script runs
                Some(Ty::Array { dtype, shape, .. }) => Ty::Array {
                    dtype: if arg(1).is_some() { None } else { *dtype },
                    shape: shape.clone(),
                    weak: false,
                    value: None,
                },
                other => other.cloned().unwrap_or(Ty::Unknown),
            },
            // integer bounds without a dtype give i64, as the interpreter's arange
            "arange" if arg(3).is_none() => {
                let bounds: Vec<&Ty> = (0..3).filter_map(arg).collect();
                let ints = bounds
                    .iter()
                    .all(|t| matches!(t, Ty::Array { dtype: Some(d), .. } if d.is_int()));
                let values: Option<Vec<f64>> = bounds.iter().map(|t| t.value()).collect();
                let len = match values.as_deref() {
                    Some([n]) => Some((*n).max(0.0) as usize),
                    Some([a, b]) => Some((b - a).max(0.0) as usize),
                    Some([a, b, st]) if *st != 0.0 => Some(((b - a) / st).ceil().max(0.0) as usize),
                    _ => None,
                };
                Ty::Array {
                    dtype: ints.then_some(DType::I64),
                    shape: Some(vec![len]),
                    weak: false,
                    value: None,
                }
            }
            "sum" | "prod" | "min" | "max" | "mean" | "any" | "all" | "nansum" | "nanmean" | "nanmin" | "nanmax" => {
                let Some(Ty::Array { dtype, shape, .. }) = arg(0) else {
                    return Ty::Unknown;
                };
                let param = |p: &str| builtins::find(name).and_then(|b| b.params.iter().position(|q| q.name == p));
                let given = |p: &str| param(p).and_then(&arg).filter(|t| !matches!(t, Ty::None));
                let initial = given("initial").is_some();
                let at = |p: &str| param(p).and_then(arg_span).unwrap_or(span.clone());
                let extras = match (given("where"), given("initial")) {
                    (Some(_), None) if matches!(name, "min" | "max" | "nanmin" | "nanmax") => {
                        Err(shape::mask_needs_initial(name, span))
                    }
                    (
                        Some(Ty::Array {
                            dtype: md,
                            shape: Some(ms),
                            ..
                        }),
                        _,
                    ) if shape.is_some() => {
                        shape::check_reduce_mask(ms, *md, shape.as_deref().unwrap_or_default(), &at("where"))
                    }
                    _ => Ok(()),
                }
                .and_then(|()| match given("initial") {
                    Some(Ty::Array {
                        dtype: d,
                        shape: Some(is),
                        ..
                    }) => shape::check_reduce_initial(is, *d, &at("initial")),
                    _ => Ok(()),
                });
                if let Err(d) = extras {
                    self.errors.push(d);
                    return Ty::Unknown;
                }
                let axes: Option<Vec<i64>> = match arg(1) {
                    None | Some(Ty::None) => None,
                    Some(t @ Ty::Array { .. }) => t.value().map(|v| vec![v as i64]),
                    Some(Ty::Tuple(items)) => items.iter().map(|i| i.value().map(|v| v as i64)).collect(),
                    _ => return Ty::Unknown,
                };
                let keepdims = match arg(2) {
                    None | Some(Ty::None) => Some(false),
                    Some(t) => known_truth(t),
                };
                let dtype = match name {
                    "any" | "all" => Some(DType::Bool),
                    // `dtype=` names the result's dtype, a value the checker does not track
                    _ if given("dtype").is_some() => None,
                    "mean" | "nanmean" => dtype.map(|d| d.to_float()),
                    "sum" | "prod" | "nansum" => dtype.map(crate::graph::op::accumulate_dtype),
                    _ => *dtype,
                };
                let Some(shape) = shape else {
                    return Ty::Array {
                        dtype,
                        shape: None,
                        weak: false,
                        value: None,
                    };
                };
                let axes_span = slots
                    .get(1)
                    .and_then(|s| s.as_ref())
                    .map(|s| s.1.clone())
                    .unwrap_or(span.clone());
                let axes = match axes {
                    None if arg(1).is_some() && !matches!(arg(1), Some(Ty::None)) => {
                        return Ty::Array {
                            dtype,
                            shape: None,
                            weak: false,
                            value: None,
                        };
                    }
                    None => (0..shape.len()).collect(),
                    Some(axes) => match shape::normalize_axes(&axes, shape.len(), &axes_span) {
                        Ok(a) => a,
                        Err(mut d) => {
                            // `min(x, 2)`: an axis given where a second value may have been meant
                            if let Some(hint) = pairwise_hint(name).filter(|_| arg(1).and_then(Ty::value).is_some()) {
                                d.hint = Some(match d.hint.take() {
                                    Some(valid) => format!("{valid}; {hint}"),
                                    None => hint,
                                });
                            }
                            self.errors.push(d);
                            return Ty::Unknown;
                        }
                    },
                };
                // the run's own rule (`build::reduce`): no minimum or maximum of nothing
                if matches!(name, "min" | "max" | "nanmin" | "nanmax")
                    && !initial
                    && axes.iter().any(|&ax| shape[ax] == Some(0))
                {
                    let what = if name.ends_with("min") { "minimum" } else { "maximum" };
                    let operand = match arg(0) {
                        Some(Ty::Array { dtype: d, .. }) => *d,
                        _ => None,
                    };
                    let ty = shape::describe(operand, shape);
                    self.errors.push(shape::empty_reduction(what, &ty, span));
                    return Ty::Unknown;
                }
                let shape = keepdims.map(|keep| shape::reduce_shape(shape, &axes, keep));
                Ty::Array {
                    dtype,
                    shape,
                    weak: false,
                    value: None,
                }
            }
            "len" => {
                let value = match arg(0) {
                    Some(Ty::Tuple(items)) => Some(items.len() as f64),
                    Some(Ty::Array { shape: Some(s), .. }) => {
                        match shape::normalize_axis(0, s.len(), &arg_span(0).unwrap_or(span.clone())) {
                            Ok(_) => s[0].map(|n| n as f64),
                            Err(d) => {
                                self.errors.push(d);
                                return Ty::Unknown;
                            }
                        }
                    }
                    _ => None,
                };
                int_scalar(value)
            }
            "size" | "ndim" => {
                let shape = match arg(0) {
                    Some(Ty::Array { shape: Some(s), .. }) => Some(s),
                    _ => None,
                };
                let value = match (name, arg(1)) {
                    ("ndim", _) => shape.map(|s| s.len() as f64),
                    (_, None | Some(Ty::None)) => shape.and_then(|s| known_size(s)).map(|n| n as f64),
                    // `size(x, axis=k)`: that axis's length (an axis out of range is E0201 below)
                    (_, Some(t)) => match (shape, t.value()) {
                        (Some(s), Some(k)) => shape::normalize_axis(k as i64, s.len(), span)
                            .ok()
                            .and_then(|k| s[k])
                            .map(|n| n as f64),
                        _ => None,
                    },
                };
                int_scalar(value)
            }
            // the run's rule (`shape::normalize_axis`) where both are constants, so a
            // library function's axis out of range is E0201 before running
            "normalize_axis_index" => {
                let known = |k: usize| arg(k).and_then(const_int_of);
                let value = match (known(0), known(1)) {
                    (Some(axis), Some(ndim)) => {
                        let checked = shape::check_ndim(ndim, &arg_span(1).unwrap_or(span.clone()))
                            .and_then(|rank| shape::normalize_axis(axis, rank, &arg_span(0).unwrap_or(span.clone())));
                        match checked {
                            Ok(k) => Some(k as f64),
                            Err(d) => {
                                self.errors.push(d);
                                return Ty::Unknown;
                            }
                        }
                    }
                    _ => None,
                };
                int_scalar(value)
            }
            // the sizes, each an integer the checker knows where the size is known
            "shape" => match arg(0) {
                Some(Ty::Array { shape: Some(s), .. }) => Ty::Tuple(
                    s.iter()
                        .map(|d| Ty::Array {
                            dtype: Some(DType::I64),
                            shape: Some(vec![]),
                            weak: true,
                            value: d.map(|n| n as f64),
                        })
                        .collect(),
                ),
                _ => Ty::Unknown,
            },
            "dtype" => Ty::DType(None),
            "save" => {
                if let Some(Ty::Array { dtype: Some(dt), .. }) = arg(1)
                    && let Some((message, hint)) = crate::io::npy::unsaveable(*dt)
                {
                    let at = arg_span(1).unwrap_or(span.clone());
                    self.errors.push(Diagnostic::new("E0300", message, at).with_hint(hint));
                }
                Ty::Unit
            }
            "print" | "seed" => Ty::Unit,
            // never returns, so it fits any branch; in an exact walk, a call
            // known to run with a known message is the run's E0413
            "error" => {
                if self.exact > 0
                    && let Some(Ty::Str(Some(message))) = arg(0)
                {
                    self.errors
                        .push(Diagnostic::new("E0413", message.clone(), span.clone()));
                }
                Ty::Unknown
            }
            "transpose" if arg(1).is_none() => match arg(0) {
                Some(Ty::Array { dtype, shape, .. }) => Ty::Array {
                    dtype: *dtype,
                    shape: shape.as_ref().map(|s| s.iter().rev().copied().collect()),
                    weak: false,
                    value: None,
                },
                _ => Ty::Unknown,
            },
            "transpose" | "permute" => match (arg(0), const_ints(arg(1))) {
                (
                    Some(Ty::Array {
                        dtype, shape: Some(s), ..
                    }),
                    Some(axes),
                ) => {
                    let permuted = shape::permutation(&axes, s.len(), &arg_span(1).unwrap_or(span.clone()))
                        .map(|perm| perm.iter().map(|&p| s[p]).collect());
                    self.shaped(*dtype, permuted)
                }
                _ => Ty::Unknown,
            },
            "expand_dims" => match (arg(0), const_ints(arg(1))) {
                (
                    Some(Ty::Array {
                        dtype, shape: Some(s), ..
                    }),
                    Some(axes),
                ) => {
                    let out = shape::expand_dims_axes(&axes, s.len(), &arg_span(1).unwrap_or(span.clone()))
                        .map(|new| shape::expanded_shape(s, &new));
                    self.shaped(*dtype, out)
                }
                _ => Ty::Unknown,
            },
            "broadcast_to" => match (arg(0), const_ints(arg(1))) {
                (
                    Some(Ty::Array {
                        dtype, shape: Some(xs), ..
                    }),
                    Some(target),
                ) if target.iter().all(|&d| d >= 0) => {
                    let target: Vec<Dim> = target.iter().map(|&d| Some(d as usize)).collect();
                    let x = Operand {
                        dtype: *dtype,
                        shape: xs,
                        span: arg_span(0),
                    };
                    let out = shape::check_broadcast_to(&x, (&target, arg_span(1)), span).map(|()| target);
                    self.shaped(*dtype, out)
                }
                _ => Ty::Unknown,
            },
            // the shapes of eye, identity and ravel, which the run computes from these constants
            "eye" | "identity" => {
                let dim = |k: usize| arg(k).and_then(const_int_of).and_then(|n| usize::try_from(n).ok());
                let (n, m, dt) = if name == "eye" {
                    let m = match arg(1) {
                        None | Some(Ty::None) => dim(0),
                        Some(_) => dim(1),
                    };
                    (dim(0), m, 3)
                } else {
                    (dim(0), dim(0), 1)
                };
                let dtype = match arg(dt) {
                    None | Some(Ty::None) => Some(DType::DEFAULT_FLOAT),
                    Some(Ty::DType(d)) => *d,
                    _ => None,
                };
                Ty::Array {
                    dtype,
                    shape: Some(vec![n, m]),
                    weak: false,
                    value: None,
                }
            }
            "ravel" | "flatten" => match arg(0) {
                Some(Ty::Array { dtype, shape, .. }) => Ty::Array {
                    dtype: *dtype,
                    shape: Some(vec![shape.as_ref().and_then(|s| {
                        s.iter().try_fold(1usize, |p, d| d.and_then(|d| p.checked_mul(d)))
                    })]),
                    weak: false,
                    value: None,
                },
                _ => Ty::Unknown,
            },
            // the values' shape when `num` is constant (a tuple with `retstep`)
            "linspace" if arg(4).is_none() => {
                let num = match arg(2) {
                    None => Some(50),
                    Some(t) => const_int_of(t),
                };
                let dtype = match arg(5) {
                    None | Some(Ty::None) => Some(DType::DEFAULT_FLOAT),
                    Some(Ty::DType(d)) => *d,
                    _ => None,
                };
                Ty::Array {
                    dtype,
                    shape: Some(vec![num.and_then(|n| usize::try_from(n).ok())]),
                    weak: false,
                    value: None,
                }
            }
            // the shape of the first argument (its axis checked above, `AXIS_OF_FIRST`)
            "flip" | "roll" | "tril" | "triu" | "nan_to_num" | "round" => match arg(0) {
                Some(Ty::Array { dtype, shape, .. }) => Ty::Array {
                    dtype: if name == "round" { None } else { *dtype },
                    shape: shape.clone(),
                    weak: false,
                    value: None,
                },
                _ => Ty::Unknown,
            },
            "zeros_like" | "ones_like" | "full_like" | "empty_like" => {
                let dtype_at = if name == "full_like" { 2 } else { 1 };
                match arg(0) {
                    Some(Ty::Array { dtype, shape, .. }) if name != "empty_like" || arg(2).is_none() => Ty::Array {
                        dtype: if arg(dtype_at).is_some() { None } else { *dtype },
                        shape: shape.clone(),
                        weak: false,
                        value: None,
                    },
                    _ => Ty::Unknown,
                }
            }
            // both flattened, one along each axis
            "outer" => {
                let size = |k: usize| match arg(k) {
                    Some(Ty::Array { shape: Some(s), .. }) => known_size(s),
                    _ => None,
                };
                Ty::Array {
                    dtype: None,
                    shape: Some(vec![size(0), size(1)]),
                    weak: false,
                    value: None,
                }
            }
            // along an axis the shape of `x`; without one, of `x` flattened
            "cumsum" | "cumprod" | "cummax" | "cummin" => match (arg(0), arg(1)) {
                (Some(Ty::Array { shape: Some(s), .. }), None | Some(Ty::None)) => Ty::Array {
                    dtype: None,
                    shape: Some(vec![known_size(s)]),
                    weak: false,
                    value: None,
                },
                (Some(Ty::Array { shape: Some(s), .. }), Some(t)) if const_int_of(t).is_some() => Ty::Array {
                    dtype: None,
                    shape: Some(s.clone()),
                    weak: false,
                    value: None,
                },
                _ => Ty::Unknown,
            },
            "matmul" => match (arg(0), arg(1)) {
                (
                    Some(Ty::Array {
                        dtype: da,
                        shape: Some(sa),
                        ..
                    }),
                    Some(Ty::Array {
                        dtype: db,
                        shape: Some(sb),
                        ..
                    }),
                ) => self.shaped(
                    None,
                    shape::matmul_shape(
                        &Operand {
                            dtype: *da,
                            shape: sa,
                            span: slots[0].as_ref().map(|s| s.1.clone()),
                        },
                        &Operand {
                            dtype: *db,
                            shape: sb,
                            span: slots[1].as_ref().map(|s| s.1.clone()),
                        },
                        span,
                    ),
                ),
                _ => Ty::Unknown,
            },
            _ if super::npsort::NAMES.contains(&name) => super::npsort::builtin_result(name, slots, span)
                .and_then(|t| self.constant_values_rules(name, slots).map(|()| t))
                .unwrap_or_else(|d| {
                    self.errors.push(d);
                    Ty::Unknown
                }),
            _ => Ty::Unknown,
        }
    }
}

impl Checker {
    /// The run's rules on a builtin's constant arguments (counts, sections,
    /// axes) against the shapes it knows, each by the function the run calls.
    fn argument_rules(&self, name: &str, slots: &[Option<(Ty, Span)>], span: &Span) -> Result<(), Diagnostic> {
        let arg = |k: usize| slots.get(k).and_then(|s| s.as_ref()).map(|s| &s.0);
        let at = |k: usize| {
            slots
                .get(k)
                .and_then(|s| s.as_ref())
                .map_or_else(|| span.clone(), |s| s.1.clone())
        };
        let shape_of = |k: usize| match arg(k) {
            Some(Ty::Array { shape: Some(s), .. }) => Some(s),
            _ => None,
        };
        // an absent or `none` optional argument is its default
        let int_or = |k: usize, default: i64| match arg(k) {
            None | Some(Ty::None) => Some(default),
            Some(t) => const_int_of(t),
        };
        match name {
            "split" | "array_split" | "hsplit" | "vsplit" => {
                // hsplit and vsplit have no axis argument: split_axis picks theirs
                let (axis, axis_span) = if matches!(name, "hsplit" | "vsplit") {
                    (Some(0), at(0))
                } else {
                    (int_or(2, 0), at(2))
                };
                let (Some(shape), Some(axis)) = (shape_of(0), axis) else {
                    return Ok(());
                };
                let ax = shape::split_axis(name, shape.len(), axis, &at(0), &axis_span)?;
                if let Some(n) = arg(1).and_then(const_int_of) {
                    shape::check_sections(shape[ax], n, ax, name != "array_split", &at(1))?;
                }
            }
            "repeat" => {
                let Some(reps) = const_ints(arg(1)) else { return Ok(()) };
                let scalar = matches!(arg(1), Some(Ty::Array { .. }));
                // the axis repeated, or all of the flattened array
                let n = match (shape_of(0), arg(2)) {
                    (Some(s), None | Some(Ty::None)) => known_size(s),
                    (Some(s), Some(t)) => const_int_of(t)
                        .and_then(|a| shape::normalize_axis(a, s.len(), span).ok())
                        .and_then(|ax| s[ax]),
                    _ => None,
                };
                shape::check_repeats(&reps, scalar, n, &at(1))?;
            }
            "tile" => {
                if let Some(reps) = const_ints(arg(1)) {
                    shape::check_counts("reps", &reps, &at(1))?;
                }
            }
            "cross" => {
                if let Some(axis) = int_or(2, -1) {
                    for k in [0, 1] {
                        if let Some(s) = shape_of(k) {
                            shape::cross_axis(s, axis, &at(k), &at(2))?;
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Rules on the values of a constant argument, a number or a list literal
    /// of them: `take`'s indices and `partition`'s `kth` against the axis,
    /// `percentile`'s `q` against its range (the run's
    /// `shape::index_out_of_range`, `npsort::kth_positions`, `npsort::quantile_fractions`).
    fn constant_values_rules(&self, name: &str, slots: &[Option<(Ty, Span)>]) -> Result<(), Diagnostic> {
        let slot = |k: usize| slots.get(k).and_then(|s| s.as_ref());
        let Some((given, at)) = slot(1) else { return Ok(()) };
        let values = match given {
            Ty::Array { value: Some(v), .. } => vec![*v],
            Ty::Array { .. } => match self.const_lists.get(at) {
                Some(v) => v.clone(),
                None => return Ok(()),
            },
            _ => return Ok(()),
        };
        match name {
            "percentile" | "quantile" => {
                super::npsort::quantile_fractions(name, &values, at)?;
            }
            "partition" | "argpartition" => {
                let int = matches!(given, Ty::Array { dtype: Some(d), .. } if d.is_int());
                let Some((Ty::Array { shape: Some(s), .. }, _)) = slot(0) else {
                    return Ok(());
                };
                // the axis partitioned (the last by default), or all of the flattened array
                let n = match slot(2) {
                    Some((Ty::None, _)) => known_size(s),
                    None => s.last().copied().flatten(),
                    Some((t, _)) => const_int_of(t)
                        .and_then(|a| shape::normalize_axis(a, s.len(), at).ok())
                        .and_then(|ax| s[ax]),
                };
                // NumPy does not look at `kth` when the array is empty
                if let (true, Some(n), Some(size)) = (int, n, known_size(s))
                    && size > 0
                {
                    let kth: Vec<i64> = values.iter().map(|&v| v as i64).collect();
                    super::npsort::kth_positions(&kth, n, at)?;
                }
            }
            "take" => {
                let int = matches!(given, Ty::Array { dtype: Some(d), .. } if d.is_int());
                let Some((Ty::Array { shape: Some(s), .. }, _)) = slot(0) else {
                    return Ok(());
                };
                // the axis taken from, or all of the flattened array
                let n = match slot(2) {
                    None | Some((Ty::None, _)) => known_size(s),
                    Some((t, _)) => const_int_of(t)
                        .and_then(|a| shape::normalize_axis(a, s.len(), at).ok())
                        .and_then(|ax| s[ax]),
                };
                if let (true, Some(n)) = (int, n) {
                    let n = n as i64;
                    for &v in &values {
                        let v = v as i64;
                        if v < -n || v >= n {
                            return Err(shape::index_out_of_range(v, n, at));
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The element count of a shape, when every size is known (and it fits).
/// A Python int's type: an i64 scalar that adapts to the other operand's
/// dtype, of `value` where the checker knows it.
fn int_scalar(value: Option<f64>) -> Ty {
    Ty::Array {
        dtype: Some(DType::I64),
        shape: Some(vec![]),
        weak: true,
        value,
    }
}

fn known_size(shape: &[Dim]) -> Dim {
    shape
        .iter()
        .try_fold(1usize, |acc, d| d.and_then(|d| acc.checked_mul(d)))
}

/// An item of a basic index whose bounds are constants, or a constant list of
/// integers (of this length) gathering along its axis.
enum Basic {
    Int,
    Slice(Option<i64>, Option<i64>, i64),
    NewAxis,
    Ellipsis,
    List(usize),
}

/// Whether the arguments give one size variable of the parameters'
/// annotations two sizes (`fn f(a: [n], b: [n])` of sizes 3 and 4): the run
/// refuses that binding (E0207) before the body runs, so the body is not walked.
fn sizes_conflict(def: &FnDef, slots: &[Option<(Ty, Span)>]) -> bool {
    let mut sizes: HashMap<&str, usize> = HashMap::new();
    for (p, slot) in def.params.iter().zip(slots) {
        let (Some(dims), Some((Ty::Array { shape: Some(shape), .. }, _))) =
            (p.ann.as_ref().and_then(|a| a.dims.as_ref()), slot)
        else {
            continue;
        };
        for (d, n) in dims.iter().zip(shape) {
            if let (DimAnn::Var(id), Some(n)) = (d, n)
                && *sizes.entry(id.name.as_str()).or_insert(*n) != *n
            {
                return true;
            }
        }
    }
    false
}

/// A known value as the run shows it without a spec (`Interp::display`): a
/// string, an integer, an f64 of a plain form, or a tuple of them.
fn shown_text(t: &Ty) -> Option<String> {
    match t {
        Ty::Str(Some(s)) => Some(s.clone()),
        Ty::Tuple(items) => {
            let parts: Vec<String> = items.iter().map(shown_text).collect::<Option<_>>()?;
            Some(match parts.as_slice() {
                [one] => format!("({one},)"),
                _ => format!("({})", parts.join(", ")),
            })
        }
        t => const_int_of(t).map(|v| v.to_string()).or_else(|| shown_f64(t)),
    }
}

/// A known f64 scalar as the run prints it, where the shortest round-trip
/// text is its text (no exponent, a `.0` on whole numbers).
fn shown_f64(t: &Ty) -> Option<String> {
    match t {
        Ty::Array {
            dtype: Some(DType::F64),
            shape: Some(s),
            value: Some(v),
            ..
        } if s.is_empty() && v.is_finite() && (v.abs() >= 1e-4 && v.abs() < 1e15) => Some(format!("{v:?}")),
        _ => None,
    }
}

/// A known bool's truth (a rank-0 bool of known value).
fn known_truth(t: &Ty) -> Option<bool> {
    match t {
        Ty::Array {
            dtype: Some(DType::Bool),
            shape: Some(s),
            value: Some(v),
            ..
        } if s.is_empty() => Some(*v != 0.0),
        _ => None,
    }
}

/// A constant integer's value (a rank-0 integer array of known value).
fn const_int_of(t: &Ty) -> Option<i64> {
    match t {
        Ty::Array {
            dtype: Some(d),
            shape: Some(s),
            value: Some(v),
            ..
        } if d.is_int() && s.is_empty() => Some(*v as i64),
        _ => None,
    }
}

/// The shape a basic index gives an array of shape `base`, by the run's slice
/// rules (`shape::resolve_slice`); `None` where the index is not one the run
/// would take (too many items, two `...`, a zero step: reported elsewhere).
/// One constant list among slices, `newaxis` and `...` gathers in place, its
/// length the axis's size, as NumPy's one advanced index; beside an integer or
/// another list (advanced indices broadcast together, and may move to the front)
/// the shape is left unknown.
fn basic_index_shape(base: &[Dim], items: &[Basic]) -> Option<Vec<Dim>> {
    let consuming = items
        .iter()
        .filter(|i| matches!(i, Basic::Int | Basic::Slice(..) | Basic::List(_)))
        .count();
    if consuming > base.len() || items.iter().filter(|i| matches!(i, Basic::Ellipsis)).count() > 1 {
        return None;
    }
    let lists = items.iter().filter(|i| matches!(i, Basic::List(_))).count();
    if lists > 1 || (lists == 1 && items.iter().any(|i| matches!(i, Basic::Int))) {
        return None;
    }
    let fill = base.len() - consuming;
    let (mut out, mut axis, mut filled) = (Vec::with_capacity(base.len() + 1), 0, false);
    for item in items {
        match item {
            Basic::Int => axis += 1,
            Basic::Slice(_, _, 0) => return None,
            Basic::Slice(a, b, st) => {
                out.push(base[axis].map(|n| shape::resolve_slice(n, *a, *b, *st).1));
                axis += 1;
            }
            Basic::List(len) => {
                out.push(Some(*len));
                axis += 1;
            }
            Basic::NewAxis => out.push(Some(1)),
            Basic::Ellipsis => {
                out.extend_from_slice(&base[axis..axis + fill]);
                axis += fill;
                filled = true;
            }
        }
    }
    if !filled {
        out.extend_from_slice(&base[axis..]);
    }
    Some(out)
}

/// Builtins' parameters the run reads as one integer (`static_int`): a float given is E0305.
const INT_PARAMS: &[(&str, &str)] = &[
    ("matrix_power", "n"),
    ("round", "decimals"),
    ("linspace", "num"),
    ("eye", "k"),
    ("normalize_axis_index", "axis"),
    ("normalize_axis_index", "ndim"),
];

/// Builtins whose parameter holds integers, an int or a list or tuple of
/// them, with the words the run's refusal names it by.
const INT_LIST_PARAMS: &[(&str, &str, &str)] = &[
    ("zeros", "shape", "a shape"),
    ("ones", "shape", "a shape"),
    ("full", "shape", "a shape"),
    ("empty", "shape", "a shape"),
    ("rand", "shape", "a shape"),
    ("randn", "shape", "a shape"),
    ("broadcast_to", "shape", "a shape"),
    ("roll", "shift", "a shift"),
    ("repeat", "repeats", "repeats"),
    ("tile", "reps", "reps"),
    ("pad", "pad_width", "pad_width"),
];

/// The float dtype of a shape-like argument that holds floats (`[2.5]`,
/// `(2, 3.0)`); none for integers, an unknown dtype or the empty list `[]`.
fn float_items(t: &Ty) -> Option<DType> {
    match t {
        Ty::Array {
            dtype: Some(dt),
            shape: Some(s),
            ..
        } if dt.is_float() && s.iter().all(|d| matches!(d, Some(n) if *n > 0)) => Some(*dt),
        Ty::Tuple(items) => items.iter().find_map(float_items),
        _ => None,
    }
}

/// Builtins whose `axis` is an axis of their first argument (checked by
/// `normalize_axis` at run time too).
const AXIS_OF_FIRST: &[&str] = &[
    "squeeze", "flip", "argmin", "argmax", "cumsum", "cumprod", "diff", "roll", "repeat", "unique", "size",
];

/// The integers of a constant shape-like argument (an int, or a list or tuple of them).
fn const_ints(t: Option<&Ty>) -> Option<Vec<i64>> {
    // values are tracked as f64: past 2^53 they are not the integers written
    let exact = |v: f64| v.abs() < 9_007_199_254_740_992.0;
    let ints = const_ints_any(t)?;
    ints.iter().all(|&v| exact(v as f64)).then_some(ints)
}

fn const_ints_any(t: Option<&Ty>) -> Option<Vec<i64>> {
    match t? {
        t @ Ty::Array { .. } => const_int_of(t).map(|v| vec![v]),
        Ty::Tuple(items) => items
            .iter()
            .map(|i| match i {
                Ty::Array {
                    value: Some(v),
                    dtype: Some(dt),
                    ..
                } if dt.is_int() => Some(*v as i64),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// The interpreter's `check_annotation` on what the checker knows of an
/// argument: a strong dtype other than the annotation's (E0304), another
/// rank or another fixed size (E0207).
fn annotation_error(t: &Ty, ann: &TypeAnn, what: &str, span: &Span) -> Option<Diagnostic> {
    let Ty::Array { dtype, shape, weak, .. } = t else {
        return None;
    };
    // a literal converts to the annotation's dtype unless that loses its kind (2.5 into i32)
    if let (Some(got), Some(want)) = (dtype, ann.dtype.as_ref().and_then(|d| DType::parse(&d.name)))
        && *got != want
        && (!weak || shape::same_kind_refuses(*got, want))
    {
        return Some(
            Diagnostic::new("E0304", format!("{what} should be {want}, found {got}"), span.clone())
                .with_label(ann.span.clone(), format!("declared as {want} here"))
                .with_hint(format!("convert it with `as {want}`")),
        );
    }
    let (Some(shape), Some(dims_ann)) = (shape, &ann.dims) else {
        return None;
    };
    let t = shape::describe(*dtype, shape);
    if dims_ann.len() != shape.len() {
        return Some(
            Diagnostic::new(
                "E0207",
                format!("{what} should have {} axes, found {t}", dims_ann.len()),
                span.clone(),
            )
            .with_label(ann.span.clone(), "declared here"),
        );
    }
    for (d, n) in dims_ann.iter().zip(shape) {
        if let (DimAnn::Fixed(v, dspan), Some(n)) = (d, n)
            && *v as usize != *n
        {
            return Some(
                Diagnostic::new(
                    "E0207",
                    format!("{what} should have size {v} here, found {t}"),
                    span.clone(),
                )
                .with_label(dspan.clone(), "declared here"),
            );
        }
    }
    None
}

/// E0307 for a literal integer that does not fit in the narrower integer
/// `dtype` it is written into or combined with.
fn int_overflow(t: &Ty, dtype: DType, span: &Span) -> Option<Diagnostic> {
    let Ty::Array {
        dtype: Some(DType::I64),
        weak: true,
        value: Some(v),
        ..
    } = t
    else {
        return None;
    };
    let (lo, hi) = dtype.int_range()?;
    if *v >= lo as f64 && *v <= hi as f64 {
        return None;
    }
    Some(shape::int_out_of_range(dtype).or_span(span))
}

/// An array of known dtype and sizes as the run's static arguments describe it.
fn described(dt: DType, shape: &[Dim]) -> Option<String> {
    let sizes = shape.iter().copied().collect::<Option<Vec<usize>>>()?;
    Some(shape::describe_found(dt, &sizes))
}

/// The integers of a known integer scalar or a tuple of them, as i64.
fn const_int_items(t: &Ty) -> Option<Vec<i64>> {
    match t {
        Ty::Tuple(items) => items.iter().map(const_int_of).collect(),
        t => const_int_of(t).map(|v| vec![v]),
    }
}

/// The array a list literal or a tuple of arrays stacks into, by the run's
/// rule (`Interp::stack_literal`): its length first, then the first item's
/// shape; the items' dtypes promoted, weak when all are (a list of literals
/// is weak like a literal).
fn stacked(ts: &[Ty]) -> Ty {
    let mut dtype = None;
    let mut weak = true;
    for t in ts {
        if let Ty::Array {
            dtype: Some(d),
            weak: w,
            ..
        } = t
        {
            (dtype, weak) = match dtype {
                None => (Some(*d), *w),
                Some(cur) => {
                    let (r, rw) = promote_weak(cur, weak, *d, *w);
                    (Some(r), rw)
                }
            };
        }
    }
    let inner = match ts.first() {
        Some(Ty::Array { shape: Some(s), .. }) => Some(s.clone()),
        None => Some(vec![]),
        _ => None,
    };
    Ty::Array {
        dtype,
        shape: inner.map(|s| std::iter::once(Some(ts.len())).chain(s).collect()),
        weak: weak && dtype.is_some(),
        value: None,
    }
}

/// Whether two tuples are equal where their items are known constants (the
/// run's rule, `Interp::tuples_equal`); tuples of two lengths never are.
fn tuples_equal(x: &[Ty], y: &[Ty]) -> Option<bool> {
    if x.len() != y.len() {
        return Some(false);
    }
    let mut all = Some(true);
    for (a, b) in x.iter().zip(y) {
        let same = match (a, b) {
            (Ty::Tuple(a), Ty::Tuple(b)) => tuples_equal(a, b),
            (Ty::None, Ty::None) => Some(true),
            _ => a.value().zip(b.value()).map(|(a, b)| a == b),
        };
        match same {
            Some(false) => return Some(false),
            None => all = None,
            Some(true) => {}
        }
    }
    all
}

/// What a value that is not an array is, for E0303 (as the interpreter's `kind_name`).
fn non_array(t: &Ty) -> Option<&'static str> {
    Some(match t {
        Ty::Tuple(_) => "a tuple",
        Ty::Str(_) => "a string",
        Ty::DType(_) => "a dtype",
        Ty::Func(_) => "a function",
        Ty::None => "none",
        Ty::Unit => "nothing (a statement's value)",
        Ty::Array { .. } | Ty::Unknown => return None,
    })
}

/// E0302 for a dtype name that is not one (shared with the interpreter).
pub fn unknown_dtype(ty: &Ident) -> Diagnostic {
    unknown_dtype_named(&ty.name, &ty.span)
}

/// E0302 for `name`, which names no dtype: the hint reads a NumPy type
/// code (`f8` is 8 bytes, Arr's `f64`) or suggests the closest name.
pub fn unknown_dtype_named(name: &str, span: &Span) -> Diagnostic {
    let names = DType::ALL.map(|d| d.name());
    let all = names.join(", ");
    let hint = if matches!(name, "u64" | "uint64") {
        format!("Arr has no unsigned 64-bit dtype; `i64` holds the values below 2^63. The dtypes are {all}")
    } else if let Some(d) = DType::from_numpy_code(name) {
        format!("`{name}` is NumPy's code for `{d}`: Arr's dtype names count bits, not bytes. The dtypes are {all}")
    } else if let Some(c) = closest(name, names) {
        format!("did you mean `{c}`? The dtypes are {all}")
    } else {
        format!("the dtypes are {all}")
    };
    Diagnostic::new("E0302", format!("unknown dtype `{name}`"), span.clone()).with_hint(hint)
}

/// Functions from NumPy and Python that Arr spells differently, and the hint
/// an unknown call to one gets.
/// For `max(a, b)` or `min(a, b)` written as Python's builtins are, whose
/// second argument Arr's reductions read as an axis: the elementwise function.
fn pairwise_hint(name: &str) -> Option<String> {
    let (pairwise, which) = match name {
        "max" | "amax" | "nanmax" => ("maximum", "larger"),
        "min" | "amin" | "nanmin" => ("minimum", "smaller"),
        _ => return None,
    };
    Some(format!(
        "`{name}` reduces one array, its second argument the axis; the elementwise {which} of two is `{pairwise}(a, b)`"
    ))
}

/// E0104 for a function whose parameters repeat a name (`fn f(a, a)`), as
/// Python refuses it; the run refuses it by the same rule where it defines `f`.
pub fn repeated_param(def: &FnDef) -> Option<Diagnostic> {
    let params = &def.params;
    params.iter().enumerate().find_map(|(k, p)| {
        let first = params[..k].iter().find(|q| q.name.name == p.name.name)?;
        Some(
            Diagnostic::new(
                "E0104",
                format!("`{}` is a parameter of `{}` twice", p.name.name, def.name.name),
                p.name.span.clone(),
            )
            .with_label(first.name.span.clone(), "first here")
            .with_hint("each parameter needs its own name"),
        )
    })
}

/// The hint for a Python constant written in Python's spelling (`True`,
/// `False`), shared with the run's E0100 (`Interp::unknown_name`).
pub fn python_name_hint(name: &str) -> Option<String> {
    if name == "return" {
        return Some(crate::syntax::RETURN_HINT.to_string());
    }
    let arr = match name {
        "True" | "TRUE" => "true",
        "False" | "FALSE" => "false",
        "Inf" | "INF" | "Infinity" => "inf",
        "NaN" | "NAN" => "nan",
        _ => return None,
    };
    Some(format!("Arr writes it `{arr}`"))
}

const ALIASES: &[(&str, &str)] = &[
    ("length", "did you mean `size(x)` or `shape(x)`?"),
    ("numel", "did you mean `size(x)`?"),
    ("dot", "did you mean `matmul(a, b)`?"),
    ("average", "did you mean `mean(x)`?"),
    ("avg", "did you mean `mean(x)`?"),
    ("amax", "did you mean `max(x)`?"),
    ("amin", "did you mean `min(x)`?"),
    ("power", "did you mean `x ** y`?"),
    ("astype", "did you mean `x as f32` (any dtype)?"),
    ("range", "did you mean `arange(n)`, or `for i in 0..n`?"),
    ("concatenate", "did you mean `concat(a, b)`?"),
];

/// The closest of `user` then `builtin` names to a misspelt `name`: the
/// fewest edits wins, a user name on a tie. A one-letter name is suggested
/// for a two-letter typo (`x` for `xx`), but nothing is suggested that shares
/// no letter with the name.
fn nearest_name<'a>(name: &str, user: &[&'a str], builtin: &[&'a str]) -> Option<&'a str> {
    let limit = 2.max(name.chars().count() / 3);
    user.iter()
        .map(|c| (0, *c))
        .chain(builtin.iter().map(|c| (1, *c)))
        .map(|(rank, c)| (strsim::damerau_levenshtein(name, c), rank, c))
        .filter(|&(d, _, c)| d <= limit && d < name.chars().count().max(c.chars().count()))
        .min_by_key(|&(d, rank, c)| (d, rank, c))
        .map(|(_, _, c)| c)
}

/// `[1, -2, 3]`'s integers: a list literal of integer literals (negated or not).
fn literal_int_list(x: &Expr) -> Option<Vec<i64>> {
    let ExprKind::ArrayLit(items) = &x.kind else {
        return None;
    };
    items
        .iter()
        .map(|i| match &i.kind {
            ExprKind::Int(v) => Some(*v),
            ExprKind::Unary(UnOp::Neg, inner) => match inner.kind {
                ExprKind::Int(v) => v.checked_neg(),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Errors of `base[items]` that constants show: two `...` or more axes indexed
/// than the array has (E0205, in the run's order, `Interp::index`), and a
/// constant integer index, or one of a list literal of them (`lists`, by
/// item), out of its axis's range (E0204). Items after an index array that is
/// not such a list, a mask or `...` are not placed.
fn constant_index_error(
    base: &Ty,
    items: &[(super::npsort::IndexTy, Span)],
    lists: &[Option<Vec<i64>>],
    span: &Span,
) -> Option<Diagnostic> {
    use super::npsort::IndexTy;
    if matches!(base, Ty::Array { .. }) && items.iter().filter(|(i, _)| matches!(i, IndexTy::Ellipsis)).count() > 1 {
        return Some(Diagnostic::new(
            "E0205",
            "an index can contain only one `...`",
            span.clone(),
        ));
    }
    let Ty::Array { shape: Some(shape), .. } = base else {
        return None;
    };
    let scalar_int =
        |t: &Ty| matches!(t, Ty::Array { dtype: Some(dt), shape: Some(s), .. } if dt.is_int() && s.is_empty());
    let consuming: usize = items
        .iter()
        .map(|(item, _)| match item {
            IndexTy::Slice => 1,
            IndexTy::Expr(Ty::Array {
                dtype: Some(DType::Bool),
                shape: Some(s),
                ..
            }) => s.len(),
            // `a[nonzero(m)]`, `z[()]`: a tuple indexes one axis per part (none for `()`)
            IndexTy::Expr(Ty::Tuple(parts)) => parts
                .iter()
                .map(|p| match p {
                    Ty::Array {
                        dtype: Some(DType::Bool),
                        shape: Some(s),
                        ..
                    } => s.len(),
                    _ => 1,
                })
                .sum(),
            IndexTy::Expr(_) => 1,
            IndexTy::NewAxis | IndexTy::Ellipsis => 0,
        })
        .sum();
    if consuming > shape.len() {
        return Some(
            Diagnostic::new(
                "E0205",
                format!("too many indices: {consuming} for an array of rank {}", shape.len()),
                span.clone(),
            )
            .with_hint(format!(
                "the array's shape is [{}]",
                shape
                    .iter()
                    .map(|d| d.map_or("?".to_string(), |v| v.to_string()))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        );
    }
    let mut axis = 0usize;
    for ((item, item_span), list) in items.iter().zip(lists) {
        if let Some(list) = list {
            if let Some(Some(n)) = shape.get(axis) {
                let n = *n as i64;
                if let Some(&i) = list.iter().find(|&&i| i < -n || i >= n) {
                    return Some(shape::index_out_of_range(i, n, item_span));
                }
            }
            axis += 1;
            continue;
        }
        match item {
            IndexTy::Slice => axis += 1,
            IndexTy::NewAxis => {}
            IndexTy::Expr(t) if scalar_int(t) => {
                if let (Some(v), Some(Some(n))) = (t.value(), shape.get(axis)) {
                    let (i, n) = (v as i64, *n as i64);
                    if i < -n || i >= n {
                        return Some(shape::index_out_of_range(i, n, item_span));
                    }
                }
                axis += 1;
            }
            IndexTy::Expr(_) | IndexTy::Ellipsis => return None,
        }
    }
    None
}

#[cfg(test)]
mod suggestion_tests {
    use super::nearest_name;

    #[test]
    fn a_user_name_beats_a_builtin_at_the_same_distance() {
        assert_eq!(nearest_name("xx", &["x"], &[]), Some("x"));
        assert_eq!(nearest_name("mx", &["mx2"], &["max"]), Some("mx2"));
        assert_eq!(nearest_name("sqr", &["sq"], &["sqrt"]), Some("sq"));
    }

    #[test]
    fn nothing_unrelated_is_suggested() {
        assert_eq!(nearest_name("y", &["x"], &[]), None);
        assert_eq!(nearest_name("banana", &["x"], &["exp"]), None);
    }
}
