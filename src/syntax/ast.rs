//! The abstract syntax tree. Every node carries the byte span of its source
//! so that every later stage can point at what the user wrote.

pub type Span = std::ops::Range<usize>;

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub stmts: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `let x = e` or `let (a, b) = e`
    Let {
        target: Pattern,
        value: Expr,
    },
    /// `x = e`, `x += e`, `a[1:, 0] = e`, `a[i] *= e`; `target` is a `Name` or `Index` expression.
    Assign {
        target: Expr,
        op: Option<BinOp>,
        value: Expr,
    },
    /// An expression evaluated for its value (printed in the REPL) or effect.
    Expr(Expr),
    Fn(std::rc::Rc<FnDef>),
    /// `for i in start..end { body }`
    For {
        var: Ident,
        start: Expr,
        end: Expr,
        body: Block,
    },
    /// `for v in iterable { body }`: each `v` a view of the next element
    /// along the first axis of an array (or the next item of a tuple).
    ForEach {
        /// The names each item binds: one, or a tuple pattern (`for (i, v) in enumerate(x)`).
        var: Pattern,
        iter: Expr,
        body: Block,
    },
    /// `while cond { body }`
    While {
        cond: Expr,
        body: Block,
    },
    Break,
    Continue,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    Name(Ident),
    Tuple(Vec<Pattern>, Span),
    /// `*rest` in a tuple pattern (at most one, never outside a tuple): a
    /// tuple of the values the other names leave, as Python's starred name.
    Rest(Ident),
}

#[derive(Clone, Debug, PartialEq)]
pub struct FnDef {
    pub name: Ident,
    pub params: Vec<Param>,
    pub ret: Option<TypeAnn>,
    /// `fn f(x) = expr` has an expression body; the block form is an `ExprKind::Block`.
    pub body: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Ident,
    pub ann: Option<TypeAnn>,
    pub default: Option<Expr>,
}

/// `f32`, `f32[n, m]`, `[n]` (any dtype), `f64[]` (rank 0).
#[derive(Clone, Debug, PartialEq)]
pub struct TypeAnn {
    /// The dtype name as written (checked later, so a typo gets a diagnostic).
    pub dtype: Option<Ident>,
    pub dims: Option<Vec<DimAnn>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum DimAnn {
    Fixed(u64, Span),
    Var(Ident),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The value of a block is the value of its last statement when that is
    /// an expression statement, and "nothing" otherwise.
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// Long operator chains (`1 + 2 + ... + 10000`) are deep left-leaning
/// trees: the parser does not count a chain's length as nesting (see
/// `syntax::build`), so dropping one must not recurse once per operator.
impl Drop for Expr {
    fn drop(&mut self) {
        if !matches!(self.kind, ExprKind::Binary(..) | ExprKind::Unary(..)) {
            return;
        }
        let mut stack: Vec<Box<Expr>> = Vec::new();
        take_operands(&mut self.kind, &mut stack);
        while let Some(mut e) = stack.pop() {
            take_operands(&mut e.kind, &mut stack);
        }
    }
}

/// Moves an operator's operands onto `stack`, leaving a leaf behind. The
/// boxes move as they are: unboxing each node would copy it for nothing.
#[allow(clippy::vec_box)]
fn take_operands(kind: &mut ExprKind, stack: &mut Vec<Box<Expr>>) {
    if !matches!(kind, ExprKind::Binary(..) | ExprKind::Unary(..)) {
        return;
    }
    match std::mem::replace(kind, ExprKind::Bool(false)) {
        ExprKind::Binary(_, a, b) => stack.extend([a, b]),
        ExprKind::Unary(_, a) => stack.push(a),
        _ => {}
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    Name(String),
    /// `[a, b, c]`, nested for higher rank.
    ArrayLit(Vec<Expr>),
    /// `(a, b)`; `(a,)` for one element. `(a)` is just `a`.
    Tuple(Vec<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `e as f32`; the dtype name as written.
    Cast(Box<Expr>, Ident),
    Call {
        func: Ident,
        args: Vec<Arg>,
    },
    Index {
        base: Box<Expr>,
        indices: Vec<IndexItem>,
    },
    /// `if c0 { .. } else if c1 { .. } else { .. }`: each arm's condition
    /// and block in order, then the `else` block. A chain of `else if` is one
    /// node, so it can be as long as a program likes without nesting deeper.
    If {
        arms: Vec<(Expr, Block)>,
        otherwise: Option<Block>,
    },
    Block(Block),
    /// `f"x = {x:.3f}"`: literal text and formatted values, in order.
    FStr(Vec<FPart>),
}

/// One piece of an f-string.
#[derive(Clone, Debug, PartialEq)]
pub enum FPart {
    Text(String),
    /// `{expr}` or `{expr:spec}` (Python's format-spec mini-language).
    Value {
        expr: Expr,
        spec: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub name: Option<Ident>,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct IndexItem {
    pub kind: IndexKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum IndexKind {
    /// A single position (removes the axis), or an integer/bool array (gather).
    Expr(Expr),
    Slice {
        start: Option<Expr>,
        stop: Option<Expr>,
        step: Option<Expr>,
    },
    NewAxis,
    Ellipsis,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Not,
    /// `~`: bitwise not of integers, logical not of bools (NumPy's `invert`).
    Invert,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    /// `//`, Python's floor division.
    FloorDiv,
    Rem,
    Pow,
    MatMul,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    /// `& | ^ << >>`: bitwise on integers, logical on bools (`check::prim::for_each_binary!`).
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinOp {
    /// What the operation is called in messages ("shapes ... do not broadcast in addition").
    pub fn noun(self) -> &'static str {
        match self {
            BinOp::Add => "addition",
            BinOp::Sub => "subtraction",
            BinOp::Mul => "multiplication",
            BinOp::Div => "division",
            BinOp::FloorDiv => "floor division",
            BinOp::Rem => "remainder",
            BinOp::Pow => "power",
            BinOp::MatMul => "matrix product",
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => "comparison",
            BinOp::And | BinOp::Or => "logical operation",
            BinOp::BitAnd => "bitwise and",
            BinOp::BitOr => "bitwise or",
            BinOp::BitXor => "bitwise xor",
            BinOp::Shl => "left shift",
            BinOp::Shr => "right shift",
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Rem => "%",
            BinOp::Pow => "**",
            BinOp::MatMul => "@",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
        }
    }
}

impl Expr {
    /// Whether evaluating this could bind a name: it holds a block (of an `if`, or
    /// `{ ... }`), whose `let` binds in the enclosing scope.
    pub fn may_bind(&self) -> bool {
        match &self.kind {
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Str(_) | ExprKind::Name(_) => false,
            ExprKind::ArrayLit(items) | ExprKind::Tuple(items) => items.iter().any(Expr::may_bind),
            ExprKind::Unary(_, x) | ExprKind::Cast(x, _) => x.may_bind(),
            ExprKind::Binary(_, a, b) => a.may_bind() || b.may_bind(),
            ExprKind::Call { args, .. } => args.iter().any(|a| a.value.may_bind()),
            ExprKind::Index { base, indices } => {
                base.may_bind()
                    || indices.iter().any(|i| match &i.kind {
                        IndexKind::Expr(x) => x.may_bind(),
                        IndexKind::Slice { start, stop, step } => {
                            [start, stop, step].into_iter().flatten().any(Expr::may_bind)
                        }
                        IndexKind::NewAxis | IndexKind::Ellipsis => false,
                    })
            }
            ExprKind::If { .. } | ExprKind::Block(_) => true,
            ExprKind::FStr(parts) => parts
                .iter()
                .any(|p| matches!(p, FPart::Value { expr, .. } if expr.may_bind())),
        }
    }
}

/// The names a loop's statements (and its condition) read or bind, or `None` when
/// they call a function that is not a builtin (whose body may read any global):
/// what a loop can carry from one iteration to the next.
pub fn names_used(stmts: &[Stmt], extra: &[&Expr], is_builtin: &dyn Fn(&str) -> bool) -> Option<Vec<String>> {
    struct Walk<'a> {
        names: Vec<String>,
        is_builtin: &'a dyn Fn(&str) -> bool,
        opaque: bool,
    }
    impl Walk<'_> {
        fn stmts(&mut self, stmts: &[Stmt]) {
            for s in stmts {
                self.stmt(s);
            }
        }
        fn stmt(&mut self, s: &Stmt) {
            match &s.kind {
                StmtKind::Let { target, value } => {
                    self.pattern(target);
                    self.expr(value);
                }
                StmtKind::Assign { target, value, .. } => {
                    self.expr(target);
                    self.expr(value);
                }
                StmtKind::Expr(e) => self.expr(e),
                // a definition's body runs when called, and a call is opaque already
                StmtKind::Fn(def) => self.names.push(def.name.name.clone()),
                StmtKind::For { var, start, end, body } => {
                    self.names.push(var.name.clone());
                    self.expr(start);
                    self.expr(end);
                    self.stmts(&body.stmts);
                }
                StmtKind::ForEach { var, iter, body } => {
                    self.pattern(var);
                    self.expr(iter);
                    self.stmts(&body.stmts);
                }
                StmtKind::While { cond, body } => {
                    self.expr(cond);
                    self.stmts(&body.stmts);
                }
                StmtKind::Break | StmtKind::Continue => {}
            }
        }
        fn pattern(&mut self, p: &Pattern) {
            match p {
                Pattern::Name(n) | Pattern::Rest(n) => self.names.push(n.name.clone()),
                Pattern::Tuple(items, _) => items.iter().for_each(|p| self.pattern(p)),
            }
        }
        fn expr(&mut self, e: &Expr) {
            match &e.kind {
                ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Str(_) => {}
                ExprKind::Name(n) => self.names.push(n.clone()),
                ExprKind::ArrayLit(items) | ExprKind::Tuple(items) => items.iter().for_each(|i| self.expr(i)),
                ExprKind::Unary(_, x) | ExprKind::Cast(x, _) => self.expr(x),
                ExprKind::Binary(_, a, b) => {
                    self.expr(a);
                    self.expr(b);
                }
                ExprKind::Call { func, args } => {
                    if !(self.is_builtin)(&func.name) {
                        self.opaque = true;
                    }
                    self.names.push(func.name.clone());
                    args.iter().for_each(|a| self.expr(&a.value));
                }
                ExprKind::Index { base, indices } => {
                    self.expr(base);
                    for item in indices {
                        match &item.kind {
                            IndexKind::Expr(x) => self.expr(x),
                            IndexKind::Slice { start, stop, step } => {
                                [start, stop, step].into_iter().flatten().for_each(|x| self.expr(x))
                            }
                            IndexKind::NewAxis | IndexKind::Ellipsis => {}
                        }
                    }
                }
                ExprKind::If { arms, otherwise } => {
                    for (cond, then) in arms {
                        self.expr(cond);
                        self.stmts(&then.stmts);
                    }
                    if let Some(o) = otherwise {
                        self.stmts(&o.stmts);
                    }
                }
                ExprKind::Block(b) => self.stmts(&b.stmts),
                ExprKind::FStr(parts) => {
                    for p in parts {
                        if let FPart::Value { expr, .. } = p {
                            self.expr(expr);
                        }
                    }
                }
            }
        }
    }
    let mut walk = Walk {
        names: Vec::new(),
        is_builtin,
        opaque: false,
    };
    walk.stmts(stmts);
    extra.iter().for_each(|e| walk.expr(e));
    (!walk.opaque).then_some(walk.names)
}
